//! What training, evaluating or running the cube solver can fail with.

use minnow_config::ConfigError;
use minnow_envs::EnvError;
use minnow_rl::RlError;
use std::path::PathBuf;

/// A cube-solver failure, its cause kept as its source.
#[derive(Debug, thiserror::Error)]
pub enum CubeSolverError {
    /// A `training` or `search` key out of range, by its section.
    #[error("{section}")]
    Config {
        /// `training` or `search`.
        section: &'static str,
        /// The key and its range.
        source: RlError,
    },
    /// An `eval` key out of range.
    #[error(transparent)]
    Eval(#[from] ConfigError),
    /// The learner or the search.
    #[error(transparent)]
    Rl(#[from] RlError),
    /// The exact distances (a distance off the cube).
    #[error(transparent)]
    Env(#[from] EnvError),
    /// A scramble that does not parse.
    #[error(transparent)]
    Scramble(#[from] crate::cube_solver::ScrambleError),
    /// No checkpoint to solve with.
    #[error("no checkpoint at {}; train one with `cargo xtask train cube-solver`", path.display())]
    NoCheckpoint {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A checkpoint that holds no cube cost-to-go.
    #[error("{}: not a cube-solver checkpoint", path.display())]
    NotASolver {
        /// The checkpoint.
        path: PathBuf,
        /// What is wrong with it.
        source: RlError,
    },
    /// Blind search and the exact distances disagree: one of them is broken.
    #[error("bidirectional BFS found {found} moves where the oracle says {optimal}")]
    BfsDisagrees {
        /// The length bidirectional BFS found.
        found: usize,
        /// The exact distance.
        optimal: usize,
    },
}
