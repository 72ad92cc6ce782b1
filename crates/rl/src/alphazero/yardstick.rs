//! A task's own fixed opponent, played at every evaluation of a run
//! besides the game-agnostic ones (random, random-rollout MCTS). Against
//! random a backgammon agent wins every game from the first evaluation on,
//! so its curve says nothing; pubeval, the field's yardstick, shows how
//! the run is doing. The library knows no game's yardstick: the task
//! supplies it (`AzRun::set_yardstick`).

use super::{AzAgent, MatchResult};
use crate::Result;

/// Metrics by name, the headline first.
pub type YardstickMetrics = Vec<(&'static str, f64)>;

/// What one evaluation against a yardstick gives: the games (they join
/// the ratings' record, so the best snapshot is the best against it) and
/// the metrics for the curve.
#[derive(Clone, Debug, PartialEq)]
pub struct YardstickReport {
    /// The agent's games against the opponent, from the agent's side.
    pub result: MatchResult,
    /// The task's metrics of those games, its headline first.
    pub metrics: YardstickMetrics,
}

/// The matches a yardstick plays: given the current agent, the games to
/// play (`eval.yardstick_games`) and a seed (the same at every
/// evaluation, so the curve compares like with like).
type Play = dyn Fn(&AzAgent, usize, u64) -> Result<YardstickReport> + Send + Sync;

/// A fixed opponent: its name, how to play it and the name of the
/// headline metric.
pub struct Yardstick {
    opponent: &'static str,
    headline: &'static str,
    play: Box<Play>,
}

impl Yardstick {
    /// The opponent `opponent` (its name in the ratings), played by
    /// `play`, whose first metric is `headline`.
    pub fn new(
        opponent: &'static str,
        headline: &'static str,
        play: impl Fn(&AzAgent, usize, u64) -> Result<YardstickReport> + Send + Sync + 'static,
    ) -> Self {
        Self { opponent, headline, play: Box::new(play) }
    }

    /// The opponent's name.
    pub fn opponent(&self) -> &'static str {
        self.opponent
    }

    /// The name of the first metric `play` returns (a learning curve's).
    pub fn headline(&self) -> &'static str {
        self.headline
    }

    /// Plays `games` games of `agent` against the opponent.
    pub fn play(&self, agent: &AzAgent, games: usize, seed: u64) -> Result<YardstickReport> {
        (self.play)(agent, games, seed)
    }
}

impl std::fmt::Debug for Yardstick {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Yardstick")
            .field("opponent", &self.opponent)
            .field("headline", &self.headline)
            .finish_non_exhaustive()
    }
}
