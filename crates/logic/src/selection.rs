//! The pattern trainer as a member of a [`Population`]: the circuits it
//! offers (a batch it got 100% right, a repair with no cell wrong), the
//! held-out score that ranks them, and what a finished run hands back.

use crate::config::{CheckerboardConfig, Variant};
use crate::hard::{HardProgram, Prune};
use crate::life::hard_life_accuracy;
use crate::population::{Candidate, Kept, Member, Population, PopulationConfig, member_of_slot, member_seed};
use crate::robustness::{Disturbance, RobustnessConfig, rollout_accuracy};
use crate::trainer::{PatternTrainer, StepReport};
use crate::{LogicCa, Result};

/// Seeds of the held-out grids of [`selection_score`], apart from those of
/// the reported checks.
pub const SELECTION_SEED: u64 = 1234;

/// How good a circuit is on grids it was not trained on, in [0, 1]: for
/// the checkerboard the worse of the 64x64 check and the damaged 64x64
/// check (8 grids each), for the asynchronous variant fresh grids of its
/// training size with asynchronous updates, for the Game of Life the worse
/// of the share of the 512 boards right and of the cells right on larger
/// grids.
pub fn selection_score(config: &CheckerboardConfig, program: &HardProgram) -> f64 {
    let check = RobustnessConfig { trials: 8, seed: SELECTION_SEED, ..RobustnessConfig::default() };
    let (side, steps) = (check.side, check.steps);
    match config.variant {
        Variant::Checkerboard => {
            let large = rollout_accuracy(program, side, side, steps, check.trials, check.seed, Disturbance::None);
            let damage = Disturbance::Damage { side: check.damage_side, steps: check.damage_steps };
            large.min(rollout_accuracy(program, side, side, steps, check.trials, check.seed + 1, damage))
        }
        Variant::Async => {
            let fire = Disturbance::Async { fire_rate: config.fire_rate };
            let (h, w, n) = (config.ca.height, config.ca.width, config.ca_steps);
            rollout_accuracy(program, h, w, n, 8 * check.trials, check.seed, fire)
        }
        Variant::GameOfLife => {
            let life = hard_life_accuracy(program, 1, SELECTION_SEED);
            (life.boards_right as f64 / crate::life::BOARDS as f64).min(life.large_grids)
        }
    }
}

impl PatternTrainer {
    /// The [`selection_score`] of circuit `ops` on this member's wiring.
    fn score(&self, ops: &[u8]) -> f64 {
        let program = HardProgram::new(self.ca.circuit(), ops, self.config.ca.boundary, Prune::Channel0);
        selection_score(&self.config, &program)
    }
}

impl Member for PatternTrainer {
    type Config = CheckerboardConfig;
    type Report = StepReport;

    fn population(config: &CheckerboardConfig) -> Result<PopulationConfig> {
        config.validate()?;
        Ok(PopulationConfig {
            size: config.population,
            restart_after: config.restart_after,
            stop_score: config.stop_score,
            seed: config.seed,
        })
    }

    /// A trainer of `config` with the member's seed.
    fn start(config: &CheckerboardConfig, member: usize, step: usize) -> Result<Self> {
        let mut trainer =
            PatternTrainer::new(&CheckerboardConfig { seed: member_seed(config.seed, member), ..config.clone() })?;
        trainer.step = step;
        Ok(trainer)
    }

    fn steps_done(&self) -> usize {
        self.step
    }

    /// [`PatternTrainer::step`], offering its circuit if the batch came
    /// out 100% right; then a repair if one is due
    /// ([`PatternTrainer::repair_if_due`]), offering the repaired circuit
    /// as the next step's if it gets every cell of its set right.
    fn train_step(&mut self, offer: &mut dyn FnMut(Candidate<'_>)) -> Result<StepReport> {
        let report = self.step()?;
        if report.hard_errors == 0 {
            let ops = self.last_ops();
            offer(Candidate { step: report.step, score: self.score(ops), ops });
        }
        if let Some(outcome) = self.repair_if_due()
            && outcome.errors_after == 0
        {
            let ops = self.repaired_ops();
            offer(Candidate { step: report.step + 1, score: self.score(ops), ops });
        }
        Ok(report)
    }
}

impl Population<PatternTrainer> {
    /// The kept circuit's ops and model (whose wiring they run on: its
    /// member's last logits, or the member's first if it was restarted
    /// since), or, if nothing was kept, slot 0's final circuit.
    pub fn into_result(self) -> Result<(LogicCa, Vec<u8>, Option<Kept>)> {
        let (steps, slots) = (self.steps_done(), *self.population_config());
        let ca = self.config().ca.clone();
        let (members, kept) = self.into_parts();
        let slot = kept.as_ref().map_or(0, |k| k.member % slots.size);
        let model = match &kept {
            Some(k) if member_of_slot(&slots, slot, steps) != k.member => LogicCa::new(&ca, k.seed)?,
            _ => members.into_iter().nth(slot).expect("a population has at least one member").into_model(),
        };
        let ops = match &kept {
            Some(k) => k.ops.clone(),
            None => {
                let mut ops = vec![0; model.circuit().params];
                model.hard_ops(&mut ops);
                ops
            }
        };
        Ok((model, ops, kept))
    }
}
