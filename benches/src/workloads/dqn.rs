//! `dqn_step/cube` and `dqn_step/2048`: one DQN training step exactly as
//! docs/ANCHORS.md defines it. Forward the online MLP on states and gather Q at
//! the actions taken; forward the target MLP (same shape, no gradient) on
//! next states; target = r + 0.99 (1 - done) max Q'; Huber loss (delta 1);
//! backward; Adam (lr 1e-3, eps 1e-8).
//!
//! Its floor ([`DqnStep::cost`]) counts the matrix products of both
//! forwards and the backward from the layer shapes, Adam's arithmetic,
//! and the bytes the step cannot avoid moving.

use super::StepResult;
use super::filled;
use crate::roofline::{ADAM_FLOPS_PER_PARAMETER, Cost, LinearShape, Precision, Roofline};
use crate::{Work, Workload};
use minnow_autodiff::beside;
use minnow_kernels::row_max_argmax;
use minnow_nn::{Forward, Mlp, MlpConfig, Params, Tape};
use minnow_optim::{Adam, AdamConfig, Optimizer};
use rand::SeedableRng;

/// One DQN training step of an MLP Q-network.
#[allow(missing_debug_implementations)]
pub struct DqnStep {
    name: String,
    mlp: Mlp,
    online: Params,
    target: Params,
    tape: Tape,
    target_tape: Tape,
    adam: Adam,
    batch: usize,
    states: Vec<f32>,
    next_states: Vec<f32>,
    actions: Vec<u32>,
    rewards: Vec<f32>,
    dones: Vec<f32>,
    next_max: Vec<f32>,
    next_argmax: Vec<u32>,
    targets: Vec<f32>,
    /// The network's Linear layers, first to last.
    layers: Vec<LinearShape>,
    threads: usize,
}

impl DqnStep {
    /// The step of an MLP of `sizes` at `batch`, named `name`.
    pub fn new(name: &str, sizes: &[usize], batch: usize) -> Self {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let mut online = Params::new();
        let mlp = MlpConfig::new(sizes).init(&mut online, "q", &mut rng).expect("valid MLP");
        let target = online.clone();
        let adam = AdamConfig { lr: 1e-3, eps: 1e-8, ..AdamConfig::default() }.build(&online).expect("valid Adam");
        let (inputs, actions) = (sizes[0], sizes[sizes.len() - 1]);
        let layers = LinearShape::of_params(&online);
        Self {
            name: name.to_string(),
            mlp,
            online,
            target,
            tape: Tape::new(),
            target_tape: Tape::new(),
            adam,
            batch,
            states: filled(batch * inputs, 11).iter().map(|v| v.abs()).collect(),
            next_states: filled(batch * inputs, 12).iter().map(|v| v.abs()).collect(),
            actions: (0..batch).map(|i| (i % actions) as u32).collect(),
            rewards: filled(batch, 13),
            dones: (0..batch).map(|i| (i % 7 == 0) as u32 as f32).collect(),
            next_max: vec![0.0; batch],
            next_argmax: vec![0; batch],
            targets: vec![0.0; batch],
            layers,
            threads: 1,
        }
    }

