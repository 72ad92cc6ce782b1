//! A logic-CA run as the run driver (`minnow_train::drive`) sees it: a
//! step is one step of every member of the [`Population`], the evaluation
//! is the hard accuracy of the best member's batch in that step, the run
//! ends early once its kept circuit holds (`stop_score`), and the
//! checkpoint is the population's in the run-checkpoint layout
//! ([`checkpoint`](crate::checkpoint)).

use crate::checkpoint::TASK;
use crate::{CheckerboardConfig, LogicError, PatternTrainer, Population, StepReport};
use minnow_train::{Metrics, Result, Run, RunCheckpoint, RunCheckpointWriter, TrainError};

/// What may change on a resume: how long to run and how often to save.
pub const FREE_ON_RESUME: [&str; 2] = ["train_steps", "checkpoint_every"];

/// A population of pattern trainers trained by the run driver, with the
/// best report of its last step.
#[derive(Debug)]
pub struct LogicCaRun {
    population: Population<PatternTrainer>,
    identity: String,
    /// The report of the member with the fewest hard errors in the last
    /// step; `None` before the first step of this process.
    best: Option<StepReport>,
}

impl LogicCaRun {
    /// A run of `config` at step 0 (validated first).
    pub fn new(config: &CheckerboardConfig) -> crate::Result<Self> {
        let population = Population::new(config)?;
        let identity = minnow_train::config_identity(config, &FREE_ON_RESUME);
        Ok(Self { population, identity, best: None })
    }

    /// The members and what they have kept so far.
    pub fn population(&self) -> &Population<PatternTrainer> {
        &self.population
    }

    /// The population, ending the run (for its result,
    /// [`Population::into_result`]).
    pub fn into_population(self) -> Population<PatternTrainer> {
        self.population
    }

    /// The report of the member with the fewest hard errors in the last
    /// step (the first of equals).
    pub fn best_report(&self) -> Option<StepReport> {
        self.best
    }
}

impl Run for LogicCaRun {
    fn task(&self) -> &str {
        TASK
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn step(&self) -> u64 {
        self.population.steps_done() as u64
    }

    fn total(&self) -> u64 {
        self.population.config().train_steps as u64
    }

    /// Once the kept circuit is good enough ([`Population::done`]).
    fn ends_early(&self) -> bool {
        self.population.done()
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<()> {
        let this_step = self.population.steps_done() as u64 + 1;
        let reports = self.population.step().map_err(|e| match e {
            LogicError::NonFiniteLoss { step, loss } => {
                TrainError::NonFiniteLoss { step: step as u64 + 1, value: loss }
            }
            LogicError::Optim(refused @ minnow_optim::OptimError::NonFiniteGradient { .. }) => {
                TrainError::NonFiniteGradient { step: this_step, refused }
            }
            e => TrainError::task(e),
        })?;
        let best = *reports.iter().min_by_key(|r| r.hard_errors).expect("a population has at least one member");
        self.best = Some(best);
        metrics.push(("loss", best.loss as f64));
        Ok(())
    }

    /// The hard accuracy of the last step's best batch: the hard circuit
    /// is run on every batch anyway, so this costs nothing.
    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<()> {
        if let Some(best) = self.best {
            metrics.push(("hard_accuracy", best.hard_accuracy as f64));
        }
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        self.population.save_state(checkpoint)
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
        self.population.restore_state(checkpoint)
    }
}
