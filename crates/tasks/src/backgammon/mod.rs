//! Backgammon judged against pubeval, and `td-backgammon`, TD-Gammon's
//! method: a value network rates whole-turn afterstates
//! ([`BackgammonTurns`]: 198 inputs, 5 outcome probabilities), both sides
//! of each self-play game play the play it rates best, and after each
//! game every afterstate learns towards its TD(lambda) return.
//!
//! - [`WholeTurnPlayer`] plays a [`ChoosePlay`]'s whole plays as the
//!   game's micro-actions; pubeval and [`TdChooser`] (the network, 1-ply
//!   or 2-ply) choose.
//! - [`points_match`]: seeded matches scored in points, gammons counted.
//! - [`TdBackgammon`]: the task; [`td_suite`] its final evaluation (also
//!   `cargo xtask eval td-backgammon` on any checkpoint, [`load`]).
//! - [`gnubg_judge`]: any chooser's equity loss against GNU Backgammon
//!   0-ply on positions from gnubg's self-play (gnubg run as a
//!   subprocess).

pub mod gnubg_judge;
mod points_match;
mod task;
mod td_config;
mod td_player;
mod td_run;
mod td_suite;
mod turns;
mod whole_turn;

pub use points_match::{PointsResult, points_match};
pub use task::{TD_BACKGAMMON, TdBackgammon};
pub use td_config::{TdBackgammonConfig, TdEvalConfig};
pub use td_player::TdChooser;
pub use td_run::{Saved, WEIGHTS, load};
pub use td_suite::{EVAL_SEED, TdJudged, TdReport, td_judged, td_suite, vs_pubeval};
pub use turns::{BackgammonTurns, FEATURES, OUTPUTS};
pub(crate) use whole_turn::no_play;
pub use whole_turn::{ChoosePlay, WholeTurnPlayer, pubeval_player};
