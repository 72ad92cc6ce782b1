//! An n-tuple run as the run driver sees it: one step is one training
//! game; the statistics since the last metrics line travel in the
//! checkpoint so that a resumed run logs what an uninterrupted one does.

use super::config::NTupleConfig;
use super::player::Player;
use crate::game_runs::{ends_line, game_seed};
use minnow_envs::Game2048;
use minnow_rl::RlError;
use minnow_rl::ntuple::TdLearner;
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use serde::{Deserialize, Serialize};

/// The task's name in its checkpoints.
pub(crate) const TASK: &str = "ntuple-2048";

const WEIGHTS: &str = "ntuple.weights";

/// Training statistics since the last metrics line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Window {
    games: u64,
    moves: u64,
    score: u64,
    squared_error: f64,
}

impl Window {
    /// A game of 2048 ends before its tiles sum past 16 * 2^15 (a move
    /// adds a tile of 2 or more), so it has fewer moves than this, and its
    /// score (each merge scores the new tile) stays below the other.
    const MOVES_PER_GAME: u64 = 1 << 18;
    const SCORE_PER_GAME: u64 = 1 << 24;

    /// Checks a window read from a checkpoint at `step` games: no more
    /// games than the run has played, no more moves or points than they
    /// can hold, a finite error.
    fn check(&self, step: u64) -> Result<(), TrainError> {
        let bound = |per_game: u64| self.games.checked_mul(per_game).unwrap_or(0);
        let problem = if self.games > step {
            format!("{} games in the window, more than the run's {step}", self.games)
        } else if self.moves > bound(Self::MOVES_PER_GAME) || self.score > bound(Self::SCORE_PER_GAME) {
            format!("{} moves and {} points are more than {} games can hold", self.moves, self.score, self.games)
        } else if !(self.squared_error.is_finite() && self.squared_error >= 0.0) {
            format!("squared_error {} is not a finite value >= 0", self.squared_error)
        } else {
            return Ok(());
        };
        Err(TrainError::BadState { key: "window".into(), detail: problem })
    }
}

/// An n-tuple run: one step is one game.
pub(crate) struct NTupleRun {
    pub(crate) config: NTupleConfig,
    pub(crate) player: Player,
    td: TdLearner,
    /// The game every training and evaluation game starts from.
    pub(crate) prototype: Game2048,
    env: Game2048,
    pub(crate) games: u64,
    window: Window,
    /// Moves trained on by this process (a resumed run counts from 0).
    pub(crate) moves_trained: u64,
}

impl NTupleRun {
    /// A run at its start (the config validated).
    pub(crate) fn new(config: NTupleConfig) -> Result<Self, RlError> {
        let prototype = Game2048::new(config.env)?;
        Ok(Self {
            player: Player::new(&config)?,
            td: TdLearner::new(config.alpha),
            env: prototype.clone(),
            prototype,
            games: 0,
            window: Window::default(),
            moves_trained: 0,
            config,
        })
    }

    pub(crate) fn cadence(&self) -> Cadence {
        let config = &self.config;
        Cadence { eval_every: config.eval.every, checkpoint_every: config.checkpoint_every, eval_at_end: false }
    }
}

impl Run for NTupleRun {
    fn task(&self) -> &str {
        TASK
    }

    /// Everything but the game budget, the checkpoint cadence and the
    /// evaluations.
    fn identity(&self) -> String {
        minnow_train::config_identity(&self.config, &["games", "checkpoint_every", "eval"])
    }

    fn step(&self) -> u64 {
        self.games
    }

    fn total(&self) -> u64 {
        self.config.games
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let seed = game_seed(self.config.seed, self.games);
        let squared = self.player.train_game(&mut self.td, &mut self.env, seed).map_err(TrainError::task)?;
        self.moves_trained += self.env.moves();
        self.games += 1;
        let window = &mut self.window;
        window.games += 1;
        window.moves += self.env.moves();
        window.score += self.env.score();
        window.squared_error += squared;
        if ends_line(self.games, self.config.games) {
            let n = window.games as f64;
            // "loss": the mean squared TD error per move, which grows with
            // the values as the games get longer.
            metrics.extend([
                ("loss", window.squared_error / window.moves.max(1) as f64),
                ("train_mean_score", window.score as f64 / n),
                ("train_mean_moves", window.moves as f64 / n),
            ]);
            *window = Window::default();
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let eval = self.config.eval;
        let r = self.player.evaluate(&self.prototype, eval.during, eval.seed).map_err(TrainError::task)?;
        metrics.extend(r.metrics());
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        let weights = self.player.net.weights();
        checkpoint.tensor(WEIGHTS, &[weights.len()], weights).json("config", &self.config).json("window", &self.window);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.player.net.restore(checkpoint.raw(), WEIGHTS).map_err(TrainError::task)?;
        let (window, games): (Window, u64) = (checkpoint.json("window")?, checkpoint.step()?);
        window.check(games)?;
        (self.window, self.games) = (window, games);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntuple::NTupleEvalConfig;

    /// Four 4-cell tables, 6 games, a checkpoint and an evaluation of one
    /// game every 3.
    fn tiny_config() -> NTupleConfig {
        let tuples = (0..4).map(|k| vec![4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]).collect();
        let eval = NTupleEvalConfig { every: 3, during: 1, last: 1, seed: 5 };
        NTupleConfig { tuples, levels: 12, games: 6, checkpoint_every: 3, eval, ..NTupleConfig::default() }
    }

    /// A checkpoint after 3 games, made once.
    fn saved() -> &'static minnow_nn::Checkpoint {
        static SAVED: std::sync::OnceLock<minnow_nn::Checkpoint> = std::sync::OnceLock::new();
        SAVED.get_or_init(|| minnow_train::testing::checkpoint_after(NTupleRun::new(tiny_config()).unwrap(), 3))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Crafted metadata (the window, the step, the config, the task
        /// and identity tags) is refused or trains on; never a panic.
        #[test]
        fn crafted_ntuple_metadata_resumes_or_is_refused((key, value) in minnow_nn::testing::crafted_metadata(saved())) {
            let run = NTupleRun::new(tiny_config()).unwrap();
            let cadence = run.cadence();
            minnow_train::testing::resume_crafted(saved(), &key, value, run, cadence);
        }
    }

    #[test]
    fn a_window_the_run_cannot_hold_is_refused_naming_it() {
        let dir = minnow_nn::testing::ScratchDir::new("ntuple-window");
        let path = dir.join("window.safetensors");
        let refused = |window: Window| {
            saved().rewrite(&["window"]).meta("window", serde_json::to_string(&window).unwrap()).save(&path).unwrap();
            minnow_train::resume(&mut NTupleRun::new(tiny_config()).unwrap(), &path).unwrap_err().to_string()
        };
        let err = refused(Window { games: u64::MAX, ..Window::default() });
        assert!(err.contains("metadata 'window'") && err.contains("more than the run's 3"), "{err}");
        assert!(refused(Window { games: 1, moves: u64::MAX, ..Window::default() }).contains("1 games can hold"));
        assert!(refused(Window { squared_error: -1.0, ..Window::default() }).contains("squared_error -1"));
    }
}
