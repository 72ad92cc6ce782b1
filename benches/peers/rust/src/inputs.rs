//! The workloads' definitions (docs/ANCHORS.md), minnow's inputs
//! (benches/src/workloads/{mod,dqn,az}.rs: the same LCG and seeds), and the
//! initial weights that candle and burn share.

/// `dqn_step/*`: an MLP Q-network and a batch (docs/ANCHORS.md).
#[derive(Clone, Copy, Debug)]
pub struct DqnSpec {
    pub name: &'static str,
    pub sizes: &'static [usize],
    pub batch: usize,
    pub params: usize,
}

pub const DQN: [DqnSpec; 2] = [
    DqnSpec { name: "dqn_step/cube", sizes: &[144, 128, 64, 6], batch: 64, params: 27_206 },
    DqnSpec { name: "dqn_step/2048", sizes: &[16, 64, 64, 4], batch: 32, params: 5_508 },
];
pub const GAMMA: f64 = 0.99;
pub const LR: f64 = 1e-3;
pub const EPS: f64 = 1e-8;
pub const HUBER_DELTA: f32 = 1.0;

/// `az_forward/bB`: x(198) -> Linear(140) -> ReLU; 4 residual blocks, each
/// y = LN(Linear(ReLU(LN(Linear(x))))), x = ReLU(x + y); policy head
/// Linear(140 -> 676) -> softmax; value head Linear(140 -> 1) -> tanh.
pub const AZ_INPUTS: usize = 198;
pub const AZ_WIDTH: usize = 140;
pub const AZ_BLOCKS: usize = 4;
pub const AZ_POLICY: usize = 676;
pub const AZ_PARAMS: usize = 283_477;
pub const AZ_LN_EPS: f64 = 1e-5;

/// minnow's `benches::workloads::filled`: a 64-bit LCG, values in [-1, 1).
pub fn filled(len: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// One DQN batch, as minnow's benchmark builds it.
#[derive(Clone, Debug)]
pub struct DqnBatch {
    pub states: Vec<f32>,
    pub next_states: Vec<f32>,
    pub actions: Vec<u32>,
    pub rewards: Vec<f32>,
    pub dones: Vec<f32>,
}

pub fn dqn_batch(spec: &DqnSpec) -> DqnBatch {
    let (n_in, n_act, batch) = (spec.sizes[0], spec.sizes[spec.sizes.len() - 1], spec.batch);
    DqnBatch {
        states: filled(batch * n_in, 11).iter().map(|v| v.abs()).collect(),
        next_states: filled(batch * n_in, 12).iter().map(|v| v.abs()).collect(),
        actions: (0..batch).map(|i| (i % n_act) as u32).collect(),
        rewards: filled(batch, 13),
        dones: (0..batch).map(|i| (i % 7 == 0) as u32 as f32).collect(),
    }
}

/// The az_forward input, as minnow's benchmark builds it.
pub fn az_board(batch: usize) -> Vec<f32> {
    filled(batch * AZ_INPUTS, 21).iter().map(|v| v.abs()).collect()
}

/// A linear layer's initial weight, row-major (fan_in, fan_out), and bias:
/// PyTorch's default distribution, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for
/// both, drawn from the LCG above so that candle and burn start from the
/// same numbers (and their losses can be compared).
pub fn linear_init(fan_in: usize, fan_out: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let bound = 1.0 / (fan_in as f32).sqrt();
    let w = filled(fan_in * fan_out, 1000 + 2 * seed).iter().map(|v| v * bound).collect();
    let b = filled(fan_out, 1001 + 2 * seed).iter().map(|v| v * bound).collect();
    (w, b)
}

/// What one benchmark exposes to the driver.
pub trait Bench {
    /// One call: the work that is timed (a training step, or a forward).
    fn call(&mut self);
    /// Parameters of the (online) network, counted from the framework's tensors.
    fn n_params(&self) -> usize;
    /// Shapes of the linear layers' weights, (fan_in, fan_out), read back
    /// from the framework's tensors.
    fn linear_shapes(&self) -> Vec<(usize, usize)>;
    /// Numbers to compare across frameworks: for a DQN step, the loss of one
    /// more step (before its update); for a forward, value[0], the sum of
    /// policy row 0 and policy[0][0].
    fn probe(&mut self) -> Vec<f32>;
}
