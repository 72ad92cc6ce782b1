//! What every run whose step is one training game shares, whatever the
//! game (td-backgammon's TD(lambda) self-play, ntuple-2048's TD(0)):
//! each game's seed and the games a metrics line averages, the
//! statistics a line averages and a checkpoint carries, and the run the
//! driver sees. A task brings its config and a `GameLearner` that plays
//! and learns from one game; `GameRun` does the rest.

mod config;
mod games;
mod learner;
mod run;
mod tallies;
#[cfg(test)]
pub(crate) mod testing;

pub(crate) use config::{GameRunConfig, RunPlan, game_run_config};
pub use games::{ends_line, game_seed, games_per_line};
pub(crate) use learner::GameLearner;
pub(crate) use run::GameRun;
pub(crate) use tallies::{Count, Tallies};
