//! Workload definitions, one file per family.

pub mod az;
pub mod conv;
pub mod dqn;
pub mod elementwise;
pub mod envs;
pub mod games;
pub mod gemm;
pub mod logic_ca;
pub mod lstm;
pub mod mcts;
pub mod memory;
pub mod peak;

/// What a workload's training step can fail with: a graph op or the
/// optimiser, both converted by `?`.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    /// A graph op failed.
    #[error(transparent)]
    Graph(#[from] minnow_autodiff::Error),
    /// The optimiser failed.
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
}

/// A workload step's result.
pub type StepResult<T> = Result<T, StepError>;

/// Deterministic pseudo-random values in [-1, 1) for benchmark inputs.
pub fn filled(len: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}
