//! A td-backgammon run as the run driver sees it: one step is one
//! self-play game (TD(lambda) on afterstates, `minnow_rl::afterstate`),
//! the metrics averaged over a window of games, a 1-ply match against
//! pubeval at each evaluation; and reading a checkpoint's network back.

use crate::backgammon::{BackgammonTurns, EVAL_SEED, TD_BACKGAMMON, TdBackgammonConfig, vs_pubeval};
use crate::game_runs::{ends_line, game_seed};
use minnow_rl::afterstate::{TdLambda, TdLambdaConfig, ValueNet};
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TaskError, TrainError};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Training statistics since the last metrics line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Window {
    games: u64,
    decisions: u64,
    squared_error: f64,
    /// Games ending in a gammon or backgammon.
    gammons: u64,
}

impl Window {
    /// Far more decisions than a game of backgammon takes (about 60), so
    /// that a count past it can only be a crafted one.
    const DECISIONS_PER_GAME: u64 = 1 << 20;

    /// Checks a window read from a checkpoint at `step` games: no more
    /// games than the run has played, no more gammons than games or
    /// decisions than they can hold, a finite error.
    fn check(&self, step: u64) -> Result<(), TrainError> {
        let most_decisions = self.games.checked_mul(Self::DECISIONS_PER_GAME).unwrap_or(0);
        let problem = if self.games > step {
            format!("{} games in the window, more than the run's {step}", self.games)
        } else if self.gammons > self.games || self.decisions > most_decisions {
            format!("{} gammons and {} decisions in {} games", self.gammons, self.decisions, self.games)
        } else if !(self.squared_error.is_finite() && self.squared_error >= 0.0) {
            format!("squared_error {} is not a finite value >= 0", self.squared_error)
        } else {
            return Ok(());
        };
        Err(TrainError::BadState { key: "window".into(), detail: problem })
    }
}

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

/// A TD(lambda) self-play run as the run driver sees it: one step is one game.
pub(crate) struct TdRun {
    config: TdBackgammonConfig,
    net: ValueNet,
    learner: TdLambda<BackgammonTurns>,
    turns: BackgammonTurns,
    games: u64,
    window: Window,
    /// Decisions trained on in this process (for the closing line).
    pub(crate) decisions_trained: u64,
}

impl TdRun {
    pub(crate) fn new(config: TdBackgammonConfig) -> Self {
        let net = config.new_net();
        Self {
            learner: TdLambda::new(&net),
            net,
            turns: BackgammonTurns::default(),
            games: 0,
            window: Window::default(),
            decisions_trained: 0,
            config,
        }
    }

    pub(crate) fn cadence(&self) -> Cadence {
        let config = &self.config;
        Cadence { eval_every: config.eval.every, checkpoint_every: config.checkpoint_every, eval_at_end: true }
    }
}

impl Run for TdRun {
    fn task(&self) -> &str {
        TD_BACKGAMMON
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
        let config = &self.config;
        let td = TdLambdaConfig { learning_rate: config.learning_rate(self.games), ..config.td };
        let seed = game_seed(config.seed, self.games);
        let stats = self.learner.train_game(&mut self.turns, &mut self.net, seed, &td);
        self.decisions_trained += stats.decisions;
        self.games += 1;
        let window = &mut self.window;
        window.games += 1;
        window.decisions += stats.decisions;
        window.squared_error += stats.squared_error;
        window.gammons += (stats.result_equity >= 2.0) as u64;
        if ends_line(self.games, config.games) {
            let n = window.games as f64;
            metrics.extend([
                ("loss", window.squared_error / window.decisions.max(1) as f64),
                ("decisions_per_game", window.decisions as f64 / n),
                ("gammon_rate", window.gammons as f64 / n),
            ]);
            *window = Window::default();
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let eval = &self.config.eval;
        let r = vs_pubeval(&Arc::new(self.net.clone()), 1, eval.games, EVAL_SEED, eval, &|| {})
            .map_err(TrainError::task)?;
        metrics.extend([("win_rate_vs_pubeval", r.win_rate().rate), ("points_per_game", r.points_per_game())]);
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        let params = self.net.params();
        checkpoint.tensor(WEIGHTS, &[params.len()], params).json("config", &self.config).json("window", &self.window);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.net.restore(checkpoint.raw(), WEIGHTS).map_err(TrainError::task)?;
        let (window, games): (Window, u64) = (checkpoint.json("window")?, checkpoint.step()?);
        window.check(games)?;
        (self.window, self.games) = (window, games);
        Ok(())
    }
}

impl TdRun {
    /// The network as trained so far.
    pub(crate) fn net(&self) -> &ValueNet {
        &self.net
    }

