//! What a logic-CA training run is: the task variant, the CA, the data,
//! the optimiser, repairs, the population, with the presets of each
//! variant and JSON laid over them.

use crate::ca::{Boundary, LogicCaConfig};
use crate::rollout::Rollout;
use crate::{LogicError, Result};
use minnow_config::{Check, Found};
use minnow_optim::AdamWConfig;
use serde::{Deserialize, Serialize};

/// Which task of docs/LOGIC_CA.md a run trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The reference task: random 16x16 grids grow a checkerboard of 2x2
    /// squares in channel 0 in 20 synchronous steps.
    Checkerboard,
    /// Conway's Game of Life: one step on every 3x3 periodic board (a
    /// batch of 20 drawn from the 512 each training step).
    GameOfLife,
    /// The checkerboard with asynchronous updates: each cell fires with
    /// probability `fire_rate` per step, in the soft rollout and the hard
    /// check alike.
    Async,
}

/// Everything about a run. `Default` is the reference checkerboard task;
/// [`CheckerboardConfig::game_of_life`] and
/// [`CheckerboardConfig::asynchronous`] the other two of docs/LOGIC_CA.md.
/// Unknown fields in a config file are errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckerboardConfig {
    /// The task (default the checkerboard).
    pub variant: Variant,
    /// The CA's architecture (default [`LogicCaConfig`]'s with the
    /// pass-through logit at 8).
    pub ca: LogicCaConfig,
    /// CA steps per rollout (the loss is on the last state).
    pub ca_steps: usize,
    /// Random grids per training step.
    pub batch: usize,
    /// Training steps of the run (default 500).
    pub train_steps: usize,
    /// AdamW on the gate logits (default lr 0.1, betas (0.9, 0.99), eps
    /// 1e-8, weight decay 0.01).
    #[serde(with = "AdamWConfigDef")]
    pub optimizer: AdamWConfig,
    /// Gradients are clamped element-wise to [-clip, clip].
    pub clip: f32,
    /// Scale of the Gumbel noise added to every gate's logits once per
    /// training step (one draw per gate and op, shared by every cell and
    /// grid of the step); 0 trains the plain softmax of the reference.
    /// Meant to make the soft circuit pay for undecided gates, which the
    /// hard circuit cannot reproduce; over 320 unrolled gate layers it
    /// drowns the signal instead (docs/notebook/logic-ca.md), so it is off.
    pub logit_noise: f32,
    /// Share of the hard circuit in the forward pass at the end of the
    /// run, ramped in from 0 linearly over the training steps: each gate
    /// runs `(1 - m) * soft + m * argmax op`, while the logit gradients go
    /// through the soft probabilities (straight through). 0 is the
    /// reference (all soft); at 1 the run ends training the hard
    /// circuit's own loss.
    pub hard_mix: f32,
    /// Members trained side by side, each with its own wiring, initial
    /// state of the data and noise (member 0 is `seed` itself): the run
    /// keeps the best circuit any of them finds ([`Population`](crate::Population)).
    pub population: usize,
    /// The run stops once its kept circuit scores at least this on the
    /// held-out check ([`selection_score`](crate::selection_score)); above 1 it never stops early.
    pub stop_score: f64,
    /// Every member whose circuit has not ended the run after this many
    /// training steps starts afresh with the next member seed
    /// ([`Population`](crate::Population)); 0 never restarts. A member
    /// stuck on a plateau, or on a circuit that fails the held-out check,
    /// rarely leaves it, while a fresh one often finds a clean circuit
    /// within 200 steps.
    pub restart_after: usize,
    /// Probability that a cell updates in a step (the `Async` variant).
    pub fire_rate: f32,
    /// The discrete repair of the hard circuit during training
    /// ([`Repair`](crate::repair::Repair)).
    pub repair: RepairConfig,
    /// Seeds the wiring and, through [`DATA_STREAM`](crate::DATA_STREAM), the grids.
    pub seed: u64,
    /// Worker threads; the batch is split between them in fixed chunks.
    pub threads: usize,
    /// Cells per tile (a multiple of 16).
    pub lanes: usize,
    /// How the backward pass gets each step's activations (default
    /// recompute: less memory, one extra forward pass).
    pub rollout: Rollout,
    /// Training steps between checkpoints (a run also saves at its end).
    pub checkpoint_every: usize,
}

