//! AlphaZero-style self-play learning for any [`Game`](minnow_envs::Game):
//!
//! - [`SelfPlayWorker`]: many games in lock step on one thread, their
//!   search leaves evaluated together by a network snapshot; positions
//!   (observation, visit distribution, final outcome) go to a
//!   [`PositionReplay`].
//! - [`Trainer`]: `PolicyValueNet` + Adam on policy cross-entropy and
//!   value MSE.
//! - [`AzRun`]: iterations of self-play threads overlapped with training,
//!   snapshots swapped at the barrier, evaluation matches; a
//!   [`minnow_train::Run`], so `minnow_train::drive` trains it with
//!   atomic run checkpoints and exact resume.
//! - Distributed self-play ([`Learner`] on rank 0,
//!   [`play_for_learner`] on every other rank of an MPI job): actors play
//!   with the snapshot of one version ago and send their positions to the
//!   learner each iteration, at the configured replay ratio.
//! - [`AzAgent`]: a saved run's network, read back for evaluation or play.
//! - [`League`]: every snapshot rated as the run goes (Bradley-Terry
//!   Elo over every game against earlier snapshots and the fixed
//!   opponents, random at 0), the best-rated one kept.
//! - [`Yardstick`]: a task's own fixed opponent, played at every
//!   evaluation of a run and rated with the others (az-backgammon:
//!   pubeval).
//! - [`eval`]: players (network MCTS, random-rollout MCTS, random, any
//!   closure), seeded matches over both colours, Wilson 95% intervals.

mod actors;
mod agent;
mod config;
mod driver;
pub mod eval;
mod league;
mod learner;
pub mod ratings;
mod replay;
mod round;
mod run;
mod self_play;
mod trainer;
mod yardstick;

pub use actors::{ActorReport, play_for_learner};
pub use agent::AzAgent;
pub use config::{AzConfig, EvalConfig, NetworkConfig, SelfPlayConfig, TrainingConfig};
pub use driver::{BEST_FILE, EVAL_SEED, task_name};
pub use eval::{
    BySeat, FnPlayer, MatchResult, MctsPlayer, Player, PolicyPlayer, RandomPlayer, Ticking, play_from, play_game,
    play_match, play_match_from, random_opening, reset_start, rollout_player, spread_games, wilson,
};
pub use league::{EloReport, League, Rated};
pub use learner::Learner;
pub use replay::{PositionReplay, Positions};
pub use run::{AzRun, EvalReport, IterationReport, Totals, evaluate_snapshot, net_player};
pub use self_play::{SelfPlayStats, SelfPlayWorker};
pub use trainer::{TrainLoss, Trainer, network_config};
pub use yardstick::{Yardstick, YardstickMetrics, YardstickReport};
