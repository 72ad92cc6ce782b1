//! Training a logic CA on the tasks of docs/LOGIC_CA.md in one call: a
//! population of members (each a [`PatternTrainer`]) stepped until its
//! kept circuit holds or the steps run out. The checkerboard (random
//! grids, N synchronous steps, squared error of channel 0 against a
//! checkerboard of 2x2 squares, gradients clipped, AdamW) and its
//! variants: Game of Life (every 3x3 periodic board, one step, the next
//! board as target) and asynchronous updates (each cell fires with a
//! probability per step, in training as in the hard check).

use crate::config::CheckerboardConfig;
use crate::hard::{HardProgram, Prune};
use crate::population::{Kept, Population};
use crate::trainer::{PatternTrainer, StepReport};
use crate::{LogicCa, Result};
use std::ops::ControlFlow;

/// The result of [`train_checkerboard`].
#[derive(Debug)]
pub struct Trained {
    /// The model of the member whose circuit was kept (member 0 if none).
    pub model: LogicCa,
    /// The kept circuit's hard ops, or member 0's final ones.
    pub ops: Vec<u8>,
    /// The circuit kept by the selection policy; `None` if no batch came
    /// out 100% right.
    pub kept: Option<Kept>,
    /// The first step at which some member's batch came out 100% right.
    pub first_perfect: Option<usize>,
    /// Per step, the report of the member with the fewest hard errors.
    pub history: Vec<StepReport>,
}

impl Trained {
    /// The kept circuit (or member 0's final one, as [`ops`](Self::ops))
    /// on the model's boundary, in one call.
    pub fn hard_program(&self, prune: Prune) -> HardProgram {
        HardProgram::new(self.model.circuit(), &self.ops, self.model.config().boundary, prune)
    }
}

/// Trains a [`Population`] of `config.population` members for
/// `config.train_steps` steps, until its kept circuit reaches
/// `config.stop_score`, or until `on_step` breaks; `on_step` sees each
/// step's reports, one per member.
pub fn train_checkerboard(
    config: &CheckerboardConfig,
    mut on_step: impl FnMut(&[StepReport]) -> ControlFlow<()>,
) -> Result<Trained> {
    let mut population = Population::<PatternTrainer>::new(config)?;
    let mut history = Vec::with_capacity(config.train_steps);
    while population.steps_done() < config.train_steps && !population.done() {
        let reports = population.step()?;
        let best = reports.iter().min_by_key(|r| r.hard_errors).copied().expect("at least one member");
        history.push(best);
        if on_step(reports).is_break() {
            break;
        }
    }
    let first_perfect = population.first_perfect();
    let (model, ops, kept) = population.into_result()?;
    Ok(Trained { model, ops, kept, first_perfect, history })
}
