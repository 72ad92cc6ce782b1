//! Checkpoints of a DQN run: both networks, Adam's moments, the replay
//! memory, the curriculum, counters and random generators, in one
//! safetensors file written atomically. Runs are saved only at checkpoint
//! boundaries, where no episode is in flight, so nothing else is needed to
//! continue exactly.

use super::{DqnConfig, DqnEnv, DqnRun};
use crate::state::read_meta;
use crate::{Result, RlError, restore_rng};
use minnow_nn::{Checkpoint, CheckpointWriter};
use minnow_optim::{Optimizer, load_state_by_param, state_by_param};
use std::path::Path;

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("run state is plain data and always serialises")
}

impl<E: DqnEnv> DqnRun<E> {
    /// Writes the run to `path` (temporary file, fsync, rename). Only at a
    /// checkpoint boundary ([`DqnRun::at_boundary`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        if !self.at_boundary() {
            return Err(RlError::Resume("save: a DQN run is saved only at a checkpoint boundary".into()));
        }
        let learner = &self.learner;
        let mut writer = CheckpointWriter::new()
            .params_prefixed("online", &learner.online)
            .params_prefixed("target", &learner.target);
        for (name, values) in state_by_param(&learner.adam, &learner.online)? {
            writer = writer.tensor(&name, &[values.len()], values);
        }
        let memory = learner.memory.save("replay");
        for array in &memory.arrays {
            writer = writer.tensor(&array.name, &array.dims, &array.values);
        }
        for (key, value) in memory.meta {
            writer = writer.meta(&key, value);
        }
        writer
            .meta("task", E::NAME)
            .meta("config", json(&learner.config))
            .meta("config_identity", learner.config.identity())
            .meta("env_steps", self.env_steps.to_string())
            .meta("episodes", self.episodes.to_string())
            .meta("updates", learner.updates.to_string())
            .meta("adam_steps", learner.adam.step_count().to_string())
            .meta("rng.act", json(&self.rng))
            .meta("rng.learn", json(&learner.rng))
            .meta("curriculum", json(&self.curriculum))
            .meta("recent", json(&self.recent))
            .save(path)
            .map_err(RlError::from)
    }

    /// A run built from `config` and `env`, continued from the checkpoint
    /// at `path`. The checkpoint must come from the same task and a config
    /// of the same identity (network shape, replay layout); otherwise an
    /// error says what differs and nothing is loaded.
    pub fn resume(config: &DqnConfig, env: E, path: &Path) -> Result<Self> {
        let mut run = Self::new(config, env)?;
        let ckpt = Checkpoint::load(path)?;
        let meta = |key: &str| ckpt.require_meta(key).map_err(RlError::from);
        let task = meta("task")?;
        if task != E::NAME {
            return Err(RlError::Resume(format!("the checkpoint is of task '{task}', this run is '{}'", E::NAME)));
        }
        let saved = meta("config_identity")?;
        if saved != config.identity() {
            return Err(RlError::Resume(format!(
                "the checkpoint was trained with {saved}; this config has {}",
                config.identity()
            )));
        }
        let number = |key: &str| -> Result<u64> {
            meta(key)?.parse().map_err(|_| RlError::Resume(format!("checkpoint metadata '{key}' is not a number")))
        };
        let learner = &mut run.learner;
        ckpt.restore_prefixed("online", &mut learner.online)?;
        ckpt.restore_prefixed("target", &mut learner.target)?;
        load_state_by_param(&mut learner.adam, &learner.online, |name| ckpt.tensor(name))?;
        learner.memory.restore("replay", &ckpt)?;
        learner.adam.set_step_count(number("adam_steps")?);
        learner.updates = number("updates")?;
        learner.rng = restore_rng(&ckpt, "rng.learn")?;
        run.rng = restore_rng(&ckpt, "rng.act")?;
        run.env_steps = number("env_steps")?;
        run.episodes = number("episodes")?;
        run.curriculum = read_meta(&ckpt, "curriculum")?;
        run.recent = read_meta(&ckpt, "recent")?;
        run.recent.reserve();
        run.set_fresh();
        Ok(run)
    }
}