/// When and how hard a member's circuit is repaired ([`Repair`](crate::repair::Repair)): after
/// every `every`-th training step whose batch the hard circuit got at
/// least `from` right, a search of up to `evaluations` candidate circuits
/// scored on `grids` fixed random grids; once the circuit gets those
/// right, up to `damaged_evaluations` more scored on `damaged_grids`
/// random grids run as the damage check runs them (64x64, 80 steps, the
/// centre 20x20 zeroed for the first 40), the checks the keeper applies.
/// The repaired ops are written back into the logits, so training
/// continues from them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepairConfig {
    /// Training steps between repairs; 0 never repairs.
    pub every: usize,
    /// Hard accuracy of the step's batch from which a repair is tried.
    pub from: f32,
    /// Random grids of the repair set (the Game of Life uses its 512
    /// boards instead).
    pub grids: usize,
    /// Candidate circuits scored per repair, at most.
    pub evaluations: usize,
    /// Random grids of the damage check's size and damage, searched once
    /// the circuit gets every cell of `grids` right (checkerboard only; 0
    /// never).
    pub damaged_grids: usize,
    /// Candidate circuits scored on the damaged grids per repair, at most.
    pub damaged_evaluations: usize,
}

impl Default for RepairConfig {
    fn default() -> Self {
        Self { every: 20, from: 0.7, grids: 8, evaluations: 4000, damaged_grids: 2, damaged_evaluations: 2000 }
    }
}

/// [`AdamWConfig`]'s fields for serde (the optimiser crate has no serde).
#[derive(Serialize, Deserialize)]
#[serde(remote = "AdamWConfig", deny_unknown_fields)]
struct AdamWConfigDef {
    lr: f32,
    betas: (f32, f32),
    eps: f32,
    weight_decay: f32,
}

impl Default for CheckerboardConfig {
    fn default() -> Self {
        Self {
            variant: Variant::Checkerboard,
            // Pass-through at 8 instead of the reference's 10: the first
            // gates leave pass-through after fewer steps, so fewer seeds
            // spend half the run on the plateau (docs/notebook/logic-ca.md).
            ca: LogicCaConfig { pass_logit: DEFAULT_PASS_LOGIT, ..LogicCaConfig::default() },
            ca_steps: 20,
            batch: 2,
            train_steps: 500,
            // lr 0.1, twice the reference's: the pass-through margin of 10
            // gives way after about half as many steps (docs/notebook/logic-ca.md).
            optimizer: AdamWConfig { lr: DEFAULT_LR, betas: (0.9, 0.99), eps: 1e-8, weight_decay: 0.01 },
            clip: 100.0,
            logit_noise: DEFAULT_LOGIT_NOISE,
            hard_mix: 0.0,
            population: DEFAULT_POPULATION,
            stop_score: DEFAULT_STOP_SCORE,
            restart_after: DEFAULT_RESTART_AFTER,
            fire_rate: 0.6,
            repair: RepairConfig::default(),
            seed: DEFAULT_SEED,
            threads: 2,
            lanes: DEFAULT_LANES,
            rollout: Rollout::Recompute,
            checkpoint_every: 100,
        }
    }
}

/// The default seed of every variant, not chosen for its result: whether
/// a run reaches 100% depends on the seed (docs/RESULTS.md has the
/// distribution).
pub const DEFAULT_SEED: u64 = 1;

/// Gumbel noise on the logits: see [`CheckerboardConfig::logit_noise`].
pub const DEFAULT_LOGIT_NOISE: f32 = 0.0;

/// The checkerboard's learning rate: twice the reference's.
pub const DEFAULT_LR: f32 = 0.1;

/// The checkerboard's initial pass-through logit: below the reference's
/// 10, which keeps every gate a wire for the first 100-200 steps.
pub const DEFAULT_PASS_LOGIT: f32 = 8.0;

/// The reference notebook's learning rate (the other variants keep it).
pub const REFERENCE_LR: f32 = 0.05;

/// Members of a checkerboard run: see [`CheckerboardConfig::population`].
/// With 2, four of seeds 1-32 had no member reach 100% within 500 steps
/// (docs/notebook/logic-ca.md); a third member is a third chance.
pub const DEFAULT_POPULATION: usize = 3;

