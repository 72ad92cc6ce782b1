//! Training a logic CA on the checkerboard task of LOGIC_CA.md: random
//! grids, N synchronous steps, squared error of channel 0 against a
//! checkerboard of 2x2 squares, gradients clipped, AdamW.

use crate::ca::{LogicCa, LogicCaConfig};
use crate::gates::OPS;
use crate::hard::{BitGrid, HardProgram, HardScratch, Prune};
use crate::rollout::{Rollout, Worker};
use crate::team::{Fixed, StepData, Team};
use crate::{LogicError, Result};
use minnow_optim::{AdamW, AdamWConfig, Optimizer, clip_grad_value};
use rand::{Rng, SeedableRng};
use std::ops::ControlFlow;
use std::sync::{Arc, RwLock};

/// Everything about a checkerboard run. `Default` is the reference task.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckerboardConfig {
    pub ca: LogicCaConfig,
    /// Synchronous CA steps per rollout (the loss is on the last state).
    pub ca_steps: usize,
    /// Random grids per training step.
    pub batch: usize,
    pub train_steps: usize,
    pub optimizer: AdamWConfig,
    /// Gradients are clamped element-wise to [-clip, clip].
    pub clip: f32,
    /// Seeds the wiring and, through [`DATA_STREAM`], the grids.
    pub seed: u64,
    /// Worker threads; the batch is split between them in fixed chunks.
    pub threads: usize,
    /// Cells per tile (a multiple of 16).
    pub lanes: usize,
    pub rollout: Rollout,
}

impl Default for CheckerboardConfig {
    fn default() -> Self {
        Self {
            ca: LogicCaConfig::default(),
            ca_steps: 20,
            batch: 2,
            train_steps: 500,
            optimizer: AdamWConfig { lr: 0.05, betas: (0.9, 0.99), eps: 1e-8, weight_decay: 0.01 },
            clip: 100.0,
            seed: 23,
            threads: 2,
            lanes: DEFAULT_LANES,
            rollout: Rollout::Recompute,
        }
    }
}

/// Cells per tile: 64 keeps one tile's activations and gradients (4680
/// rows x 64 floats each, 1.2 MB apiece) mostly in L2. CPU time per
/// training step (one thread, both grids): 40 ms at 32 and 64 lanes, 47 ms
/// at 128; 16 lanes is much slower (per-gate overhead).
pub const DEFAULT_LANES: usize = 64;

impl CheckerboardConfig {
    /// An error naming the first value out of range.
    pub fn validate(&self) -> Result<()> {
        self.ca.validate()?;
        let count = |field, expected, found| {
            Err(LogicError::InvalidCount { config: "CheckerboardConfig", field, expected, found })
        };
        if self.ca_steps == 0 {
            return count("ca_steps", "at least 1", 0);
        }
        if self.batch == 0 {
            return count("batch", "at least 1", 0);
        }
        if self.threads == 0 {
            return count("threads", "at least 1", 0);
        }
        if self.lanes == 0 || !self.lanes.is_multiple_of(crate::layer::BLOCK) {
            return count("lanes", "a positive multiple of 16", self.lanes);
        }
        if self.clip.is_nan() || self.clip < 0.0 {
            return Err(LogicError::InvalidValue {
                config: "CheckerboardConfig",
                field: "clip",
                expected: "at least 0",
                found: self.clip,
            });
        }
        self.optimizer.validate()?;
        Ok(())
    }
}

/// Mixed into the seed for the grid generator, so it is independent of the
/// wiring generator.
pub const DATA_STREAM: u64 = 0x00da_7a5e_ed0f_9e37;

/// What one training step measured (before its update).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    /// 0-based.
    pub step: usize,
    /// Σ over grids and cells of (s_N channel 0 - target)², soft circuit.
    pub loss: f32,
    /// Fraction of channel-0 cells the hard circuit gets right.
    pub hard_accuracy: f32,
    /// Channel-0 cells the hard circuit gets wrong (its squared error).
    pub hard_errors: usize,
}

