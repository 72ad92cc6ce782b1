//! The task's whole config: training, the search the solver runs, and the
//! evaluations.

use super::{CubeSolverError, Result};
use minnow_optim::Check;
use minnow_rl::puzzle::{CostToGoConfig, SearchConfig, TargetRule, ValueIterationConfig};
use serde::{Deserialize, Serialize};

/// Training, search and evaluation of `cube-solver`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubeSolverConfig {
    /// Value iteration: the network, the walks, the schedule, the seed.
    pub training: ValueIterationConfig,
    /// Weighted A*: what `solve cube` runs unless told otherwise.
    pub search: SearchConfig,
    /// The evaluations' sizes and cadence.
    pub eval: CubeEvalConfig,
}

/// How often and on how many positions the cost-to-go is judged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubeEvalConfig {
    /// Training steps between evaluations.
    pub every: u64,
    /// Training steps between checkpoints.
    pub checkpoint_every: u64,
    /// Positions per distance at each evaluation during training.
    pub during: usize,
    /// Positions per distance in the final evaluation.
    pub last: usize,
    /// Seed of the evaluation positions.
    pub seed: u64,
}

impl Default for CubeSolverConfig {
    fn default() -> Self {
        Self {
            training: ValueIterationConfig {
                net: CostToGoConfig { hidden: 512, width: 256, blocks: 2 },
                batch_size: 500,
                // Past 14 moves (the diameter) a walk's end is close to
                // uniform over the cube; the shorter walks teach the ends near
                // the goal that everything else bootstraps from.
                max_scramble: 20,
                steps: 14_000,
                lr: 1e-3,
                final_lr: 1e-4,
                target: TargetRule { check_every: 50, loss_below: 0.05, max_age: 200 },
                seed: 1,
            },
            // Batches of 4 expand about as many nodes as 1 at distance 14 and
            // far fewer than 32 near the goal (every batch expands whole).
            // Lambda 0.6 left distance 10 10.4% above optimal; 1.0 expands
            // about 3x as much at distance 14 as 0.8 (docs/notebook/cube-solver.md).
            search: SearchConfig { lambda: 0.8, batch: 4 },
            eval: CubeEvalConfig { every: 1000, checkpoint_every: 1000, during: 200, last: 1000, seed: 2024 },
        }
    }
}

impl CubeSolverConfig {
    /// An error naming the first key out of range.
    pub fn validate(&self) -> Result<()> {
        self.training.validate().map_err(|source| CubeSolverError::Config { section: "training", source })?;
        self.search.validate().map_err(|source| CubeSolverError::Config { section: "search", source })?;
        let (e, check) = (&self.eval, Check("eval"));
        for (key, value) in [
            ("every", e.every),
            ("checkpoint_every", e.checkpoint_every),
            ("during", e.during as u64),
            ("last", e.last as u64),
        ] {
            check.count_in(key, "at least 1", value, 1, u64::MAX)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_out_of_range_are_named_by_their_path() {
        let mut config = CubeSolverConfig::default();
        config.eval.last = 0;
        assert_eq!(config.validate().unwrap_err().to_string(), "eval.last: expected at least 1, found 0");
        config = CubeSolverConfig::default();
        config.training.batch_size = 0;
        let err = config.validate().unwrap_err();
        let source = std::error::Error::source(&err).map(|s| s.to_string()).unwrap_or_default();
        assert!(err.to_string() == "training" && source.contains("batch_size"), "{err}: {source}");
        assert!(CubeSolverConfig::default().validate().is_ok());
    }
}
