//! A td-backgammon run: one step is one self-play game (TD(lambda) on
//! afterstates, `minnow_rl::afterstate`), the metrics averaged over a
//! window of games, a 1-ply match against pubeval at each evaluation; and
//! reading a checkpoint's network back.

use crate::backgammon::{BackgammonTurns, EVAL_SEED, TD_BACKGAMMON, TdBackgammonConfig, vs_pubeval};
use crate::game_runs::{Count, GameLearner, GameRun, Tallies};
use minnow_nn::Checkpoint;
use minnow_rl::RlError;
use minnow_rl::afterstate::{TdLambda, TdLambdaConfig, ValueNet};
use minnow_train::{Metrics, RunCheckpoint, TaskError, TrainError};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// The checkpoint's tensor of the network's weights (the shipped agent).
pub const WEIGHTS: &str = "td.params";

/// A checkpoint's network and what it was trained with.
#[derive(Clone, Debug)]
pub struct Saved {
    /// The network.
    pub net: ValueNet,
    /// The run's config.
    pub config: TdBackgammonConfig,
    /// Training games it played.
    pub games: u64,
}

/// Reads the network of a run checkpoint of this task (for evaluation).
pub fn load(path: &Path) -> Result<Saved, TaskError> {
    let checkpoint = RunCheckpoint::read(path, TD_BACKGAMMON)?;
    let config: TdBackgammonConfig = checkpoint.json("config")?;
    config.validate().map_err(|e| format!("{}: checkpoint config: {e}", path.display()))?;
    let mut net = config.new_net();
    net.restore(checkpoint.raw(), WEIGHTS).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Saved { net, config, games: checkpoint.step()? })
}

/// A TD(lambda) self-play run as the run driver sees it.
pub(crate) type TdRun = GameRun<TdSelfPlay>;

/// The value network and TD(lambda)'s buffers, learning from the games
/// it plays against itself.
pub(crate) struct TdSelfPlay {
    pub(crate) net: ValueNet,
    td: TdLambda<BackgammonTurns>,
    turns: BackgammonTurns,
}

impl GameLearner for TdSelfPlay {
    type Config = TdBackgammonConfig;
    type Tallies = TdTallies;
    const TASK: &'static str = TD_BACKGAMMON;
    const WEIGHTS: &'static str = WEIGHTS;
    const EVAL_AT_END: bool = true;

    fn new(config: &TdBackgammonConfig) -> Result<Self, RlError> {
        let net = config.new_net();
        Ok(Self { td: TdLambda::new(&net), net, turns: BackgammonTurns::default() })
    }

    fn train_game(&mut self, config: &TdBackgammonConfig, k: u64, seed: u64) -> Result<TdTallies, TrainError> {
        let td = TdLambdaConfig { learning_rate: config.learning_rate(k), ..config.td };
        let stats = self.td.train_game(&mut self.turns, &mut self.net, seed, &td);
        let gammons = (stats.result_equity >= 2.0) as u64;
        Ok(TdTallies { games: 1, decisions: stats.decisions, squared_error: stats.squared_error, gammons })
    }

    fn evaluate(&mut self, config: &TdBackgammonConfig, metrics: &mut Metrics) -> Result<(), TrainError> {
        let eval = &config.eval;
        let r = vs_pubeval(&Arc::new(self.net.clone()), 1, eval.games, EVAL_SEED, eval, &|| {})
            .map_err(TrainError::task)?;
        metrics.extend([("win_rate_vs_pubeval", r.win_rate().rate), ("points_per_game", r.points_per_game())]);
        Ok(())
    }

    fn weights(&self) -> &[f32] {
        self.net.params()
    }

    fn restore(&mut self, checkpoint: &Checkpoint, name: &str) -> Result<(), RlError> {
        self.net.restore(checkpoint, name)
    }
}

/// One self-play game's statistics, or their sums over a window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TdTallies {
    games: u64,
    decisions: u64,
    squared_error: f64,
    /// Games ending in a gammon or backgammon.
    gammons: u64,
}

impl Tallies for TdTallies {
    fn games(&self) -> u64 {
        self.games
    }

    fn moves(&self) -> u64 {
        self.decisions
    }

    fn squared_error(&self) -> f64 {
        self.squared_error
    }

    /// Far more decisions than a game of backgammon takes (about 60), and
    /// at most one gammon a game.
    fn counts(&self) -> impl IntoIterator<Item = Count> {
        [
            Count { key: "decisions", value: self.decisions, per_game: 1 << 20 },
            Count { key: "gammons", value: self.gammons, per_game: 1 },
        ]
    }

