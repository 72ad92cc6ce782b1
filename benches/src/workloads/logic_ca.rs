//! `logic_ca/step` and `logic_ca/hard` (docs/LOGIC_CA.md).
//!
//! - `logic_ca/step`: one training step of the checkerboard logic CA
//!   exactly as specified (16x16, 8 channels, 3040 gates, 20 unrolled
//!   steps, batch 2, backward through time, hard accuracy on the batch,
//!   clipping, AdamW) on 2 worker threads. Throughput counts the forward
//!   soft gate evaluations: 4608 per cell and CA step x 256 cells x 20
//!   steps x 2 grids = 47.2 M.
//! - `logic_ca/hard`: one synchronous step of the trained, pruned hard
//!   circuit (shipped with minnow-logic) on a 512x512 grid, bit-parallel
//!   on one thread; throughput in cell updates per second.
//!
//! Floors: `logic_ca/step` counts the soft gates' arithmetic (the
//! multilinear form of `minnow_logic::gates`: 3 FMAs a gate forward; the
//! backward's input gradients 2 FMAs each and its four sums 7 FLOPs) in
//! f32 on its threads; its bytes (the grids' states, a tile's rows in
//! cache) are not counted. `logic_ca/hard` has only a byte floor: its
//! limit is the rate of 64-bit logic operations, which no probe measures.

use crate::roofline::{Cost, Precision, Roofline};
use crate::{Work, Workload};
use minnow_logic::{BitGrid, CheckerboardConfig, HardProgram, HardScratch, PatternTrainer, Rollout};
use rand::{Rng, SeedableRng};

/// `logic_ca/step`: one training step.
#[allow(missing_debug_implementations)]
pub struct LogicCaStep {
    trainer: PatternTrainer,
    gate_evals: f64,
    cost: Cost,
}

/// FLOPs of one soft gate forward: `C0 + C1 a + C2 b + C3 ab` as 3 FMAs.
pub const GATE_FORWARD_FLOPS: f64 = 6.0;

/// FLOPs of one soft gate backward: `g (C1 + C3 b)` into `dx[a]` and
/// `g (C2 + C3 a)` into `dx[b]` (2 FMAs each), and Σg, Σga, Σgb, Σgab (an
/// add, 2 FMAs, a multiply and an FMA).
pub const GATE_BACKWARD_FLOPS: f64 = 4.0 + 4.0 + 1.0 + 2.0 + 2.0 + 3.0;

impl LogicCaStep {
    /// The workload, from the default config.
    pub fn new() -> Self {
        let config = CheckerboardConfig::default();
        let cells = config.ca.cells();
        let trainer = PatternTrainer::new(&config).expect("the reference config is valid");
        let per_cell: usize = trainer.model().circuit().stages.iter().map(|s| s.gates.len()).sum();
        let gate_evals = (per_cell * cells * config.ca_steps * config.batch) as f64;
        // Recomputing the rollout runs every forward twice.
        let forwards = match config.rollout {
            Rollout::Store => 1.0,
            Rollout::Recompute => 2.0,
        };
        let flops = gate_evals * (forwards * GATE_FORWARD_FLOPS + GATE_BACKWARD_FLOPS);
        let cost = Cost { flops, precision: Precision::F32, bytes: 0.0, working_set: 0.0, threads: config.threads };
        Self { gate_evals, trainer, cost }
    }

    /// One training step; returns the soft loss.
    pub fn step(&mut self) -> f32 {
        self.trainer.step().expect("a training step of the reference task").loss
    }
}

impl Default for LogicCaStep {
    fn default() -> Self {
        Self::new()
    }
}

impl Workload for LogicCaStep {
    fn name(&self) -> String {
        "logic_ca/step".to_string()
    }
    fn work(&self) -> Work {
        Work::Items(self.gate_evals, "gate evals/s")
    }
    fn run(&mut self) {
        std::hint::black_box(self.step());
    }
    fn roofline(&self) -> Roofline {
        Roofline::Floor(self.cost)
    }
}

/// `logic_ca/hard`: bit-parallel steps of a hard circuit.
#[allow(missing_debug_implementations)]
pub struct LogicCaHard {
    program: HardProgram,
    grid: BitGrid,
    next: BitGrid,
    scratch: HardScratch,
}

/// Side of the `logic_ca/hard` grid.
pub const HARD_SIDE: usize = 512;

impl LogicCaHard {
    /// The workload: the stored trained checkerboard circuit on a random 512x512 grid.
    pub fn new() -> Self {
        let program = minnow_logic::trained::checkerboard();
        let mut grid = BitGrid::new(HARD_SIDE, HARD_SIDE, program.channels());
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        grid.fill_random(|| rng.random());
        let next = grid.clone();
        let mut this = Self { program, grid, next, scratch: HardScratch::default() };
        this.step(); // sizes the scratch
        this
    }

    /// One CA step of the whole grid.
    pub fn step(&mut self) {
        self.program.step(&self.grid, &mut self.next, &mut self.scratch);
        std::mem::swap(&mut self.grid, &mut self.next);
    }

    /// Gates per cell update of the circuit being timed.
    pub fn gates(&self) -> usize {
        self.program.gate_count()
    }
}

impl Default for LogicCaHard {
    fn default() -> Self {
        Self::new()
    }
}

impl Workload for LogicCaHard {
    fn name(&self) -> String {
        "logic_ca/hard".to_string()
    }
    fn work(&self) -> Work {
        Work::Items((HARD_SIDE * HARD_SIDE) as f64, "cells/s")
    }
    fn run(&mut self) {
        self.step();
        std::hint::black_box(&self.grid);
    }
    fn roofline(&self) -> Roofline {
        // The grid read and the next one written, a bit per cell and
        // channel each; both grids are the working set.
        let grid = (HARD_SIDE * HARD_SIDE * self.program.channels()) as f64 / 8.0;
        Roofline::Floor(Cost {
            flops: 0.0,
            precision: Precision::F32,
            bytes: 2.0 * grid,
            working_set: 2.0 * grid,
            threads: 1,
        })
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(LogicCaStep::new()));
    list.push(Box::new(LogicCaHard::new()));
}
