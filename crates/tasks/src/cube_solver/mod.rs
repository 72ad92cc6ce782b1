//! `cube-solver`: a cost-to-go network for the 2x2x2 cube trained by
//! approximate value iteration over random scrambles (no oracle labels),
//! then weighted A* guided by it. Training is a [`Run`](minnow_train::Run)
//! (checkpoints, exact resume) judged against the exact BFS distances, a
//! test oracle only; the same tables judge a saved solver
//! (`cargo xtask solve cube --evaluate`) and the shipped agent's card.
//!
//! ```
//! use minnow_tasks::cube_solver::{format_moves, parse_scramble};
//!
//! let moves = parse_scramble("R U F' U2")?;
//! assert_eq!(format_moves(&moves), "R U F' U U");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod config;
mod error;
mod eval;
mod puzzle;
mod run;
mod solver;
mod tables;
mod task;

pub use config::{CubeEvalConfig, CubeSolverConfig};
pub use error::CubeSolverError;
pub use eval::{DIAMETER, GreedyRow, SolverRow, greedy_table, median, solver_table, value_errors};
pub use puzzle::{Cube, ScrambleError, format_moves, parse_scramble};
pub use run::SolverRun;
pub use solver::{Solved, Solver, load, random_positions};
pub use tables::{greedy_text, solver_text, value_errors_text};
pub use task::CubeSolver;

/// The result of the solver's functions.
pub type Result<T, E = CubeSolverError> = std::result::Result<T, E>;
