//! Checkpoints of value iteration: both networks, Adam's moments, the
//! counters and the generator, in one safetensors file written atomically,
//! so a resumed run continues exactly; and loading the online network
//! alone as a search heuristic.

use super::{LearnedHeuristic, Puzzle, ValueIteration, ValueIterationConfig};
use crate::{Result, RlError};
use minnow_autodiff::Params;
use minnow_nn::{Checkpoint, CheckpointWriter};
use minnow_optim::{Optimizer, load_state_by_param, state_by_param};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::path::Path;

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("run state is plain data and always serialises")
}

impl ValueIteration {
    /// Writes the run to `path` (temporary file, fsync, rename).
    pub fn save<P: Puzzle>(&self, path: &Path) -> Result<()> {
        let mut writer =
            CheckpointWriter::new().params_prefixed("online", &self.online).params_prefixed("target", &self.target);
        for (name, values) in state_by_param(&self.adam, &self.online)? {
            writer = writer.tensor(&name, &[values.len()], values);
        }
        writer
            .meta("puzzle", P::NAME)
            .meta("config", json(&self.config))
            .meta("config_identity", self.config.identity())
            .meta("steps", self.steps.to_string())
            .meta("target_updates", self.target_updates.to_string())
            .meta("last_target_update", self.last_target_update.to_string())
            .meta("last_loss", json(&self.last_loss.to_bits()))
            .meta("adam_steps", self.adam.step_count().to_string())
            .meta("rng", json(&self.rng))
            .save(path)
            .map_err(RlError::from)
    }

    /// A learner built from `config`, continued from the checkpoint at
    /// `path`; an error (nothing loaded) if the checkpoint is of another
    /// puzzle or network shape.
    pub fn resume<P: Puzzle>(config: &ValueIterationConfig, puzzle: &P, path: &Path) -> Result<Self> {
        let mut run = Self::new(config, puzzle.observation_size(), puzzle.moves())?;
        let ckpt = open::<P>(path)?;
        let saved = meta(&ckpt, "config_identity")?;
        if saved != config.identity() {
            return Err(RlError::Resume(format!(
                "{}: the checkpoint was trained with {saved}; this config has {}",
                path.display(),
                config.identity()
            )));
        }
        ckpt.restore_prefixed("online", &mut run.online)?;
        ckpt.restore_prefixed("target", &mut run.target)?;
        load_state_by_param(&mut run.adam, &run.online, |name| ckpt.tensor(name))?;
        run.adam.set_step_count(number(&ckpt, "adam_steps")?);
        run.steps = number(&ckpt, "steps")?;
        run.target_updates = number(&ckpt, "target_updates")?;
        run.last_target_update = number(&ckpt, "last_target_update")?;
        run.last_loss = f32::from_bits(parse(&ckpt, "last_loss")?);
        run.rng = parse::<Pcg64Mcg>(&ckpt, "rng")?;
        Ok(run)
    }
}

/// The online network of a value-iteration checkpoint of puzzle `P`, as a
/// heuristic, with the config it was trained with.
pub fn load_cost_to_go<P: Puzzle>(puzzle: &P, path: &Path) -> Result<(ValueIterationConfig, LearnedHeuristic)> {
    let ckpt = open::<P>(path)?;
    let config: ValueIterationConfig = parse(&ckpt, "config")?;
    let mut params = Params::new();
    // The initial weights are overwritten: any generator will do.
    let net = config.net.init(&mut params, puzzle.observation_size(), &mut Pcg64Mcg::seed_from_u64(0))?;
    ckpt.restore_prefixed("online", &mut params)?;
    Ok((config, LearnedHeuristic::new(net, params)))
}

fn open<P: Puzzle>(path: &Path) -> Result<Checkpoint> {
    let ckpt = Checkpoint::load(path)?;
    let puzzle = meta(&ckpt, "puzzle")?;
    if puzzle != P::NAME {
        return Err(RlError::Resume(format!(
            "{}: the checkpoint is of puzzle '{puzzle}', expected '{}'",
            path.display(),
            P::NAME
        )));
    }
    Ok(ckpt)
}

fn meta<'a>(ckpt: &'a Checkpoint, key: &str) -> Result<&'a str> {
    ckpt.require_meta(key).map_err(RlError::from)
}

fn number(ckpt: &Checkpoint, key: &str) -> Result<u64> {
    meta(ckpt, key)?.parse().map_err(|_| RlError::Resume(format!("checkpoint metadata '{key}' is not a number")))
}

fn parse<T: serde::de::DeserializeOwned>(ckpt: &Checkpoint, key: &str) -> Result<T> {
    serde_json::from_str(meta(ckpt, key)?)
        .map_err(|e| RlError::Resume(format!("checkpoint metadata '{key}' does not parse: {e}")))
}
