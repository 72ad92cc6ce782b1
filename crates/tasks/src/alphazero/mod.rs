//! The AlphaZero tasks, `az-connect4` and `az-backgammon` ([`AlphaZero`]),
//! and their final suites, which `cargo xtask eval` runs on any saved
//! agent: [`connect4_suite`] (Pons' test positions, matches against
//! random and rollout MCTS) and [`backgammon_suite`] (the network alone
//! and MCTS against pubeval, in points).

mod backgammon_suite;
mod connect4_suite;
mod elo;
mod task;
mod value_chooser;

pub use backgammon_suite::{
    BackgammonReport, NETWORK_VS_PUBEVAL, PUBEVAL, PUBEVAL_GAMES, backgammon_suite, network_metrics,
    network_vs_pubeval, pubeval_yardstick,
};
pub use connect4_suite::{Connect4Report, PonsRow, connect4_suite, pons_dir};
pub(crate) use elo::elo_summary;
/// Seed of the evaluation matches (the library's, whose runs evaluate
/// with it during training): fixed, so every evaluation plays the same
/// games. The final suites play from `EVAL_SEED ^ 1`.
pub use minnow_rl::alphazero::EVAL_SEED;
pub use task::AlphaZero;
pub use value_chooser::ValueChooser;

use minnow_optim::Check;
use minnow_rl::RlError;
use minnow_rl::alphazero::AzConfig;

/// The final suite plays `eval.final_games` games a match: none would
/// average nothing.
pub fn check_final_games(config: &AzConfig) -> Result<(), RlError> {
    match config.eval.final_games {
        0 => Err(Check("eval").count("final_games", "at least 1", 0).into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_final_suite_of_no_games_is_refused_naming_the_key() {
        let mut config = crate::alphazero_presets::connect4();
        assert!(super::check_final_games(&config).is_ok());
        config.eval.final_games = 0;
        let err = super::check_final_games(&config).unwrap_err().to_string();
        assert_eq!(err, "eval.final_games: expected at least 1, found 0");
    }
}