/// Channel-0 accuracy of a hard program against the checkerboard after
/// `steps` synchronous steps from random grids (`trials` of them, seeded),
/// bit-parallel: the robustness check of a trained rule on other sizes.
pub fn hard_checkerboard_accuracy(
    program: &HardProgram,
    height: usize,
    width: usize,
    steps: usize,
    trials: usize,
    seed: u64,
) -> f64 {
    let target = checkerboard(height, width);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut grid = BitGrid::new(height, width, program.channels());
    let mut next = grid.clone();
    let mut scratch = HardScratch::default();
    let mut correct = 0;
    for _ in 0..trials {
        grid.fill_random(|| rng.random());
        for _ in 0..steps {
            program.step(&grid, &mut next, &mut scratch);
            std::mem::swap(&mut grid, &mut next);
        }
        correct += grid.count_equal(0, &target);
    }
    correct as f64 / (trials * height * width) as f64
}

/// The target of cell (row, col): `((col / 2) + (row / 2)) % 2`.
pub fn checkerboard(height: usize, width: usize) -> Vec<f32> {
    (0..height * width).map(|i| (((i % width) / 2 + (i / width) / 2) % 2) as f32).collect()
}

/// The training state: model, optimiser, worker threads and every buffer a
/// step needs, so a step after the first allocates nothing.
#[derive(Debug)]
pub struct CheckerboardTrainer {
    config: CheckerboardConfig,
    ca: LogicCa,
    optimizer: AdamW,
    fixed: Arc<Fixed>,
    data: Arc<RwLock<StepData>>,
    team: Team,
    main: Worker,
    probs: Vec<f32>,
    sums: Vec<[f32; 4]>,
    ops: Vec<u8>,
    rng: rand_pcg::Pcg64,
    step: usize,
}

impl CheckerboardTrainer {
    pub fn new(config: &CheckerboardConfig) -> Result<Self> {
        config.validate()?;
        let ca = LogicCa::new(&config.ca, config.seed)?;
        let optimizer = config.optimizer.build(ca.params())?;
        let workers = config.threads.min(config.batch);
        let circuit = ca.circuit();
        let cells = config.ca.cells();
        let fixed = Arc::new(Fixed {
            circuit: circuit.clone(),
            neighbours: ca.neighbours().to_vec(),
            target: checkerboard(config.ca.height, config.ca.width),
            steps: config.ca_steps,
            lanes: config.lanes,
            rollout: config.rollout,
            height: config.ca.height,
            width: config.ca.width,
            per_grid: config.ca.channels * cells,
            batch: config.batch,
            workers,
        });
        let mut ops = vec![0; circuit.params];
        ca.hard_ops(&mut ops);
        let data = Arc::new(RwLock::new(StepData {
            coeffs: vec![[0.0; 4]; circuit.params],
            // Built once here so later rebuilds reuse its capacity.
            program: HardProgram::new(circuit, &ops, config.ca.boundary, Prune::None),
            grids: vec![0.0; config.batch * config.ca.channels * cells],
        }));
        let team = Team::new(&fixed, &data, workers - 1).map_err(|e| LogicError::ThreadPool(e.to_string()))?;
        Ok(Self {
            config: config.clone(),
            probs: vec![0.0; circuit.params * OPS],
            sums: vec![[0.0; 4]; circuit.params],
            ops,
            main: Worker::new(circuit, config.lanes),
            rng: rand_pcg::Pcg64::seed_from_u64(config.seed ^ DATA_STREAM),
            ca,
            optimizer,
            fixed,
            data,
            team,
            step: 0,
        })
    }

    pub fn config(&self) -> &CheckerboardConfig {
        &self.config
    }

    pub fn model(&self) -> &LogicCa {
        &self.ca
    }

    pub fn into_model(self) -> LogicCa {
        self.ca
    }

