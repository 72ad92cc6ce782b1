//! Checkpoints of a DQN run, in the run-checkpoint layout of
//! `minnow_train` (`docs/CHECKPOINT.md`): both networks, Adam's moments in
//! the parameters' shapes, the replay memory, the curriculum, counters and
//! RNG streams. Runs are saved only at checkpoint boundaries, where no
//! episode is in flight, so nothing else is needed to continue exactly.

use super::{DqnConfig, DqnEnv, DqnLearner, DqnRun};
use crate::state::read_meta;
use crate::{Result, RlError};
use minnow_train::{RunCheckpoint, RunCheckpointWriter};
use std::path::Path;

impl<E: DqnEnv> DqnRun<E> {
    /// Writes the run's state into a run checkpoint (the caller wrote the
    /// header: task [`Env::NAME`](minnow_envs::Env::NAME), [`DqnConfig::identity`], env steps).
    /// Only at a checkpoint boundary ([`DqnRun::at_boundary`]).
    pub fn save_state(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        if !self.at_boundary() {
            return Err(RlError::Resume("save: a DQN run is saved only at a checkpoint boundary".into()));
        }
        let learner = &self.learner;
        checkpoint.params("online", &learner.online).params("target", &learner.target).optimizer(
            "optimizer",
            &learner.adam,
            &learner.online,
        )?;
        let memory = learner.memory.save("replay");
        for array in &memory.arrays {
            checkpoint.tensor(&array.name, &array.dims, &array.values);
        }
        for (key, value) in memory.meta {
            checkpoint.meta(&key, value);
        }
        checkpoint
            .json("config", &learner.config)
            .counter("env_steps", self.env_steps)
            .counter("episodes", self.episodes)
            .counter("updates", learner.updates)
            .rng("act", &self.rng)
            .rng("learn", &learner.rng)
            .json("curriculum", &self.curriculum)
            .json("recent", &self.recent);
        Ok(())
    }

    /// The inverse of [`save_state`](Self::save_state), into a run freshly
    /// built from the same config.
    pub fn restore_state(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
        let learner = &mut self.learner;
        checkpoint.restore_params("online", &mut learner.online)?;
        checkpoint.restore_params("target", &mut learner.target)?;
        checkpoint.restore_optimizer("optimizer", &mut learner.adam, &learner.online)?;
        learner.memory.restore("replay", checkpoint.raw())?;
        learner.updates = checkpoint.counter("updates")?;
        learner.rng = checkpoint.rng("learn")?;
        self.rng = checkpoint.rng("act")?;
        self.env_steps = checkpoint.counter("env_steps")?;
        self.episodes = checkpoint.counter("episodes")?;
        self.curriculum = read_meta(checkpoint.raw(), "curriculum")?;
        self.recent = read_meta(checkpoint.raw(), "recent")?;
        self.recent.reserve();
        self.set_fresh();
        Ok(())
    }

    /// Writes the run to `path` (temporary file, fsync, rename). Only at a
    /// checkpoint boundary ([`DqnRun::at_boundary`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut checkpoint = RunCheckpointWriter::new(E::NAME, &self.learner.config.identity(), self.env_steps);
        self.save_state(&mut checkpoint)?;
        checkpoint.save(path).map_err(RlError::Checkpoint)
    }

    /// A run built from `config` and `env`, continued from the checkpoint
    /// at `path`. The checkpoint must come from the same task and a config
    /// of the same identity (network shape, replay layout); otherwise an
    /// error says what differs and nothing is loaded.
    pub fn resume(config: &DqnConfig, env: E, path: &Path) -> Result<Self> {
        let mut run = Self::new(config, env)?;
        let checkpoint = RunCheckpoint::load(path, E::NAME, &config.identity())?;
        run.restore_state(&checkpoint)?;
        Ok(run)
    }
}

impl DqnLearner {
    /// The trained network (the online weights) from a run checkpoint or
    /// a shipped agent, which holds only those: to evaluate or play, not
    /// to resume (nothing else of the run is read).
    pub fn restore_network(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
        checkpoint.restore_params("online", &mut self.online)?;
        Ok(())
    }
}
