//! `az_forward/bB`: inference of the 283,477-parameter AlphaZero-style
//! residual MLP of docs/ANCHORS.md at batch B: policy softmax and tanh
//! value, on the f32 inference copy search evaluates its leaves with
//! (`PolicyValueInference`: weight rows padded to cache lines, made
//! outside the timed call; the tape forward's outputs bit for bit).
//! `az_forward/bB/bf16`: the same network and inputs through its bf16
//! copy (bf16 weights; activations converted at each Linear's input; f32
//! accumulation), as `mcts.inference = "bf16"` runs it.

use super::StepResult;
use super::filled;
use crate::{Work, Workload};
use minnow_nn::{Forward, Params, PolicyValueInference, PolicyValueNet, PolicyValueNetConfig, Tape};
use rand::SeedableRng;

/// The network: 198 inputs, 4 residual blocks of width 140, 676 policy logits.
pub const CONFIG: PolicyValueNetConfig = PolicyValueNetConfig { inputs: 198, width: 140, blocks: 4, policy: 676 };

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
        Self {
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