    /// Training steps taken.
    pub fn steps_done(&self) -> usize {
        self.step
    }

    /// The hard op of every parameter gate as the last step measured it
    /// (before that step's update): the circuit behind its accuracy.
    pub fn last_ops(&self) -> &[u8] {
        &self.ops
    }

    /// The model, to edit (say, to load logits); takes effect next step.
    pub fn model_mut(&mut self) -> &mut LogicCa {
        &mut self.ca
    }

    /// One training step on a fresh random batch: soft rollout, backward
    /// through time, hard-circuit accuracy on the same batch, clipping and
    /// AdamW. The report describes the parameters before the update.
    pub fn step(&mut self) -> Result<StepReport> {
        minnow_kernels::flush_denormals();
        {
            let mut data = self.data.write().unwrap_or_else(|e| e.into_inner());
            let data = &mut *data;
            for v in data.grids.iter_mut() {
                *v = self.rng.random::<bool>() as u8 as f32;
            }
            self.ca.fold(&mut self.probs, &mut data.coeffs);
            self.ca.hard_ops(&mut self.ops);
            data.program.rebuild(self.ca.circuit(), &self.ops, self.config.ca.boundary, Prune::Channel0);
        }
        let ticket = self.step as u64 + 1;
        self.team.start(ticket);
        {
            let data = self.data.read().unwrap_or_else(|e| e.into_inner());
            self.fixed.run(0, &mut self.main, &data);
        }
        self.team.wait(ticket);
        // Ordered merge: the same numbers whatever the thread timing.
        self.sums.copy_from_slice(&self.main.sums);
        let mut loss = self.main.loss;
        let mut correct = self.main.hard_correct;
        for worker in &self.team.workers {
            let worker = worker.lock().unwrap_or_else(|e| e.into_inner());
            for (s, ws) in self.sums.iter_mut().zip(&worker.sums) {
                for k in 0..4 {
                    s[k] += ws[k];
                }
            }
            loss += worker.loss;
            correct += worker.hard_correct;
        }
        let loss = loss as f32;
        if !loss.is_finite() {
            return Err(LogicError::NonFiniteLoss { step: self.step, loss });
        }
        self.ca.write_logit_grads(&self.probs, &self.sums);
        let params = self.ca.params_mut();
        clip_grad_value(params, self.config.clip);
        self.optimizer.step(params)?;
        let total = self.config.batch * self.config.ca.cells();
        let report = StepReport {
            step: self.step,
            loss,
            hard_accuracy: correct as f32 / total as f32,
            hard_errors: total - correct,
        };
        self.step += 1;
        Ok(report)
    }
}

/// The result of [`train_checkerboard`].
#[derive(Debug)]
pub struct Trained {
    pub model: LogicCa,
    pub history: Vec<StepReport>,
    /// The first step whose hard circuit got every channel-0 cell right.
    pub first_perfect: Option<usize>,
    /// The hard ops of that step's circuit.
    pub perfect_ops: Option<Vec<u8>>,
}

/// Trains for `config.train_steps` steps (or until `on_step` breaks),
/// telling `on_step` about each.
pub fn train_checkerboard(
    config: &CheckerboardConfig,
    mut on_step: impl FnMut(&StepReport) -> ControlFlow<()>,
) -> Result<Trained> {
    let mut trainer = CheckerboardTrainer::new(config)?;
    let mut history = Vec::with_capacity(config.train_steps);
    let mut first_perfect = None;
    let mut perfect_ops = None;
    for _ in 0..config.train_steps {
        let report = trainer.step()?;
        if report.hard_errors == 0 && first_perfect.is_none() {
            first_perfect = Some(report.step);
            perfect_ops = Some(trainer.last_ops().to_vec());
        }
        history.push(report);
        if on_step(&report).is_break() {
            break;
        }
    }
    Ok(Trained { model: trainer.into_model(), history, first_perfect, perfect_ops })
}
