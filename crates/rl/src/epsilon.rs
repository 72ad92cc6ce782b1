//! Exploration rate schedules for epsilon-greedy action selection.

use crate::{Check, Result};
use serde::{Deserialize, Serialize};

/// Epsilon as a pure function of the step, so resuming at a step resumes
/// the schedule with no state to save.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EpsilonSchedule {
    Constant {
        value: f32,
    },
    /// From `start` to `end` in a straight line over `steps`, then `end`.
    Linear {
        start: f32,
        end: f32,
        steps: u64,
    },
    /// `max(floor, start * decay^step)`: multiplied by `decay` each step
    /// until it reaches `floor`.
    Exponential {
        start: f32,
        floor: f32,
        decay: f32,
    },
}

impl EpsilonSchedule {
    pub fn validate(&self) -> Result<()> {
        let check = Check("EpsilonSchedule");
        match *self {
            Self::Constant { value } => check.unit_closed("value", value),
            Self::Linear { start, end, steps } => {
                check.unit_closed("start", start)?;
                check.unit_closed("end", end)?;
                check.count_in("steps", "a value > 0", steps, 1, u64::MAX)
            }
            Self::Exponential { start, floor, decay } => {
                check.unit_closed("start", start)?;
                check.unit_closed("floor", floor)?;
                check.fraction("decay", decay)
            }
        }
    }

    /// Epsilon at `step` (0-based).
    pub fn value_at(&self, step: u64) -> f32 {
        match *self {
            Self::Constant { value } => value,
            Self::Linear { start, end, steps } => {
                if step >= steps {
                    return end;
                }
                let progress = step as f64 / steps as f64;
                (start as f64 + (end as f64 - start as f64) * progress) as f32
            }
            Self::Exponential { start, floor, decay } => {
                // In log space: decay^step underflows gracefully for any step.
                let value = start as f64 * (step as f64 * (decay as f64).ln()).exp();
                value.max(floor as f64) as f32
            }
        }
    }
}
