//! What a task brings to a game-per-step run: a learner that plays one
//! training game, learns from it and says how it went.

use super::{GameRunConfig, Tallies};
use minnow_nn::Checkpoint;
use minnow_rl::RlError;
use minnow_train::{Metrics, TrainError};

/// A task's learner: its weights, and the buffers and games it plays on.
pub(crate) trait GameLearner: Sized {
    /// The task's config.
    type Config: GameRunConfig;
    /// One game's statistics, summed over the games of a metrics line.
    type Tallies: Tallies;
    /// The task's name in its checkpoints.
    const TASK: &'static str;
    /// The checkpoint's tensor of the learned weights.
    const WEIGHTS: &'static str;
    /// Whether the driver evaluates after the last game too (a task whose
    /// final evaluation is its own need not).
    const EVAL_AT_END: bool;

    /// A learner at the run's start, or the config's error.
    fn new(config: &Self::Config) -> Result<Self, RlError>;

    /// Plays training game `k` of the run from `seed`, learning as it goes.
    fn train_game(&mut self, config: &Self::Config, k: u64, seed: u64) -> Result<Self::Tallies, TrainError>;

    /// Evaluates the weights as trained so far, the headline metric first.
    fn evaluate(&mut self, config: &Self::Config, metrics: &mut Metrics) -> Result<(), TrainError>;

    /// The learned weights: all a checkpoint keeps of the learner.
    fn weights(&self) -> &[f32];

    /// Reads the weights back from the checkpoint's tensor `name`.
    fn restore(&mut self, checkpoint: &Checkpoint, name: &str) -> Result<(), RlError>;

    /// Learning state beside the weights that a resume needs (per-weight
    /// step sizes' sums), as named tensors; none by default.
    fn extra_state(&self) -> Vec<(&'static str, &[f32])> {
        Vec::new()
    }

    /// Reads [`GameLearner::extra_state`] back from the checkpoint.
    fn restore_extra_state(&mut self, _checkpoint: &Checkpoint) -> Result<(), RlError> {
        Ok(())
    }
}
