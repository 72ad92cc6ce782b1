//! The shipped tasks, by name: what `cargo xtask train` offers.

use crate::alphazero::AlphaZero;
use crate::backgammon::TdBackgammon;
use crate::cube_solver::CubeSolver;
use crate::digits::Digits;
use crate::dqn::DqnTask;
use crate::logic_ca::LogicCa;
use crate::ntuple::NTuple2048;
use crate::{CartPoleDqn, CubeDqn, Game2048Dqn};
use minnow_train::Registry;

/// The task a bare `cargo xtask train` runs.
pub const DEFAULT_TASK: &str = "logic-ca";

/// Every shipped task, in the order `train list` shows them.
pub fn registry() -> Registry {
    Registry::new()
        .with(Digits::MLP)
        .with(Digits::CNN)
        .with(Digits::LSTM)
        .with(LogicCa)
        .with(DqnTask::<CubeDqn>::new())
        .with(DqnTask::<Game2048Dqn>::new())
        .with(NTuple2048)
        .with(CubeSolver)
        .with(DqnTask::<CartPoleDqn>::new())
        .with(AlphaZero::CONNECT4)
        .with(AlphaZero::BACKGAMMON)
        .with(TdBackgammon)
        .with_default(DEFAULT_TASK)
}
