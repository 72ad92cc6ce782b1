//! `conv2d/digits`: one training step of the digits CNN (DigitsCnnConfig's
//! defaults: conv 1->16 and 16->32, 3x3 with padding 1, each followed by
//! ReLU and 2x2 max pooling, then Linear 128->64->10) at batch 64:
//! forward, cross-entropy, backward, Adam (lr 1e-3).

use super::StepResult;
use super::filled;
use crate::{Work, Workload};
use minnow_nn::{DigitsCnn, DigitsCnnConfig, Forward, Params, Tape};
use minnow_optim::{Adam, AdamConfig, Optimizer};
use rand::SeedableRng;

/// Images per step.
pub const BATCH: usize = 64;

/// `conv2d/digits`: one training step.
#[allow(missing_debug_implementations)]
pub struct ConvStep {
    model: DigitsCnn,
    params: Params,
    tape: Tape,
    adam: Adam,
    images: Vec<f32>,
    labels: Vec<u32>,
    flops: f64,
}

impl ConvStep {
    /// The workload, on fixed random images.
    pub fn new() -> Self {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut params = Params::new();
        let config = DigitsCnnConfig::default();
        let model = config.init(&mut params, "cnn", &mut rng).expect("valid CNN");
        let adam = AdamConfig { lr: 1e-3, ..AdamConfig::default() }.build(&params).expect("valid Adam");
        Self {
            model,
            params,
            tape: Tape::new(),
            adam,
            images: filled(BATCH * 64, 31).iter().map(|v| v.abs()).collect(),
            labels: (0..BATCH).map(|i| (i % 10) as u32).collect(),
            flops: step_flops(&config, BATCH),
        }
    }

    /// One training step; returns the loss.
    pub fn step(&mut self) -> StepResult<f32> {
        self.params.zero_grads();
        let loss = {
            let mut g = self.tape.graph(&mut self.params);
            let x = g.input(&[BATCH, 64], &self.images)?;
            let logits = self.model.forward(&mut g, x)?;
            let loss = g.cross_entropy(logits, &self.labels, None)?;
            g.backward(loss)?;
            g.scalar(loss)
        };
        self.adam.step(&mut self.params)?;
        Ok(loss)
    }

    /// The tape (for profiles).
    pub fn tape_mut(&mut self) -> &mut Tape {
        &mut self.tape
    }
}

impl Default for ConvStep {
    fn default() -> Self {
        Self::new()
    }
}

/// GEMM flops of a step: each layer's forward product, once more for the
/// weight gradient, and once more for the input gradient except the first
/// convolution's (its input is data).
fn step_flops(config: &DigitsCnnConfig, batch: usize) -> f64 {
    let [c1, c2] = config.channels;
    // (positions per image, input channels x 3 x 3, output channels)
    let conv1 = 2.0 * (64 * 9 * c1) as f64;
    let conv2 = 2.0 * (16 * c1 * 9 * c2) as f64;
    let fc = 2.0 * (4 * c2 * config.hidden + config.hidden * 10) as f64;
    batch as f64 * (2.0 * conv1 + 3.0 * (conv2 + fc))
}

impl Workload for ConvStep {
    fn name(&self) -> String {
        "conv2d/digits".to_string()
    }
    fn work(&self) -> Work {
        Work::Flops(self.flops)
    }
    fn run(&mut self) {
        std::hint::black_box(self.step().expect("the benchmark step is valid"));
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(ConvStep::new()));
}
