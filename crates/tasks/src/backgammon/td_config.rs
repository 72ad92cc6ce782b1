//! td-backgammon's config: the network, TD(lambda)'s step sizes, the
//! games, and the matches against pubeval that judge it.

use crate::backgammon::{FEATURES, OUTPUTS, TD_BACKGAMMON};
use crate::game_runs::{GameRunConfig, game_run_config};
use minnow_optim::Check;
use minnow_rl::RlError;
use minnow_rl::afterstate::{TdLambdaConfig, ValueNet};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

/// The task's whole config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdBackgammonConfig {
    /// Seeds the network's initial weights and the training games (game
    /// `k` of seed `s` is the same in every run).
    pub seed: u64,
    /// Self-play training games.
    pub games: u64,
    /// Hidden units of the value network.
    pub hidden: usize,
    /// lambda, and the step size at the first game.
    pub td: TdLambdaConfig,
    /// The step size at the last game (linear in between).
    pub learning_rate_end: f32,
    /// Games between checkpoints.
    pub checkpoint_every: u64,
    /// The matches against pubeval.
    pub eval: TdEvalConfig,
}

/// The matches against pubeval, during the run and after it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdEvalConfig {
    /// Training games between 1-ply matches against pubeval.
    pub every: u64,
    /// Games of each of those matches.
    pub games: usize,
    /// Games of each match of the final suite (network alone; 2-ply).
    pub final_games: usize,
    /// Plays the 2-ply search looks past (the best at 1-ply).
    pub candidates: usize,
    /// Threads the matches spread over.
    pub threads: usize,
    /// Safety limit on micro-actions per game.
    pub max_moves: u32,
}

impl Default for TdBackgammonConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            games: 200_000,
            hidden: 128,
            td: TdLambdaConfig { lambda: 0.7, learning_rate: 0.1 },
            learning_rate_end: 0.02,
            checkpoint_every: 10_000,
            eval: TdEvalConfig {
                every: 20_000,
                games: 1000,
                final_games: 5000,
                candidates: 8,
                threads: 2,
                max_moves: 10_000,
            },
        }
    }
}

fn bad_count(field: &'static str, expected: &'static str, found: u64) -> RlError {
    Check(TD_BACKGAMMON).count(field, expected, found).into()
}

impl TdBackgammonConfig {
    /// Refuses a config the run could not train, naming the key.
    pub fn validate(&self) -> Result<(), RlError> {
        self.td.validate()?;
        if !(self.learning_rate_end.is_finite() && self.learning_rate_end > 0.0) {
            let (field, expected, found) = ("learning_rate_end", "a finite value > 0", self.learning_rate_end);
            return Err(Check(TD_BACKGAMMON).value(field, expected, found).into());
        }
        self.plan().check(TD_BACKGAMMON)?;
        for (field, value) in [
            ("eval.games", self.eval.games as u64),
            ("eval.final_games", self.eval.final_games as u64),
            ("eval.candidates", self.eval.candidates as u64),
            ("eval.max_moves", self.eval.max_moves as u64),
        ] {
            Check(TD_BACKGAMMON).at_least_one(field, value)?;
        }
        if !(1..=4096).contains(&self.hidden) {
            return Err(bad_count("hidden", "1..=4096 hidden units", self.hidden as u64));
        }
        if !(1..=256).contains(&self.eval.threads) {
            return Err(bad_count("eval.threads", "1..=256", self.eval.threads as u64));
        }
        Ok(())
    }

    /// The step size for game `k`: linear from `td.learning_rate` to
    /// `learning_rate_end`.
    pub(crate) fn learning_rate(&self, k: u64) -> f32 {
        let f = k as f32 / self.games.max(1) as f32;
        self.td.learning_rate + (self.learning_rate_end - self.td.learning_rate) * f.min(1.0)
    }

    /// The network at the run's start.
    pub(crate) fn new_net(&self) -> ValueNet {
        ValueNet::new(FEATURES, self.hidden, OUTPUTS, &mut rand_pcg::Pcg64Mcg::seed_from_u64(self.seed))
    }
}

game_run_config!(TdBackgammonConfig);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_configs_are_errors_naming_the_key() {
        let err = |edit: fn(&mut TdBackgammonConfig)| {
            let mut c = TdBackgammonConfig::default();
            edit(&mut c);
            c.validate().unwrap_err().to_string()
        };
        assert_eq!(err(|c| c.td.lambda = 1.5), "td_lambda.lambda: expected a value in [0, 1], found 1.5");
        assert!(err(|c| c.td.learning_rate = 0.0).starts_with("td_lambda.learning_rate"));
        assert!(err(|c| c.learning_rate_end = f32::NAN).starts_with("td-backgammon.learning_rate_end"));
        assert!(err(|c| c.games = 0).starts_with("td-backgammon.games"));
        assert!(err(|c| c.hidden = 0).starts_with("td-backgammon.hidden"));
        assert!(err(|c| c.eval.candidates = 0).starts_with("td-backgammon.eval.candidates"));
        assert!(err(|c| c.eval.threads = 0).starts_with("td-backgammon.eval.threads"));
        let unknown = serde_json::from_str::<TdBackgammonConfig>(r#"{"lamda": 0.1}"#).unwrap_err().to_string();
        assert!(unknown.contains("lamda"), "{unknown}");
    }
}
