//! `lstm/digits`: one training step of the digits LSTM (8 steps of 8
//! pixels, hidden 64, linear to 10 logits) at batch 64: forward, softmax
//! cross-entropy, backward through time, Adam (lr 1e-3, eps 1e-8).

use super::{StepResult, filled};
use crate::{Work, Workload};
use minnow_nn::{DIGIT_CLASSES, DIGIT_COLS, DIGIT_ROWS, DigitsLstm, DigitsLstmConfig, Forward, Params, Tape};
use minnow_optim::{Adam, AdamConfig, Optimizer};
use rand::SeedableRng;

/// Sequences per step.
pub const BATCH: usize = 64;
/// Hidden width.
pub const HIDDEN: usize = 64;

/// `lstm/digits`: one training step.
#[allow(missing_debug_implementations)]
pub struct LstmDigits {
    model: DigitsLstm,
    params: Params,
    tape: Tape,
    adam: Adam,
    images: Vec<f32>,
    labels: Vec<u32>,
}

impl LstmDigits {
    /// The workload, on fixed random digits.
    pub fn new() -> Self {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut params = Params::new();
        let model = DigitsLstmConfig { hidden: HIDDEN }.init(&mut params, "digits", &mut rng).expect("valid model");
        let adam = AdamConfig { lr: 1e-3, eps: 1e-8, ..AdamConfig::default() }.build(&params).expect("valid Adam");
        let pixels = DIGIT_ROWS * DIGIT_COLS;
        Self {
            model,
            params,
            tape: Tape::new(),
            adam,
            // Pixels in [0, 1], like the scaled dataset.
            images: filled(BATCH * pixels, 31).iter().map(|v| v.abs()).collect(),
            labels: (0..BATCH).map(|i| (i % DIGIT_CLASSES) as u32).collect(),
        }
    }

    /// One training step; returns the loss.
    pub fn step(&mut self) -> StepResult<f32> {
        self.params.zero_grads();
        let loss = {
            let mut g = self.tape.graph(&mut self.params);
            let x = g.input(&[BATCH, DIGIT_ROWS * DIGIT_COLS], &self.images)?;
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

impl Default for LstmDigits {
    fn default() -> Self {
        Self::new()
    }
}

/// GEMM flops of one step. Forward: the input projection of all steps,
/// the hidden projection of steps 1.., the head. Backward: two GEMMs per
/// linear, except no dx for the input projection (the images).
fn flops() -> f64 {
    let (b, t, i, h, g) = (BATCH, DIGIT_ROWS, DIGIT_COLS, HIDDEN, 4 * HIDDEN);
    let input = 2 * b * t * i * g;
    let hidden = 2 * b * (t - 1) * h * g;
    let head = 2 * b * h * DIGIT_CLASSES;
    (input + hidden + head + input + 2 * hidden + 2 * head) as f64
}

impl Workload for LstmDigits {
    fn name(&self) -> String {
        "lstm/digits".to_string()
    }
    fn work(&self) -> Work {
        Work::Flops(flops())
    }
    fn run(&mut self) {
        std::hint::black_box(self.step().expect("the benchmark step is valid"));
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(LstmDigits::new()));
}
