//! A DQN task as the run driver sees it: the learner's run, the task's
//! evaluation and the statistics a step logs.

use super::{DqnEvalConfig, DqnTaskEnv};
use minnow_rl::dqn::{DqnRun, Shards};
use minnow_train::{Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};

/// The run of a DQN task.
pub(crate) struct DqnTaskRun<E: DqnTaskEnv> {
    pub(crate) run: DqnRun<E>,
    /// The environment the evaluations start from.
    pub(crate) env: E,
    pub(crate) eval: DqnEvalConfig,
    /// Environment steps between the lines of training statistics.
    pub(crate) log_every: u64,
    /// The config but what may change on a resume.
    pub(crate) identity: String,
    /// Whether this process evaluates (every rank of a distributed run
    /// trains the same; only rank 0 evaluates and writes).
    pub(crate) evaluates: bool,
    /// This rank's part when the run is one of several (data-parallel).
    pub(crate) shards: Option<Shards>,
}

impl<E: DqnTaskEnv> Run for DqnTaskRun<E> {
    fn task(&self) -> &str {
        E::NAME
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn step(&self) -> u64 {
        self.run.env_steps()
    }

    fn total(&self) -> u64 {
        self.run.config().env_steps
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let before = self.run.env_steps();
        match self.shards.as_mut() {
            Some(shards) => self.run.step_sharded(shards),
            None => self.run.step(),
        }
        .map_err(TrainError::task)?;
        if before / self.log_every != self.run.env_steps() / self.log_every {
            let recent = self.run.recent();
            metrics.extend([
                ("loss", self.run.last_update().map_or(f64::NAN, |u| u.loss as f64)),
                ("mean_return_last_100", recent.mean_return() as f64),
            ]);
            // Left out for an environment without a notion of success.
            if let Some(rate) = recent.success_rate() {
                metrics.push(("success_rate_last_100", rate as f64));
            }
            metrics.extend([
                ("mean_length_last_100", recent.mean_length() as f64),
                ("epsilon", self.run.epsilon() as f64),
            ]);
            if self.run.config().curriculum.is_some() {
                metrics.push(("level", self.run.level() as f64));
            }
        }
        Ok(())
    }

    fn stop_requested(&self) -> bool {
        self.shards.as_ref().map_or_else(minnow_train::stop_requested, Shards::stop_requested)
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        if !self.evaluates {
            return Ok(());
        }
        let (during, seed) = (self.eval.during, self.eval.seed);
        let (results, _) = E::evaluate(self.run.learner_mut(), &self.env, during, seed).map_err(TrainError::task)?;
        metrics.extend(results);
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        self.run.save_state(checkpoint).map_err(TrainError::task)
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.run.restore_state(checkpoint).map_err(TrainError::task)
    }
}