    /// Training games played.
    pub(crate) fn games(&self) -> u64 {
        self.games
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::TdEvalConfig;
    use minnow_nn::CheckpointWriter;

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
    fn tiny_config() -> TdBackgammonConfig {
        let eval = TdEvalConfig { every: 2, games: 2, threads: 1, ..TdBackgammonConfig::default().eval };
        TdBackgammonConfig { hidden: 4, games: 4, checkpoint_every: 2, eval, ..TdBackgammonConfig::default() }
    }

    /// A checkpoint after 2 games, made once.
    fn saved() -> &'static minnow_nn::Checkpoint {
        static SAVED: std::sync::OnceLock<minnow_nn::Checkpoint> = std::sync::OnceLock::new();
        SAVED.get_or_init(|| minnow_train::testing::checkpoint_after(TdRun::new(tiny_config()), 2))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Crafted metadata (the window, the step, the config, the task
        /// and identity tags) is refused or trains on; never a panic.
        #[test]
        fn crafted_td_metadata_resumes_or_is_refused((key, value) in minnow_nn::testing::crafted_metadata(saved())) {
            let run = TdRun::new(tiny_config());
            let cadence = run.cadence();
            minnow_train::testing::resume_crafted(saved(), &key, value, run, cadence);
        }
    }

    #[test]
    fn a_window_the_run_cannot_hold_is_refused_naming_it() {
        let dir = minnow_nn::testing::ScratchDir::new("td-window");
        let path = dir.join("window.safetensors");
        let refused = |window: Window| {
            saved().rewrite(&["window"]).meta("window", serde_json::to_string(&window).unwrap()).save(&path).unwrap();
            minnow_train::resume(&mut TdRun::new(tiny_config()), &path).unwrap_err().to_string()
        };
        let err = refused(Window { games: u64::MAX, ..Window::default() });
        assert!(err.contains("metadata 'window'") && err.contains("more than the run's 2"), "{err}");
        assert!(refused(Window { games: 1, gammons: 2, ..Window::default() }).contains("2 gammons"));
        assert!(refused(Window { games: 1, decisions: u64::MAX, ..Window::default() }).contains("in 1 games"));
        assert!(refused(Window { squared_error: -0.5, ..Window::default() }).contains("squared_error -0.5"));
    }

    #[test]
    fn a_resumed_run_matches_an_uninterrupted_one_and_other_checkpoints_are_refused() {
        let config = TdBackgammonConfig { hidden: 12, games: 10, ..TdBackgammonConfig::default() };
        let dir = std::env::temp_dir().join(format!("minnow-td-resume-{}", std::process::id()));
        let path = dir.join("checkpoint.safetensors");
        let mut straight = config.new_net();
        train(&mut straight, &config, 0..10);
        // Stopped after 6 of its 10 games (the step size decays over all 10).
        let mut first = TdRun::new(config.clone());
        let mut metrics = Metrics::new();
        while first.step() < 6 {
            first.train_step(&mut metrics).unwrap();
        }
        minnow_train::save(&first, &path).unwrap();
        let saved = load(&path).unwrap();
        assert_eq!((saved.games, saved.net.params()), (6, first.net.params()));
        let mut resumed = TdRun::new(config.clone());
        minnow_train::resume(&mut resumed, &path).unwrap();
        let mut net = resumed.net.clone();
        train(&mut net, &config, 6..10);
        assert_eq!(net.params(), straight.params(), "resume is exact");
        assert_ne!(first.net.params(), straight.params());

        let refused = |config: TdBackgammonConfig| minnow_train::resume(&mut TdRun::new(config), &path).unwrap_err();
        let err = refused(TdBackgammonConfig { hidden: 13, ..config.clone() }).to_string();
        assert!(err.contains("hidden = 12, this run is hidden = 13"), "{err}");
        // The seed, lambda and step sizes shape the run too; games may change.
        let err = refused(TdBackgammonConfig { seed: 99, ..config.clone() }).to_string();
        assert!(err.contains("seed = 1, this run is seed = 99"), "{err}");
        let td = TdLambdaConfig { lambda: 0.5, ..config.td };
        assert!(refused(TdBackgammonConfig { td, ..config.clone() }).to_string().contains("td.lambda = 0.7"));
        minnow_train::resume(&mut TdRun::new(TdBackgammonConfig { games: 20, ..config }), &path).unwrap();
        CheckpointWriter::new().tensor("x", &[1], &[0.0]).meta("task", "ntuple-2048").save(&path).unwrap();
        let err = load(&path).err().unwrap().to_string();
        assert!(err.contains("expected a run checkpoint of format 'minnow-run/1', found no format tag"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
