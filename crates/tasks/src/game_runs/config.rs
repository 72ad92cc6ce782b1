//! What every game-per-step run reads from its config, whatever else the
//! config holds: the seed of its games, how many, and its cadences.

use minnow_config::{Check, ConfigError};
use serde::Serialize;

/// A game-per-step run's config. Its keys `games`, `checkpoint_every`
/// and `eval` may change when a run resumes (they are left out of the
/// run's identity); everything else shapes the computation.
pub(crate) trait GameRunConfig: Clone + Serialize {
    /// The fields the run itself reads.
    fn plan(&self) -> RunPlan;
}

/// The games of a run and when it is evaluated and checkpointed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RunPlan {
    /// Seeds the training games ([`game_seed`](super::game_seed)).
    pub seed: u64,
    /// Training games: the run's length.
    pub games: u64,
    /// Training games between evaluations.
    pub eval_every: u64,
    /// Training games between checkpoints.
    pub checkpoint_every: u64,
}

impl RunPlan {
    /// Refuses a run of no games, or a cadence of none, naming the key in
    /// the config `config`.
    pub(crate) fn check(&self, config: &'static str) -> Result<(), ConfigError> {
        let check = Check(config);
        check.at_least_one("games", self.games)?;
        check.at_least_one("checkpoint_every", self.checkpoint_every)?;
        check.at_least_one("eval.every", self.eval_every)
    }
}

/// Implements [`GameRunConfig`] for a config whose fields have the
/// shared names: `seed`, `games`, `checkpoint_every` and `eval.every`.
macro_rules! game_run_config {
    ($config:ty) => {
        impl $crate::game_runs::GameRunConfig for $config {
            fn plan(&self) -> $crate::game_runs::RunPlan {
                let (seed, games, checkpoint_every) = (self.seed, self.games, self.checkpoint_every);
                $crate::game_runs::RunPlan { seed, games, eval_every: self.eval.every, checkpoint_every }
            }
        }
    };
}
pub(crate) use game_run_config;
