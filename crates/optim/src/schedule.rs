//! Schedules as closed forms of the step count, so a resumed run needs
//! only its step to find its value: learning rates (PyTorch's schedulers),
//! and any other value that decays over training (an exploration rate, an
//! importance-sampling exponent).

use crate::Check;
use crate::{Optimizer, Result};

/// How the value moves after any warm-up, counting steps from its end.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Decay {
    /// The base value throughout.
    Constant,
    /// `StepLR`: lr * gamma^(floor(s / step_size)).
    Step {
        /// Steps between two decays.
        step_size: u64,
        /// The factor of each decay.
        gamma: f32,
    },
    /// `CosineAnnealingLR`'s closed form:
    /// eta_min + (lr - eta_min) * (1 + cos(pi * s / t_max)) / 2.
    /// As in PyTorch it keeps following the cosine past `t_max` (back up
    /// towards lr by 2 t_max); set `t_max` to the run's length to end at eta_min.
    Cosine {
        /// Steps of the half cosine.
        t_max: u64,
        /// The value at its end.
        eta_min: f32,
    },
    /// Cosine from the base value down to `eta_min` over `t_max` steps, then
    /// held at `eta_min` (where `Cosine` follows PyTorch back up):
    /// eta_min + (base - eta_min) * (1 + cos(pi * min(s, t_max) / t_max)) / 2,
    /// the span `base - eta_min` taken in f32.
    CosineHold {
        /// Steps of the half cosine.
        t_max: u64,
        /// The value at its end and after.
        eta_min: f32,
    },
    /// From the base value to `end` in a straight line over `steps` steps,
    /// then `end` (0 steps: `end` from the start). Rising or falling.
    Linear {
        /// Steps of the line.
        steps: u64,
        /// The value it ends at.
        end: f32,
    },
    /// `ExponentialLR` with a floor: max(min, base * gamma^s).
    Exponential {
        /// The factor of each step, in (0, 1].
        gamma: f32,
        /// The floor.
        min: f32,
    },
}

/// `LinearLR` from `start_factor * base` up to base over `steps` steps,
/// then the decay (`SequentialLR` with one milestone).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Warmup {
    /// Steps of the warm-up.
    pub steps: u64,
    /// The value at step 0, as a fraction of the base value.
    pub start_factor: f32,
}

/// A schedule's settings; [`build`](Self::build) validates them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleConfig {
    /// The base value (for a learning rate, PyTorch's initial lr; `"lr"`
    /// is accepted for it in JSON).
    #[serde(alias = "lr")]
    pub base: f32,
    /// A linear warm-up first, if any.
    #[serde(default)]
    pub warmup: Option<Warmup>,
    /// How the value moves after the warm-up.
    pub decay: Decay,
}

impl ScheduleConfig {
    /// The base value throughout.
    pub fn constant(base: f32) -> Self {
        Self { base, warmup: None, decay: Decay::Constant }
    }

    /// `StepLR`: base times gamma every step_size steps.
    pub fn step_decay(base: f32, step_size: u64, gamma: f32) -> Self {
        Self { base, warmup: None, decay: Decay::Step { step_size, gamma } }
    }

    /// `CosineAnnealingLR` from base down to eta_min over t_max steps.
    pub fn cosine(base: f32, t_max: u64, eta_min: f32) -> Self {
        Self { base, warmup: None, decay: Decay::Cosine { t_max, eta_min } }
    }

    /// From base to end in a straight line over `steps` steps, then end.
    pub fn linear(base: f32, steps: u64, end: f32) -> Self {
        Self { base, warmup: None, decay: Decay::Linear { steps, end } }
    }

    /// base * gamma^s, never below min.
    pub fn exponential(base: f32, gamma: f32, min: f32) -> Self {
        Self { base, warmup: None, decay: Decay::Exponential { gamma, min } }
    }

    /// The same schedule after a linear warm-up.
    pub fn with_warmup(self, steps: u64, start_factor: f32) -> Self {
        Self { warmup: Some(Warmup { steps, start_factor }), ..self }
    }

    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("ScheduleConfig");
        check.non_negative("base", self.base)?;
        if let Some(w) = self.warmup {
            check.at_least_one("warmup.steps", w.steps)?;
            check.fraction("warmup.start_factor", w.start_factor)?;
        }
        match self.decay {
            Decay::Constant => Ok(()),
            Decay::Step { step_size, gamma } => {
                check.at_least_one("decay.step_size", step_size)?;
                Ok(check.non_negative("decay.gamma", gamma)?)
            }
            Decay::Cosine { t_max, eta_min } => {
                check.at_least_one("decay.t_max", t_max)?;
                Ok(check.non_negative("decay.eta_min", eta_min)?)
            }
            Decay::CosineHold { t_max, eta_min } => {
                check.at_least_one("decay.t_max", t_max)?;
                Ok(check.non_negative("decay.eta_min", eta_min)?)
            }
            Decay::Linear { end, .. } => Ok(check.non_negative("decay.end", end)?),
            Decay::Exponential { gamma, min } => {
                check.fraction("decay.gamma", gamma)?;
                Ok(check.non_negative("decay.min", min)?)
            }
        }
    }

    /// The schedule, or an error naming the first field out of range.
    pub fn build(self) -> Result<Schedule> {
        self.validate()?;
        Ok(Schedule { config: self })
    }
}

/// A validated schedule: the value for any step, computed in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    config: ScheduleConfig,
}

impl Schedule {
    /// The settings it was built from.
    pub fn config(&self) -> ScheduleConfig {
        self.config
    }

    /// The value for step `step`, counted from 0 (the rate the first
    /// optimiser step runs with is `value_at(0)`).
    pub fn value_at(&self, step: u64) -> f32 {
        let lr = self.config.base as f64;
        let mut s = step;
        if let Some(w) = self.config.warmup {
            if step < w.steps {
                let start = w.start_factor as f64;
                return (lr * (start + (1.0 - start) * step as f64 / w.steps as f64)) as f32;
            }
            s = step - w.steps;
        }
        let rate = match self.config.decay {
            Decay::Constant => lr,
            Decay::Step { step_size, gamma } => lr * (gamma as f64).powf((s / step_size) as f64),
            Decay::Cosine { t_max, eta_min } => {
                let eta_min = eta_min as f64;
                let phase = std::f64::consts::PI * s as f64 / t_max as f64;
                eta_min + (lr - eta_min) * (1.0 + phase.cos()) / 2.0
            }
            Decay::CosineHold { t_max, eta_min } => {
                let span = (self.config.base - eta_min) as f64;
                let t = s.min(t_max) as f64 / t_max as f64;
                eta_min as f64 + span * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
            Decay::Linear { steps, end } if s >= steps => end as f64,
            Decay::Linear { steps, end } => lr + (end as f64 - lr) * (s as f64 / steps as f64),
            // In log space: gamma^s underflows gracefully for any s.
            Decay::Exponential { gamma, min } => (lr * (s as f64 * (gamma as f64).ln()).exp()).max(min as f64),
        };
        rate as f32
    }

    /// Sets `optimizer`'s rate for its next step, `value_at(step_count())`,
    /// and returns it.
    pub fn apply<O: Optimizer + ?Sized>(&self, optimizer: &mut O) -> f32 {
        let lr = self.value_at(optimizer.step_count());
        optimizer.set_lr(lr);
        lr
    }
}
