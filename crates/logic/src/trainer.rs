//! One member's training: the soft CA, AdamW on the squared error of
//! channel 0 against its target, gradients clipped, the hard circuit
//! checked on every batch, repairs on their cadence.

use crate::ca::LogicCa;
use crate::config::{CheckerboardConfig, Variant};
use crate::gates::OPS;
use crate::hard::{HardProgram, Prune};
use crate::pattern::checkerboard;
use crate::repair::{Repair, RepairOutcome, write_op};
use crate::repair_sets::{damaged_repair_set, repair_set};
use crate::rollout::Worker;
use crate::team::{Fixed, StepData, Team};
use crate::{LogicError, Result, life};
use minnow_optim::{AdamW, Optimizer, clip_grad_value};
use rand::{Rng, SeedableRng};
use std::sync::{Arc, RwLock};

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

/// Trains a logic CA to grow a target pattern in channel 0: the
/// checkerboard of the config's variant by default (or the Game of Life's
/// next boards), any drawing after [`set_target`](Self::set_target). It
/// holds the training state: model, optimiser, worker threads and every
/// buffer a step needs, so a step after the first allocates nothing.
#[derive(Debug)]
pub struct PatternTrainer {
    pub(crate) config: CheckerboardConfig,
    pub(crate) ca: LogicCa,
    pub(crate) optimizer: AdamW,
    fixed: Arc<Fixed>,
    pub(crate) data: Arc<RwLock<StepData>>,
    team: Team,
    main: Worker,
    probs: Vec<f32>,
    sums: Vec<[f32; 4]>,
    ops: Vec<u8>,
    pub(crate) rng: rand_pcg::Pcg64,
    pub(crate) step: usize,
    repair: Option<Repair>,
    /// Hard accuracy of the last step's batch.
    last_accuracy: f32,
}

impl PatternTrainer {
    /// A trainer at step 0: the CA built from `config.seed`, its worker
    /// threads started. The config is validated first.
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
            targets: match config.variant {
                // Filled with each step's boards.
                Variant::GameOfLife => vec![0.0; config.batch * cells],
                Variant::Checkerboard | Variant::Async => {
                    checkerboard(config.ca.height, config.ca.width).repeat(config.batch)
                }
            },
            fire: match config.variant {
                Variant::Async => vec![0.0; config.batch * config.ca_steps * cells],
                Variant::Checkerboard | Variant::GameOfLife => Vec::new(),
            },
        }));
        let team = Team::new(&fixed, &data, workers - 1).map_err(LogicError::WorkerThreads)?;
        let repair = (config.repair.every > 0).then(|| {
            let repair = Repair::new(repair_set(config), circuit, config.ca.boundary);
            match config.repair.damaged_grids {
                0 => repair,
                _ => repair.then(damaged_repair_set(config), circuit, config.repair.damaged_evaluations),
            }
        });
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
            repair,
            last_accuracy: 0.0,
        })
    }

    /// Repairs the member's argmax circuit ([`Repair`]) if one is due
    /// after the step just taken (see [`RepairConfig`](crate::RepairConfig)) and writes the
    /// repaired ops into the logits. Allocates nothing.
    pub fn repair_if_due(&mut self) -> Option<RepairOutcome> {
        let every = self.config.repair.every;
        if every == 0
            || self.step == 0
            || !self.step.is_multiple_of(every)
            || self.last_accuracy < self.config.repair.from
        {
            return None;
        }
        let repair = self.repair.as_mut()?;
        let outcome = repair.run(&self.ca, self.config.repair.evaluations);
        for (p, &op) in repair.ops().iter().enumerate() {
            write_op(&mut self.ca, p, op);
        }
        Some(outcome)
    }

    /// The ops of the last repair's result (empty without repairs).
    pub fn repaired_ops(&self) -> &[u8] {
        self.repair.as_ref().map_or(&[], Repair::ops)
    }

    /// The config it trains.
    pub fn config(&self) -> &CheckerboardConfig {
        &self.config
    }

    /// The CA as trained so far.
    pub fn model(&self) -> &LogicCa {
        &self.ca
    }

    /// The CA as trained so far, ending the trainer (and its threads).
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

    /// The hard circuit behind the last step's report (its
    /// [`last_ops`](Self::last_ops), taken before that step's update) on
    /// the CA's boundary: the circuit to keep when a report came out
    /// right. The circuit of the logits as they are now, after the
    /// update, is `model().hard_program(prune)`.
    pub fn hard_program(&self, prune: Prune) -> HardProgram {
        HardProgram::new(self.ca.circuit(), &self.ops, self.config.ca.boundary, prune)
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
            match self.config.variant {
                Variant::Checkerboard | Variant::Async => {
                    for v in data.grids.iter_mut() {
                        *v = self.rng.random::<bool>() as u8 as f32;
                    }
                }
                Variant::GameOfLife => {
                    // Channel 0 holds a board drawn from all 512, the
                    // others start at 0; the target is the next board.
                    data.grids.fill(0.0);
                    let per_grid = self.fixed.per_grid;
                    for (grid, target) in data.grids.chunks_exact_mut(per_grid).zip(data.targets.chunks_exact_mut(9)) {
                        let board = self.rng.random_range(0..life::BOARDS);
                        grid[..9].copy_from_slice(&life::board(board));
                        target.copy_from_slice(&life::next_board(board));
                    }
                }
            }
            for v in data.fire.iter_mut() {
                *v = (self.rng.random::<f32>() < self.config.fire_rate) as u8 as f32;
            }
            let noise = self.config.logit_noise;
            if noise > 0.0 {
                let rng = &mut self.rng;
                self.ca.fold_perturbed(&mut self.probs, &mut data.coeffs, |logits| {
                    for l in logits.iter_mut() {
                        // Gumbel(0, 1) from a uniform draw in (0, 1).
                        let u = rng.random::<f32>().max(f32::MIN_POSITIVE);
                        *l -= noise * (-u.ln()).ln();
                    }
                });
            } else {
                self.ca.fold(&mut self.probs, &mut data.coeffs);
            }
            self.ca.hard_ops(&mut self.ops);
            // Ramped in over the run: soft while the circuit looks for a
            // rule, then more and more the hard circuit, to close the gap.
            let mix = self.config.hard_mix * (self.step as f32 / self.config.train_steps as f32).min(1.0);
            if mix > 0.0 {
                // The forward pass runs (partly) the hard circuit; the
                // logit gradients still go through the soft probabilities
                // (a straight-through estimate).
                for (c, &op) in data.coeffs.iter_mut().zip(&self.ops) {
                    let hard = crate::gates::COEFFS[op as usize];
                    for j in 0..4 {
                        c[j] += mix * (hard[j] - c[j]);
                    }
                }
            }
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
        clip_grad_value(params, self.config.clip)?;
        self.optimizer.step(params)?;
        let total = self.config.batch * self.config.ca.cells();
        let report = StepReport {
            step: self.step,
            loss,
            hard_accuracy: correct as f32 / total as f32,
            hard_errors: total - correct,
        };
        self.last_accuracy = report.hard_accuracy;
        self.step += 1;
        Ok(report)
    }
}