/// Members of a Game of Life or asynchronous run: their seed tables were
/// measured with 2.
pub const VARIANT_POPULATION: usize = 2;

/// A kept circuit at least this good on the held-out check ends the run.
pub const DEFAULT_STOP_SCORE: f64 = 0.99;

/// Steps before the members of a checkerboard run start afresh: see
/// [`CheckerboardConfig::restart_after`]. Without restarts, every run of
/// seeds 1-32 that ended with a circuit that holds had ended by step 280
/// but one (docs/notebook/logic-ca.md); 300 leaves those runs untouched and a
/// fresh member 200 of the 500 steps.
pub const DEFAULT_RESTART_AFTER: usize = 300;

/// Cells per tile: 64 keeps one tile's activations and gradients (4680
/// rows x 64 floats each, 1.2 MB apiece) mostly in L2. CPU time per
/// training step (one thread, both grids): 40 ms at 32 and 64 lanes, 47 ms
/// at 128; 16 lanes is much slower (per-gate overhead).
pub const DEFAULT_LANES: usize = 64;

impl CheckerboardConfig {
    /// Game of Life as docs/LOGIC_CA.md gives it: 3x3 periodic boards, 1
    /// channel, 16 kernels of 8, 4, 2, 1 gates, update 17 -> 128 x 17 ->
    /// 64, 32, 16, 8, 4, 2, 1, one step, batch 20, 3000 training steps.
    pub fn game_of_life() -> Self {
        let mut update = vec![128; 17];
        update.extend([64, 32, 16, 8, 4, 2, 1]);
        Self {
            variant: Variant::GameOfLife,
            ca: LogicCaConfig {
                height: 3,
                width: 3,
                channels: 1,
                kernels: 16,
                perception: vec![8, 4, 2, 1],
                update,
                boundary: Boundary::Periodic,
                pass_logit: 10.0,
            },
            ca_steps: 1,
            batch: 20,
            train_steps: 3000,
            // 9 cells per grid: one 16-lane tile each.
            lanes: 16,
            // Only the exact rule will do (all 512 boards).
            stop_score: 1.0,
            // The reference's lr: its seeds table was measured with it.
            optimizer: AdamWConfig { lr: REFERENCE_LR, ..Self::default().optimizer },
            // Meets its bar without repairs; repairs on its 512 boards
            // were not measured.
            repair: RepairConfig { every: 0, damaged_grids: 0, ..RepairConfig::default() },
            population: VARIANT_POPULATION,
            // Measured without restarts, like the population.
            restart_after: 0,
            checkpoint_every: 500,
            ..Self::default()
        }
    }

    /// The asynchronous checkerboard of docs/LOGIC_CA.md: 14x14, update 264 ->
    /// 256 x 14 -> 128, 64, 32, 16, 8, 8, 50 steps with fire rate 0.6,
    /// batch 1, 800 training steps.
    pub fn asynchronous() -> Self {
        let mut update = vec![256; 14];
        update.extend([128, 64, 32, 16, 8, 8]);
        Self {
            variant: Variant::Async,
            ca: LogicCaConfig { height: 14, width: 14, update, ..LogicCaConfig::default() },
            ca_steps: 50,
            batch: 1,
            train_steps: 800,
            // The reference's lr and no repairs: its seeds table was
            // measured so; repairs of the asynchronous rule were not.
            optimizer: AdamWConfig { lr: REFERENCE_LR, ..Self::default().optimizer },
            repair: RepairConfig { every: 0, damaged_grids: 0, ..RepairConfig::default() },
            population: VARIANT_POPULATION,
            // Measured without restarts, like the population.
            restart_after: 0,
            ..Self::default()
        }
    }

    /// The defaults of a variant.
    pub fn for_variant(variant: Variant) -> Self {
        match variant {
            Variant::Checkerboard => Self::default(),
            Variant::GameOfLife => Self::game_of_life(),
            Variant::Async => Self::asynchronous(),
        }
    }