    /// The same step with its large matrix products and the Adam update
    /// split over `threads` threads of rayon's pool and the target
    /// network's forward beside the online one's, named `NAME/Nthr` (the
    /// harness runs it inside the pool, so the splits stay on its workers).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.tape.set_gemm_threads(threads);
        self.target_tape.set_gemm_threads(threads);
        self.adam.set_threads(threads);
        self.threads = threads;
        self.name = format!("{}/{threads}thr", self.name);
        self
    }

    /// FLOPs of the step's matrix products: the online and the target
    /// network's forwards, and the online network's backward (a weight
    /// gradient for every layer, an input gradient for all but the first,
    /// whose input is the states).
    pub fn matrix_flops(&self) -> f64 {
        let b = self.batch;
        let forwards: f64 = self.layers.iter().map(|l| 2.0 * l.forward_flops(b)).sum();
        let backward: f64 = self.layers.iter().enumerate().map(|(i, l)| l.backward_flops(b, i > 0)).sum();
        forwards + backward
    }

    /// The work a step cannot avoid. FLOPs: [`Self::matrix_flops`] and
    /// Adam's update of every parameter. Bytes, for P parameters (weights
    /// and biases), as f32: the online parameters read once (forward and
    /// backward) and written once (Adam); their gradients written by the
    /// backward and read by Adam; Adam's two moments read and written;
    /// the target parameters read once; the states and next states read;
    /// and the online network's layer outputs, which the backward needs,
    /// written and read back once. Not counted: the target network's
    /// activations, the loss's vectors and the re-reads of weights, which
    /// a fused implementation could keep in registers or L1. The working
    /// set is the parameters, gradients, moments and target (5P) and the
    /// activations, whichever thread reads them.
    pub fn cost(&self) -> Cost {
        let (batch, inputs) = (self.batch, self.mlp.inputs());
        let parameters = self.online.numel() as f64;
        let outputs: usize = self.layers.iter().map(|l| l.outputs).sum();
        let activations = (batch * (2 * inputs + 2 * outputs)) as f64;
        let floats = 9.0 * parameters + activations;
        Cost {
            flops: self.matrix_flops() + ADAM_FLOPS_PER_PARAMETER * parameters,
            precision: Precision::F32,
            bytes: 4.0 * floats,
            working_set: 4.0 * (5.0 * parameters + activations),
            threads: self.threads,
        }
    }

    /// One training step; returns the loss.
    pub fn step(&mut self) -> StepResult<f32> {
        self.learn().map(|(loss, _)| loss)
    }

    /// One step; returns the time the optimiser took (for profiles).
    pub fn step_timing_optimizer(&mut self) -> StepResult<std::time::Duration> {
        self.learn().map(|(_, t)| t)
    }

    fn learn(&mut self) -> StepResult<(f32, std::time::Duration)> {
        let (batch, inputs, outputs) = (self.batch, self.mlp.inputs(), self.mlp.outputs());
        // As the DQN learner does with threads to spare: the target
        // network's forward beside the online one's, when it is large
        // enough to pay for waking the second worker.
        let threads = self.tape.threads_for(batch * self.online.numel());
        let loss = {
            let mut g = self.tape.graph(&mut self.online);
            let x = g.input(&[batch, inputs], &self.states)?;
            let (mlp, target, target_tape, next_states) =
                (&self.mlp, &self.target, &mut self.target_tape, &self.next_states);
            let (next_max, next_argmax) = (&mut self.next_max, &mut self.next_argmax);
            let bootstrap = || -> StepResult<()> {
                let mut t = target_tape.inference(target);
                let x = t.input(&[batch, inputs], next_states)?;
                let q_next = mlp.forward(&mut t, x)?;
                row_max_argmax(t.value(q_next), outputs, next_max, next_argmax);
                Ok(())
            };
            let (values, q) = beside(threads, bootstrap, || mlp.forward(&mut g, x));
            values?;
            let q = q?;
            for i in 0..batch {
                self.targets[i] = self.rewards[i] + 0.99 * (1.0 - self.dones[i]) * self.next_max[i];
            }
            let q_taken = g.gather_cols(q, &self.actions)?;
            let loss = g.huber(q_taken, &self.targets, 1.0, None)?;
            g.backward(loss)?;
            g.scalar(loss)
        };
        let start = std::time::Instant::now();
        // Leaves the gradients at zero for the next step's backward pass.
        self.adam.step_and_zero_grads(&mut self.online)?;
        Ok((loss, start.elapsed()))
    }

    /// The online and the target network's tapes.
    pub fn tapes_mut(&mut self) -> (&mut Tape, &mut Tape) {
        (&mut self.tape, &mut self.target_tape)
    }
}

impl Workload for DqnStep {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn work(&self) -> Work {
        Work::Flops(self.matrix_flops())
    }
    fn run(&mut self) {
        std::hint::black_box(self.step().expect("the benchmark step is valid"));
    }
    fn roofline(&self) -> Roofline {
        Roofline::Floor(self.cost())
    }
}

/// `dqn_step/cube`: MLP 144-128-64-6 at batch 64.
pub fn cube() -> DqnStep {
    DqnStep::new("dqn_step/cube", &[144, 128, 64, 6], 64)
}

/// `dqn_step/2048`: MLP 16-64-64-4 at batch 32.
pub fn game2048() -> DqnStep {
    DqnStep::new("dqn_step/2048", &[16, 64, 64, 4], 32)
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(cube()));
    list.push(Box::new(game2048()));
    list.push(Box::new(cube().with_threads(2)));
    list.push(Box::new(game2048().with_threads(2)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_counts_two_forwards_and_a_backward_from_its_layers() {
        // 16-64-64-4 at batch 32: forwards 2 x 2 x 32 x 5376 MACs; the
        // backward 4 x 32 x 5376 less the first layer's input gradient
        // (2 x 32 x 16 x 64).
        let step = game2048();
        let macs = (16 * 64 + 64 * 64 + 64 * 4) as f64;
        let want = 2.0 * 2.0 * 32.0 * macs + 4.0 * 32.0 * macs - 2.0 * 32.0 * 1024.0;
        assert_eq!(step.matrix_flops(), want);
        let cost = step.cost();
        let parameters = (5376 + 64 + 64 + 4) as f64;
        assert_eq!(cost.flops, want + ADAM_FLOPS_PER_PARAMETER * parameters);
        assert_eq!(cost.bytes, 4.0 * (9.0 * parameters + (32 * (2 * 16 + 2 * (64 + 64 + 4))) as f64));
        assert_eq!((cost.threads, step.with_threads(2).cost().threads), (1, 2));
    }
}
