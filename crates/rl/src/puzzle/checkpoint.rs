//! Value iteration in the run-checkpoint layout of `minnow_train`
//! (`docs/CHECKPOINT.md`): both networks (`online.`, `target.`), Adam's
//! moments in the parameters' shapes (`optimizer.`), the counters, the
//! walks' generator, the puzzle's name and the config, so a resumed run
//! continues exactly; and loading the online network alone as a search
//! heuristic.

use super::{LearnedHeuristic, Puzzle, ValueIteration, ValueIterationConfig};
use crate::{Result, RlError};
use minnow_autodiff::Params;
use minnow_nn::Checkpoint;
use minnow_optim::Optimizer;
use minnow_train::{RunCheckpoint, RunCheckpointWriter};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::path::Path;

const ONLINE: &str = "online";

impl ValueIteration {
    /// Writes the learner's state into a run checkpoint (the caller wrote
    /// the header: task, [`ValueIterationConfig::identity`], and
    /// [`steps`](Self::steps) as the step).
    pub fn save_state<P: Puzzle>(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        checkpoint.params(ONLINE, &self.online).params("target", &self.target).optimizer(
            "optimizer",
            &self.adam,
            &self.online,
        )?;
        checkpoint
            .meta("puzzle", P::NAME)
            .json("config", &self.config)
            .counter("target_updates", self.target_updates)
            .counter("last_target_update", self.last_target_update)
            .json("last_loss", &self.last_loss.to_bits())
            .rng("walks", &self.rng);
        Ok(())
    }

    /// The inverse of [`save_state`](Self::save_state), into a learner
    /// freshly built from the same config; a checkpoint of another puzzle
    /// is an error naming both.
    pub fn restore_state<P: Puzzle>(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
        check_puzzle::<P>(checkpoint.raw(), checkpoint.path())?;
        checkpoint.restore_params(ONLINE, &mut self.online)?;
        checkpoint.restore_params("target", &mut self.target)?;
        checkpoint.restore_optimizer("optimizer", &mut self.adam, &self.online)?;
        let steps = checkpoint.step()?;
        let target_updates = checkpoint.counter("target_updates")?;
        let last_target_update = checkpoint.counter("last_target_update")?;
        // One Adam update per step; the target is copied at most once a step.
        for (key, value) in [
            ("optimizer.step_count", self.adam.step_count()),
            ("target_updates", target_updates),
            ("last_target_update", last_target_update),
        ] {
            let exact = key == "optimizer.step_count";
            if value > steps || (exact && value != steps) {
                let relation = if exact { "equal to" } else { "at most" };
                return Err(RlError::Resume(format!(
                    "checkpoint metadata 'counter.{key}' is {value}, expected {relation} the step, {steps}"
                )));
            }
        }
        (self.steps, self.target_updates, self.last_target_update) = (steps, target_updates, last_target_update);
        self.last_loss = f32::from_bits(checkpoint.json("last_loss")?);
        self.rng = checkpoint.rng("walks")?;
        Ok(())
    }
}

/// The online network of a value-iteration checkpoint of puzzle `P`, as a
/// heuristic, with the config it was trained with. Reads the run
/// checkpoint and the layout before it alike (both keep the puzzle, the
/// config and the online network under the same names), so solvers
/// trained before the run checkpoint still load.
pub fn load_cost_to_go<P: Puzzle>(puzzle: &P, path: &Path) -> Result<(ValueIterationConfig, LearnedHeuristic)> {
    let checkpoint = Checkpoint::load(path)?;
    check_puzzle::<P>(&checkpoint, path)?;
    let saved_config = |source| RlError::SavedConfig { path: path.to_path_buf(), source };
    let config: ValueIterationConfig =
        serde_json::from_str(checkpoint.require_meta("config")?).map_err(|e| saved_config(e.into()))?;
    config.validate().map_err(|e| saved_config(e.into()))?;
    let mut params = Params::new();
    // The initial weights are overwritten: any generator will do.
    let net = config.net.init(&mut params, puzzle.observation_size(), &mut Pcg64Mcg::seed_from_u64(0))?;
    checkpoint.restore_prefixed(ONLINE, &mut params)?;
    Ok((config, LearnedHeuristic::new(net, params)))
}

fn check_puzzle<P: Puzzle>(checkpoint: &Checkpoint, path: &Path) -> Result<()> {
    let puzzle = checkpoint.require_meta("puzzle")?;
    if puzzle != P::NAME {
        return Err(RlError::Resume(format!(
            "{}: the checkpoint is of puzzle '{puzzle}', expected '{}'",
            path.display(),
            P::NAME
        )));
    }
    Ok(())
}
