//! `az_forward/bB`: inference of the 283,477-parameter AlphaZero-style
//! residual MLP of docs/ANCHORS.md at batch B: policy softmax and tanh
//! value, on the f32 inference copy search evaluates its leaves with
//! (`PolicyValueInference`: weight rows padded to cache lines, made
//! outside the timed call; the tape forward's outputs bit for bit).
//! `az_forward/bB/bf16`: the same network and inputs through its bf16
//! copy (bf16 weights; activations converted at each Linear's input; f32
//! accumulation), as `mcts.inference = "bf16"` runs it.
//!
//! Floors: [`NetworkWork`] counts one row's forward from the Linear
//! shapes and the bytes a call cannot avoid (the weights once per thread,
//! the inputs, the outputs).

use super::StepResult;
use super::filled;
use crate::roofline::{Cost, LinearShape, Precision, Roofline};
use crate::{Work, Workload};
use minnow_nn::{Forward, Params, PolicyValueInference, PolicyValueNet, PolicyValueNetConfig, Tape};
use rand::SeedableRng;

/// The network: 198 inputs, 4 residual blocks of width 140, 676 policy logits.
pub const CONFIG: PolicyValueNetConfig = PolicyValueNetConfig { inputs: 198, width: 140, blocks: 4, policy: 676 };

/// What one forward of a policy/value network costs, per row and per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkWork {
    /// FLOPs of one row's matrix products: 2 · inputs · outputs for
    /// each Linear (biases, LayerNorms, ReLUs and the softmax are
    /// elementwise and not counted).
    pub flops_per_row: f64,
    /// Bytes of the parameters: f32, or for bf16 the weight matrices at
    /// 2 bytes and the rest (biases, LayerNorm scales) at 4. The copy's
    /// padding of rows to cache lines is not counted.
    pub weight_bytes: f64,
    /// Bytes each row reads and writes: its inputs, its policy and value.
    pub io_bytes_per_row: f64,
    /// The precision of the products.
    pub precision: Precision,
}

impl NetworkWork {
    /// The network in `params` (`config`'s shapes) at `precision`.
    pub fn new(params: &Params, config: &PolicyValueNetConfig, precision: Precision) -> Self {
        let layers = LinearShape::of_params(params);
        let weights: usize = layers.iter().map(LinearShape::weights).sum();
        let rest = params.numel() - weights;
        let weight_bytes = match precision {
            Precision::F32 => 4.0 * params.numel() as f64,
            Precision::Bf16 => 2.0 * weights as f64 + 4.0 * rest as f64,
        };
        Self {
            flops_per_row: layers.iter().map(|l| l.forward_flops(1)).sum(),
            weight_bytes,
            io_bytes_per_row: 4.0 * (config.inputs + config.policy + 1) as f64,
            precision,
        }
    }

    /// `calls` forwards of `rows` rows in all, on `threads` threads each
    /// reading the whole weight (one copy or its own) per call: the
    /// weights are the working set a thread keeps; the activations
    /// between layers are not counted, since a row block can keep them in
    /// L1.
    pub fn cost(&self, rows: f64, calls: f64, threads: usize) -> Cost {
        Cost {
            flops: rows * self.flops_per_row,
            precision: self.precision,
            bytes: calls * threads as f64 * self.weight_bytes + rows * self.io_bytes_per_row,
            working_set: self.weight_bytes + rows / calls.max(1.0) * self.io_bytes_per_row / threads as f64,
            threads,
        }
    }
}

/// `az_forward/bB`: one inference call at batch B.
#[allow(missing_debug_implementations)]
pub struct AzForward {
    name: String,
    net: PolicyValueNet,
    params: Params,
    tape: Tape,
    batch: usize,
    input: Vec<f32>,
    policy: Vec<f32>,
    value: Vec<f32>,
    /// The inference copy (f32, or bf16 for `/bf16`) and its logits; none
    /// for the f32 `/2thr` variant, which runs the tape.
    copy: Option<(PolicyValueInference, Vec<f32>)>,
    /// A second bf16 copy for the rows of the second thread.
    bf16_second: Option<PolicyValueInference>,
    /// One call's network work.
    network: NetworkWork,
    threads: usize,
}

impl AzForward {
    /// The workload at `batch` on the f32 copy.
    pub fn new(batch: usize) -> Self {
        Self::with_copy(batch, PolicyValueInference::f32)
    }

