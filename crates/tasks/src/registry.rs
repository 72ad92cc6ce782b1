//! The shipped tasks, by name: what `cargo xtask train` offers.

use crate::alphazero::AlphaZero;
use crate::backgammon::TdBackgammon;
use crate::digits::Digits;
use minnow_train::Registry;

/// The task a bare `cargo xtask train` runs.
pub const DEFAULT_TASK: &str = "logic-ca";

/// Every shipped task, in the order `train list` shows them.
pub fn registry() -> Registry {
    Registry::new()
        .with(Digits::MLP)
        .with(Digits::CNN)
        .with(Digits::LSTM)
        .with(AlphaZero::CONNECT4)
        .with(AlphaZero::BACKGAMMON)
        .with(TdBackgammon)
        .with_default(DEFAULT_TASK)
}
