//! Environments for reinforcement learning, each behind the [`Env`] trait:
//! the 2x2x2 cube with an exact distance table and optimal-move oracle
//! ([`cube2`]), 2048 ([`game2048`]) and CartPole ([`cartpole`]); and
//! two-player games for self-play search behind the [`Game`] trait:
//! tic-tac-toe with an exact minimax solver ([`tictactoe`]), connect four
//! on bitboards ([`connect4`]) and backgammon with dice as chance nodes and
//! pgx's 156 single-die micro-actions ([`backgammon`]).
//!
//! States are plain data (cloning copies a few dozen bytes), observations
//! are written into the caller's buffer, and stepping allocates nothing.
//! Every random draw comes from a `rand_pcg` generator seeded by `reset`.
//!
//! Writing your own: the traits default what most environments share
//! (every action legal while the episode runs; no chance nodes), and
//! [`check_action`] / [`check_player_turn`] make the common checks of a
//! step or a move. A learner checks the promises an implementation makes
//! ([`observe_checked`], [`legal_mask_checked`] and their `Game` twins):
//! an observation value left unwritten or no legal action in a running
//! episode is an error naming the trait method, not a silent fault.
//!
//! ```
//! use minnow_envs::{CartPole, CartPoleConfig, Env};
//!
//! let mut env = CartPole::new(CartPoleConfig::default())?;
//! env.reset(7);
//! let mut obs = vec![0.0; env.observation_size()];
//! let mut steps = 0;
//! while !env.is_over() {
//!     env.observe(&mut obs);
//!     // Push the cart the way the pole leans and turns.
//!     let step = env.step(if obs[2] + obs[3] > 0.0 { 1 } else { 0 })?;
//!     steps += 1;
//!     assert_eq!(step.reward, 1.0);
//! }
//! assert!(steps > 100, "the lean-following policy balances for a while");
//! # Ok::<(), minnow_envs::EnvError>(())
//! ```

#![warn(missing_docs)]

pub mod backgammon;
pub mod cartpole;
pub mod connect4;
mod contract;
pub mod cube2;
mod env;
mod error;
mod game;
pub mod game2048;
mod line_game;
pub mod tictactoe;

pub use backgammon::{Backgammon, BackgammonConfig};
pub use cartpole::{CartPole, CartPoleConfig};
pub use connect4::ConnectFour;
pub use contract::{
    UNWRITTEN, check_env_sizes, check_game_sizes, game_legal_actions_checked, game_observe_checked, legal_mask_checked,
    observe_checked,
};
pub use cube2::{Cube2, Cube2Config, CubeDistances, CubeState};
pub use env::{Env, MAX_EPISODE_STEPS, Step, check_action};
pub use error::EnvError;
pub use game::{Game, Turn, check_player_turn};
pub use game2048::{Board, BoardEncoding, Game2048, Game2048Config};
pub use tictactoe::TicTacToe;
