//! The shipped environments of `minnow-envs` as reinforcement-learning
//! tasks, on the generic machinery of `minnow-rl`:
//!
//! - DQN adapters: [`CubeDqn`] (a curriculum on the scramble depth, the
//!   cube's moves as a model, its 48 symmetric views), [`Game2048Dqn`]
//!   (afterstates, the board's 8 views) and [`CartPoleDqn`] (success is
//!   balancing to the time limit). Each wraps its environment and
//!   implements `minnow-rl`'s [`DqnEnv`](minnow_rl::dqn::DqnEnv) and
//!   capability traits. [`Game2048Chance`] is 2048's moves and spawns for
//!   `minnow-rl`'s expectimax search.
//! - [`presets`]: the tuned DQN configs of `cargo xtask train dqn-*`;
//!   [`alphazero_presets`]: the tuned AlphaZero configs of connect four
//!   and backgammon.
//! - [`pretrain_cube`]: supervised pretraining from the cube's exact
//!   distances.
//! - [`eval`]: the task evaluations (cube positions by true distance,
//!   seeded 2048 games).
//! - [`alphazero`], [`backgammon`]: the tasks `az-connect4`,
//!   `az-backgammon` and `td-backgammon` with their final suites (Pons'
//!   test positions; matches against pubeval scored in points).
//!
//! Above this crate, `xtask` presents the tasks; below it, `minnow-rl`
//! names no environment.
//!
//! The cube's model agrees with turning the cube:
//!
//! ```
//! use minnow_envs::{Cube2, Cube2Config, Env};
//! use minnow_rl::dqn::DqnEnv;
//! use minnow_tasks::CubeDqn;
//!
//! let mut env = CubeDqn(Cube2::new(Cube2Config { scramble_depth: 3, ..Cube2Config::default() })?);
//! env.reset(7);
//! let mut obs = vec![0.0; env.observation_size()];
//! env.observe(&mut obs);
//! let (mut next, mut rewards, mut terminal) = (vec![0.0; 6 * obs.len()], [0.0; 6], [0.0; 6]);
//! env.model().expect("the cube has a model").successors(&obs, &mut next, &mut rewards, &mut terminal)?;
//! env.step(2)?;
//! env.observe(&mut obs);
//! assert_eq!(&next[2 * obs.len()..3 * obs.len()], &obs[..]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod alphazero;
pub mod alphazero_presets;
pub mod backgammon;
mod cartpole;
mod cube;
pub mod cube_solver;
pub mod data;
pub mod digits;
pub mod dqn;
pub mod eval;
mod game2048;
mod game2048_chance;
pub mod game_runs;
pub mod logic_ca;
pub mod ntuple;
pub mod presets;
mod pretrain;
pub mod rate;
mod registry;
mod wrap;

pub use cartpole::CartPoleDqn;
pub use cube::CubeDqn;
pub use game2048::Game2048Dqn;
pub use game2048_chance::Game2048Chance;
pub use pretrain::pretrain_cube;
pub use registry::{DEFAULT_TASK, registry};

/// The unit tests that count allocations (a player after warm-up) need it.
#[cfg(test)]
#[global_allocator]
static ALLOC: minnow_arena::CountingAlloc = minnow_arena::CountingAlloc;