    /// A config from JSON: the keys given (nested objects key by key) laid
    /// over the defaults of the variant named by `variant` (default
    /// `checkerboard`), then validated. Unknown keys are errors.
    pub fn from_json(text: &str) -> Result<Self> {
        let fail = LogicError::ConfigFile;
        let config = Self::layered(&serde_json::from_str(text).map_err(fail)?).map_err(fail)?;
        config.validate()?;
        Ok(config)
    }

    /// The defaults of the variant `overrides` names (default
    /// `checkerboard`) with `overrides` laid over them key by key
    /// ([`minnow_train::config::layered`]: unknown keys refused by path);
    /// not validated.
    pub fn layered(overrides: &serde_json::Value) -> std::result::Result<Self, serde_json::Error> {
        let variant = match overrides.get("variant") {
            None => Variant::Checkerboard,
            Some(v) => serde_json::from_value(v.clone())
                .map_err(|e| <serde_json::Error as serde::de::Error>::custom(format!("variant: {e}")))?,
        };
        minnow_train::config::layered(Self::for_variant(variant), overrides)
    }

    /// The config as pretty JSON (what [`from_json`](Self::from_json) reads).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a config always serialises")
    }

    /// An error naming the first value out of range.
    pub fn validate(&self) -> Result<()> {
        self.ca.validate()?;
        let check = Check("CheckerboardConfig");
        let count = |field, expected, found: usize| Err(check.count(field, expected, found as u64).into());
        let value = |field, expected, found| Err(check.value(field, expected, found).into());
        if self.ca_steps == 0 {
            return count("ca_steps", "at least 1", 0);
        }
        if self.batch == 0 {
            return count("batch", "at least 1", 0);
        }
        if self.train_steps == 0 {
            return count("train_steps", "at least 1", 0);
        }
        if self.threads == 0 {
            return count("threads", "at least 1", 0);
        }
        if self.lanes == 0 || !self.lanes.is_multiple_of(crate::layer::BLOCK) {
            return count("lanes", "a positive multiple of 16", self.lanes);
        }
        if self.checkpoint_every == 0 {
            return count("checkpoint_every", "at least 1", 0);
        }
        if self.clip.is_nan() || self.clip < 0.0 {
            return value("clip", "at least 0", self.clip);
        }
        if !(self.logit_noise.is_finite() && self.logit_noise >= 0.0) {
            return value("logit_noise", "a finite number, at least 0", self.logit_noise);
        }
        if !(0.0..=1.0).contains(&self.hard_mix) {
            return value("hard_mix", "in [0, 1]", self.hard_mix);
        }
        if self.population == 0 {
            return count("population", "at least 1 member", 0);
        }
        if self.stop_score.is_nan() {
            return value("stop_score", "a number (above 1: never stop early)", self.stop_score as f32);
        }
        if !(self.fire_rate > 0.0 && self.fire_rate <= 1.0) {
            return value("fire_rate", "in (0, 1]", self.fire_rate);
        }
        if self.repair.every > 0 {
            if !(0.0..=1.0).contains(&self.repair.from) {
                return value("repair.from", "in [0, 1]", self.repair.from);
            }
            if self.repair.grids == 0 {
                return count("repair.grids", "at least 1 (or repair.every 0)", 0);
            }
            if self.repair.evaluations == 0 {
                return count("repair.evaluations", "at least 1 (or repair.every 0)", 0);
            }
            if self.repair.damaged_grids > 0 {
                if self.variant != Variant::Checkerboard {
                    return count(
                        "repair.damaged_grids",
                        "0 unless the variant is checkerboard (the damage check is the checkerboard's)",
                        self.repair.damaged_grids,
                    );
                }
                if self.repair.damaged_evaluations == 0 {
                    return count("repair.damaged_evaluations", "at least 1 (or repair.damaged_grids 0)", 0);
                }
            }
        }
        if self.variant == Variant::GameOfLife {
            if (self.ca.height, self.ca.width) != (3, 3) {
                return count("ca.height", "3 (Game of Life trains on 3x3 boards)", self.ca.height.max(self.ca.width));
            }
            if self.ca.boundary != Boundary::Periodic {
                let expected = "periodic for Game of Life (its boards wrap around)";
                return Err(check.error("ca.boundary", expected, Found::Text("zero".into())).into());
            }
        }
        self.optimizer.validate()?;
        Ok(())
    }
}
