//! A game-per-step run as the run driver sees it: one step is one
//! training game of the task's learner, a metrics line averages a window
//! of games, and a checkpoint holds the learned weights, the config and
//! the window.

use super::{GameLearner, GameRunConfig, Tallies, ends_line, game_seed};
use minnow_rl::RlError;
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};

/// A run of training games of `L`.
pub(crate) struct GameRun<L: GameLearner> {
    config: L::Config,
    pub(crate) learner: L,
    games: u64,
    /// The games since the last metrics line.
    window: L::Tallies,
    /// Moves (or decisions) trained on by this process (a resumed run
    /// counts from 0), for the task's closing line.
    pub(crate) moves_trained: u64,
}

impl<L: GameLearner> GameRun<L> {
    /// A run at its start, or the config's error.
    pub(crate) fn new(config: L::Config) -> Result<Self, RlError> {
        let learner = L::new(&config)?;
        Ok(Self { config, learner, games: 0, window: L::Tallies::default(), moves_trained: 0 })
    }

    /// Training games played.
    pub(crate) fn games(&self) -> u64 {
        self.games
    }

    /// When the driver evaluates and checkpoints, from the config.
    pub(crate) fn cadence(&self) -> Cadence {
        let plan = self.config.plan();
        Cadence { eval_every: plan.eval_every, checkpoint_every: plan.checkpoint_every, eval_at_end: L::EVAL_AT_END }
    }
}

impl<L: GameLearner> Run for GameRun<L> {
    fn task(&self) -> &str {
        L::TASK
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
        self.config.plan().games
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let plan = self.config.plan();
        let seed = game_seed(plan.seed, self.games);
        let game = self.learner.train_game(&self.config, self.games, seed)?;
        self.moves_trained += game.moves();
        self.games += 1;
        self.window.add(&game);
        if ends_line(self.games, plan.games) {
            self.window.write_line(metrics);
            self.window = L::Tallies::default();
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        self.learner.evaluate(&self.config, metrics)
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        let weights = self.learner.weights();
        checkpoint
            .tensor(L::WEIGHTS, &[weights.len()], weights)
            .json("config", &self.config)
            .json("window", &self.window);
        for (name, values) in self.learner.extra_state() {
            checkpoint.tensor(name, &[values.len()], values);
        }
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.learner.restore(checkpoint.raw(), L::WEIGHTS).map_err(TrainError::task)?;
        self.learner.restore_extra_state(checkpoint.raw()).map_err(TrainError::task)?;
        let (window, games): (L::Tallies, u64) = (checkpoint.json("window")?, checkpoint.step()?);
        window.check(games)?;
        (self.window, self.games) = (window, games);
        Ok(())
    }
}
