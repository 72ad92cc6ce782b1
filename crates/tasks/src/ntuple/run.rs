//! An n-tuple run: one step is one training game of 2048 (TD(0) on
//! afterstates), the metrics averaged over a window of games, greedy
//! games at each evaluation.

use super::config::NTupleConfig;
use super::player::Player;
use crate::game_runs::{Count, GameLearner, GameRun, Tallies};
use minnow_envs::Game2048;
use minnow_nn::Checkpoint;
use minnow_rl::RlError;
use minnow_rl::expectimax::ExpectimaxConfig;
use minnow_rl::ntuple::TdLearner;
use minnow_train::{Metrics, TrainError};
use serde::{Deserialize, Serialize};

/// The task's name in its checkpoints.
pub(crate) const TASK: &str = "ntuple-2048";

/// The run checkpoint's tensor of the tables, dense, in the network's flat order.
pub const WEIGHTS: &str = "ntuple.weights";

/// The run checkpoint's tensors of temporal coherence's sums per entry
/// (signed errors, magnitudes), in the tables' flat order.
pub const COHERENCE_ERRORS: &str = "ntuple.tc.errors";
/// See [`COHERENCE_ERRORS`].
pub const COHERENCE_MAGNITUDES: &str = "ntuple.tc.magnitudes";

/// An n-tuple run as the run driver sees it.
pub(crate) type NTupleRun = GameRun<NTupleLearner>;

/// The player and TD(0)'s state, learning from the games it plays.
pub(crate) struct NTupleLearner {
    pub(crate) player: Player,
    td: TdLearner,
    /// The game every training and evaluation game starts from.
    pub(crate) prototype: Game2048,
    env: Game2048,
}

impl GameLearner for NTupleLearner {
    type Config = NTupleConfig;
    type Tallies = NTupleTallies;
    const TASK: &'static str = TASK;
    const WEIGHTS: &'static str = WEIGHTS;
    const EVAL_AT_END: bool = false;

    fn new(config: &NTupleConfig) -> Result<Self, RlError> {
        let prototype = Game2048::new(config.env)?;
        let player = Player::new(config)?;
        Ok(Self { td: player.learner(config), player, env: prototype.clone(), prototype })
    }

    fn train_game(&mut self, _: &NTupleConfig, _: u64, seed: u64) -> Result<NTupleTallies, TrainError> {
        let squared_error = self.player.train_game(&mut self.td, &mut self.env, seed).map_err(TrainError::task)?;
        Ok(NTupleTallies { games: 1, moves: self.env.moves(), score: self.env.score(), squared_error })
    }

    fn evaluate(&mut self, config: &NTupleConfig, metrics: &mut Metrics) -> Result<(), TrainError> {
        let eval = config.eval;
        let greedy = ExpectimaxConfig::default();
        let r =
            self.player.evaluate(&self.prototype, eval.during, eval.seed, &greedy, &|| {}).map_err(TrainError::task)?;
        metrics.extend(r.metrics());
        Ok(())
    }

    fn weights(&self) -> &[f32] {
        self.player.net.weights()
    }

    fn restore(&mut self, checkpoint: &Checkpoint, name: &str) -> Result<(), RlError> {
        self.player.net.restore(checkpoint, name)
    }

    fn extra_state(&self) -> Vec<(&'static str, &[f32])> {
        match self.td.coherence() {
            Some((errors, magnitudes)) => vec![(COHERENCE_ERRORS, errors), (COHERENCE_MAGNITUDES, magnitudes)],
            None => Vec::new(),
        }
    }

    fn restore_extra_state(&mut self, checkpoint: &Checkpoint) -> Result<(), RlError> {
        if self.td.coherence().is_some() {
            self.td.restore_coherence(checkpoint, COHERENCE_ERRORS, COHERENCE_MAGNITUDES)?;
        }
        Ok(())
    }
}

/// One training game's statistics, or their sums over a window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NTupleTallies {
    games: u64,
    moves: u64,
    score: u64,
    squared_error: f64,
}

impl Tallies for NTupleTallies {
    fn games(&self) -> u64 {
        self.games
    }

    fn moves(&self) -> u64 {
        self.moves
    }

    fn squared_error(&self) -> f64 {
        self.squared_error
    }

    /// A game of 2048 ends before its tiles sum past 16 * 2^15 (a move
    /// adds a tile of 2 or more), so it has fewer moves than 2^18, and its
    /// score (each merge scores the new tile) stays below 2^24.
    fn counts(&self) -> impl IntoIterator<Item = Count> {
        [
            Count { key: "moves", value: self.moves, per_game: 1 << 18 },
            Count { key: "score", value: self.score, per_game: 1 << 24 },
        ]
    }

    fn add(&mut self, other: &Self) {
        self.games += other.games;
        self.moves += other.moves;
        self.score += other.score;
        self.squared_error += other.squared_error;
    }

    fn means(&self, games: f64) -> impl IntoIterator<Item = (&'static str, f64)> {
        [("train_mean_score", self.score as f64 / games), ("train_mean_moves", self.moves as f64 / games)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_runs::testing;
    use crate::ntuple::NTupleEvalConfig;

    /// Four 4-cell tables, 6 games, a checkpoint and an evaluation of one
    /// game every 3.
    fn tiny_run() -> NTupleRun {
        let tuples = (0..4).map(|k| vec![4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]).collect();
        let eval = NTupleEvalConfig { every: 3, during: 1, last: 1, seed: 5, ..NTupleConfig::default().eval };
        let config =
            NTupleConfig { tuples, levels: 12, games: 6, checkpoint_every: 3, eval, ..NTupleConfig::default() };
        NTupleRun::new(config).unwrap()
    }

    /// A checkpoint after 3 games, made once.
    fn saved() -> &'static Checkpoint {
        static SAVED: std::sync::OnceLock<Checkpoint> = std::sync::OnceLock::new();
        SAVED.get_or_init(|| minnow_train::testing::checkpoint_after(tiny_run(), 3))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Crafted metadata (the window, the step, the config, the task
        /// and identity tags) is refused or trains on; never a panic.
        #[test]
        fn crafted_ntuple_metadata_resumes_or_is_refused((key, value) in minnow_nn::testing::crafted_metadata(saved())) {
            testing::resume_crafted(saved(), &key, value, tiny_run());
        }
    }

    #[test]
    fn a_window_the_run_cannot_hold_is_refused_naming_it() {
        testing::refuses_windows_it_cannot_hold(saved(), 3, tiny_run);
    }
}
