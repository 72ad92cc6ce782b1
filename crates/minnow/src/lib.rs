//! minnow: small neural networks trained fast on CPUs.
//!
//! The one crate a program depends on. It re-exports the layered crates
//! under short names, the random-number types every seeded call takes,
//! and one [`Error`] that every fallible call converts into with `?`.
//!
//! ```toml
//! [dependencies]
//! minnow = { path = "../minnow/crates/minnow" }
//!
//! # minnow's kernels are 20-30x slower unoptimised: optimise the
//! # dependencies even in debug builds.
//! [profile.dev.package."*"]
//! opt-level = 3
//! ```
//!
//! | module | crate | what it owns |
//! |---|---|---|
//! | [`nn`] | `minnow-nn` | layers from configs, `Forward`, `Sequential`, losses, checkpoints, datasets |
//! | [`optim`] | `minnow-optim` | SGD, Adam, AdamW, RMSprop, AdaGrad, clipping, schedules |
//! | [`autodiff`] | `minnow-autodiff` | the tape, `Params`, custom ops, gradient checks |
//! | [`train`] | `minnow-train` | the `Run` trait and its driver: cadence, resume, metrics |
//! | [`envs`] | `minnow-envs` (feature `rl`) | `Env` and `Game`, the shipped environments and games |
//! | [`rl`] | `minnow-rl` (feature `rl`) | replay, DQN, MCTS, AlphaZero self-play, n-tuple and TD agents |
//! | `tasks` | `minnow-tasks` (feature `tasks`) | the shipped tasks: their registry, presets and evaluations |
//! | `cli` | `minnow-cli` (feature `cli`) | the command line of a task registry, for a program's own tasks |
//! | [`logic`] | `minnow-logic` (feature `logic`) | soft logic-gate cellular automata, hard circuits |
//! | `dist` | `minnow-dist` (feature `mpi`) | training across MPI processes |
//! | [`kernels`], [`tensor`], [`arena`] | | SIMD kernels, shapes, aligned memory |

mod error;

pub use error::{Error, Result};
pub use minnow_arena as arena;
pub use minnow_autodiff as autodiff;
#[cfg(feature = "cli")]
pub use minnow_cli as cli;
pub use minnow_config as config;
#[cfg(feature = "mpi")]
pub use minnow_dist as dist;
#[cfg(feature = "rl")]
pub use minnow_envs as envs;
pub use minnow_kernels as kernels;
#[cfg(feature = "logic")]
pub use minnow_logic as logic;
pub use minnow_nn as nn;
pub use minnow_optim as optim;
#[cfg(feature = "rl")]
pub use minnow_rl as rl;
#[cfg(feature = "tasks")]
pub use minnow_tasks as tasks;
pub use minnow_tensor as tensor;
pub use minnow_train as train;
/// The random-number traits (`SeedableRng`, `Rng`) seeded calls use.
pub use rand;
/// The generator minnow seeds everywhere: `Pcg64Mcg::seed_from_u64(seed)`.
pub use rand_pcg::Pcg64Mcg;

/// What most programs import: `use minnow::prelude::*;`.
pub mod prelude {
    pub use crate::nn::{Forward, Graph, MlpConfig, Params, Predict, Tape, Var};
    pub use crate::optim::{AdamConfig, Optimizer};
    pub use crate::{Error, Pcg64Mcg, Result};
    pub use rand::SeedableRng;
}
