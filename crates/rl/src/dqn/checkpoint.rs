//! Checkpoints of a DQN run, in the run-checkpoint layout of
//! `minnow_train` (`docs/CHECKPOINT.md`): both networks, Adam's moments in
//! the parameters' shapes, the replay memory, the curriculum, counters and
//! RNG streams, and between checkpoint boundaries (a stop's checkpoint)
//! the episodes under way and their pending n-step transitions, so that a
//! run saved after any step continues exactly.

use super::running::Running;
use super::{DqnConfig, DqnEnv, DqnLearner, DqnRun};
use crate::state::read_meta;
use crate::{Result, RlError};
use minnow_train::{RunCheckpoint, RunCheckpointWriter};
use std::path::Path;

impl<E: DqnEnv> DqnRun<E> {
    /// Writes the run's state into a run checkpoint (the caller wrote the
    /// header: task [`Env::NAME`](minnow_envs::Env::NAME), [`DqnConfig::identity`], env steps),
    /// after any step. Between checkpoint boundaries it adds the episodes
    /// under way (metadata `running`) and each env's pending n-step
    /// transitions (`nstep.<env>`); at a boundary, where none is, the
    /// checkpoint is as it always was.
    pub fn save_state(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        let learner = &self.learner;
        checkpoint.params("online", &learner.online).params("target", &learner.target).optimizer(
            "optimizer",
            &learner.adam,
            &learner.online,
        )?;
        let mut state = learner.memory.save("replay");
        if let Some(running) = self.running() {
            for (i, n_step) in self.n_steps().iter().enumerate() {
                state.extend(n_step.save(&format!("nstep.{i}")));
            }
            checkpoint.json("running", running);
        }
        for array in &state.arrays {
            checkpoint.tensor(&array.name, &array.dims, &array.values);
        }
        for (key, value) in state.meta {
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
        if checkpoint.raw().meta("running").is_none() {
            // Saved at a boundary: every env starts a new episode.
            self.set_fresh();
            return Ok(());
        }
        let running: Vec<Running> = read_meta(checkpoint.raw(), "running")?;
        for (i, n_step) in self.n_steps_mut().iter_mut().enumerate() {
            n_step.restore(&format!("nstep.{i}"), checkpoint.raw())?;
        }
        self.replay_running(&running)
    }

    /// Writes the run to `path` (temporary file, fsync, rename).
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