    fn add(&mut self, other: &Self) {
        self.games += other.games;
        self.decisions += other.decisions;
        self.squared_error += other.squared_error;
        self.gammons += other.gammons;
    }

    fn means(&self, games: f64) -> impl IntoIterator<Item = (&'static str, f64)> {
        [("decisions_per_game", self.decisions as f64 / games), ("gammon_rate", self.gammons as f64 / games)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::TdEvalConfig;
    use crate::game_runs::{game_seed, testing};
    use minnow_nn::CheckpointWriter;
    use minnow_train::Run;

    fn train(net: &mut ValueNet, config: &TdBackgammonConfig, games: std::ops::Range<u64>) {
        let mut turns = BackgammonTurns::default();
        let mut learner = TdLambda::new(net);
        for k in games {
            let td = TdLambdaConfig { learning_rate: config.learning_rate(k), ..config.td };
            learner.train_game(&mut turns, net, game_seed(config.seed, k), &td);
        }
    }

    /// A 4-hidden-unit network, 4 games, a checkpoint and a 2-game match
    /// against pubeval every 2.
    fn tiny_run() -> TdRun {
        let eval = TdEvalConfig { every: 2, games: 2, threads: 1, ..TdBackgammonConfig::default().eval };
        let config =
            TdBackgammonConfig { hidden: 4, games: 4, checkpoint_every: 2, eval, ..TdBackgammonConfig::default() };
        TdRun::new(config).unwrap()
    }

    /// A checkpoint after 2 games, made once.
    fn saved() -> &'static Checkpoint {
        static SAVED: std::sync::OnceLock<Checkpoint> = std::sync::OnceLock::new();
        SAVED.get_or_init(|| minnow_train::testing::checkpoint_after(tiny_run(), 2))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Crafted metadata (the window, the step, the config, the task
        /// and identity tags) is refused or trains on; never a panic.
        #[test]
        fn crafted_td_metadata_resumes_or_is_refused((key, value) in minnow_nn::testing::crafted_metadata(saved())) {
            testing::resume_crafted(saved(), &key, value, tiny_run());
        }
    }

    #[test]
    fn a_window_the_run_cannot_hold_is_refused_naming_it() {
        testing::refuses_windows_it_cannot_hold(saved(), 2, tiny_run);
    }

    #[test]
    fn a_resumed_run_matches_an_uninterrupted_one_and_other_checkpoints_are_refused() {
        let config = TdBackgammonConfig { hidden: 12, games: 10, ..TdBackgammonConfig::default() };
        let dir = std::env::temp_dir().join(format!("minnow-td-resume-{}", std::process::id()));
        let path = dir.join("checkpoint.safetensors");
        let mut straight = config.new_net();
        train(&mut straight, &config, 0..10);
        // Stopped after 6 of its 10 games (the step size decays over all 10).
        let mut first = TdRun::new(config.clone()).unwrap();
        let mut metrics = Metrics::new();
        while first.step() < 6 {
            first.train_step(&mut metrics).unwrap();
        }
        minnow_train::save(&first, &path).unwrap();
        let saved = load(&path).unwrap();
        assert_eq!((saved.games, saved.net.params()), (6, first.learner.net.params()));
        let mut resumed = TdRun::new(config.clone()).unwrap();
        minnow_train::resume(&mut resumed, &path).unwrap();
        let mut net = resumed.learner.net.clone();
        train(&mut net, &config, 6..10);
        assert_eq!(net.params(), straight.params(), "resume is exact");
        assert_ne!(first.learner.net.params(), straight.params());

        let refused =
            |config: TdBackgammonConfig| minnow_train::resume(&mut TdRun::new(config).unwrap(), &path).unwrap_err();
        let err = refused(TdBackgammonConfig { hidden: 13, ..config.clone() }).to_string();
        assert!(err.contains("hidden = 12, this run is hidden = 13"), "{err}");
        // The seed, lambda and step sizes shape the run too; games may change.
        let err = refused(TdBackgammonConfig { seed: 99, ..config.clone() }).to_string();
        assert!(err.contains("seed = 1, this run is seed = 99"), "{err}");
        let td = TdLambdaConfig { lambda: 0.5, ..config.td };
        assert!(refused(TdBackgammonConfig { td, ..config.clone() }).to_string().contains("td.lambda = 0.7"));
        minnow_train::resume(&mut TdRun::new(TdBackgammonConfig { games: 20, ..config }).unwrap(), &path).unwrap();
        CheckpointWriter::new().tensor("x", &[1], &[0.0]).meta("task", "ntuple-2048").save(&path).unwrap();
        let err = load(&path).err().unwrap().to_string();
        assert!(err.contains("expected a run checkpoint of format 'minnow-run/1', found no format tag"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