    fn with_copy(batch: usize, copy: fn(&PolicyValueNet, &Params) -> minnow_nn::Result<PolicyValueInference>) -> Self {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2);
        let mut params = Params::new();
        let net = CONFIG.init(&mut params, "az", &mut rng).expect("valid network");
        let copy = copy(&net, &params).expect("the store holds the network");
        let precision = if copy.is_bf16() { Precision::Bf16 } else { Precision::F32 };
        Self {
            network: NetworkWork::new(&params, &CONFIG, precision),
            threads: 1,
            name: format!("az_forward/b{batch}"),
            net,
            params,
            tape: Tape::new(),
            batch,
            input: filled(batch * CONFIG.inputs, 21).iter().map(|v| v.abs()).collect(),
            policy: vec![0.0; batch * CONFIG.policy],
            value: vec![0.0; batch],
            copy: Some((copy, vec![0.0; batch * CONFIG.policy])),
            bf16_second: None,
        }
    }

    /// On two threads of rayon's pool (`NAME/2thr`; the harness runs it
    /// inside the pool). The bf16 forward, whose rows are independent all
    /// the way, gives each thread half the batch on its own copy, softmax
    /// included. In f32 half a batch can take another kernel than the
    /// whole and sum in another order, so the f32 variant runs the tape
    /// forward with its matrix products, LayerNorms and softmax split by
    /// rows (the kernel chosen once for the whole product), giving one
    /// thread's bits.
    pub fn with_threads(mut self, threads: usize) -> Self {
        assert_eq!(threads, 2, "az_forward: one or two threads");
        match &self.copy {
            Some((copy, _)) if copy.is_bf16() => {
                self.bf16_second =
                    Some(PolicyValueInference::bf16(&self.net, &self.params).expect("the store holds the network"));
            }
            _ => self.copy = None,
        }
        self.tape.set_gemm_threads(threads);
        self.threads = threads;
        self.name = format!("{}/{threads}thr", self.name);
        self
    }

    /// The workload at `batch` on the tape's forward (the one training
    /// runs), for profiles by op.
    pub fn on_tape(batch: usize) -> Self {
        Self { copy: None, ..Self::new(batch) }
    }

    /// The workload at `batch` on the bf16 copy (`az_forward/bB/bf16`).
    pub fn bf16(batch: usize) -> Self {
        let mut w = Self::with_copy(batch, PolicyValueInference::bf16);
        w.name = format!("az_forward/b{batch}/bf16");
        w
    }

    /// The network's parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// One batched evaluation into the policy and value buffers.
    pub fn evaluate(&mut self) -> StepResult<()> {
        if let (Some((first, logits)), Some(second)) = (&mut self.copy, &mut self.bf16_second) {
            let half = self.batch / 2;
            let (x0, x1) = self.input.split_at(half * CONFIG.inputs);
            let (l0, l1) = logits.split_at_mut(half * CONFIG.policy);
            let (p0, p1) = self.policy.split_at_mut(half * CONFIG.policy);
            let (v0, v1) = self.value.split_at_mut(half);
            rayon::join(
                || {
                    first.forward(x0, l0, v0);
                    minnow_kernels::softmax_rows(l0, CONFIG.policy, p0);
                },
                || {
                    second.forward(x1, l1, v1);
                    minnow_kernels::softmax_rows(l1, CONFIG.policy, p1);
                },
            );
            return Ok(());
        }
        if let Some((copy, logits)) = &mut self.copy {
            copy.forward(&self.input, logits, &mut self.value);
            minnow_kernels::softmax_rows(logits, CONFIG.policy, &mut self.policy);
            return Ok(());
        }
        let mut g = self.tape.inference(&self.params);
        let x = g.input(&[self.batch, CONFIG.inputs], &self.input)?;
        let (logits, value) = self.net.forward(&mut g, x)?;
        let policy = g.softmax(logits)?;
        self.policy.copy_from_slice(g.value(policy));
        self.value.copy_from_slice(g.value(value));
        Ok(())
    }

    /// The policy and value of the last evaluation.
    pub fn outputs(&self) -> (&[f32], &[f32]) {
        (&self.policy, &self.value)
    }

    /// The tape (for profiles).
    pub fn tape_mut(&mut self) -> &mut Tape {
        &mut self.tape
    }
}

impl Workload for AzForward {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn work(&self) -> Work {
        Work::Flops(2.0 * self.batch as f64 * self.params.numel() as f64)
    }
    fn run(&mut self) {
        self.evaluate().expect("the benchmark input is valid");
        std::hint::black_box(&self.policy);
    }
    fn roofline(&self) -> Roofline {
        Roofline::Floor(self.network.cost(self.batch as f64, 1.0, self.threads))
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    for batch in [1, 8, 64] {
        list.push(Box::new(AzForward::new(batch)));
    }
    for batch in [1, 8, 64] {
        list.push(Box::new(AzForward::bf16(batch)));
    }
    list.push(Box::new(AzForward::new(64).with_threads(2)));
    list.push(Box::new(AzForward::bf16(64).with_threads(2)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_counts_its_linears_from_the_config() {
        let w = AzForward::new(8);
        let c = CONFIG;
        let per_row = 2 * (c.inputs * c.width + 2 * c.blocks * c.width * c.width + c.width * c.policy + c.width);
        assert_eq!(w.network.flops_per_row, per_row as f64);
        let cost = w.network.cost(8.0, 1.0, 1);
        assert_eq!(cost.flops, 8.0 * per_row as f64);
        assert_eq!(cost.bytes, 4.0 * w.params.numel() as f64 + 8.0 * 4.0 * (c.inputs + c.policy + 1) as f64);
        // bf16 halves the weight matrices' bytes only.
        let bf16 = AzForward::bf16(8).network;
        assert_eq!(bf16.flops_per_row, w.network.flops_per_row);
        assert_eq!(bf16.weight_bytes, w.network.weight_bytes - per_row as f64);
    }
}
