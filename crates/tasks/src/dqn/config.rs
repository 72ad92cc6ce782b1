//! A DQN task's config: the learner's, the environment's and the
//! evaluations' settings, and the checks that refuse what could not train.

use minnow_optim::Check;
use minnow_rl::dqn::DqnConfig;
use serde::{Deserialize, Serialize};

/// A DQN task's whole config, `C` the environment's.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DqnTaskConfig<C> {
    /// The learner, the step budget and the cadences.
    pub dqn: DqnConfig,
    /// The environment.
    pub env: C,
    /// The greedy evaluations.
    pub eval: DqnEvalConfig,
    /// Supervised steps (batches of 256) from the exact BFS values before
    /// reinforcement learning starts; cube only, 0 (the default) for RL alone.
    #[serde(default)]
    pub pretrain_steps: u64,
}

/// The greedy evaluations during and after training.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DqnEvalConfig {
    /// Positions per distance (cube) or games (2048, CartPole) at each
    /// evaluation during training.
    pub during: usize,
    /// The same in the final evaluation.
    pub last: usize,
    /// Seeds the evaluation positions or games (the same at every one).
    pub seed: u64,
}

/// What may change on a resume: the step budget, the cadences, the
/// thread count (results are identical on any count) and the evaluations.
pub(crate) const FREE_ON_RESUME: [&str; 5] =
    ["dqn.env_steps", "dqn.eval_every", "dqn.checkpoint_every", "dqn.threads", "eval"];

impl DqnEvalConfig {
    /// Refuses an evaluation of nothing, which would report a mean of no
    /// values.
    pub(crate) fn validate(&self, task: &'static str) -> Result<(), minnow_config::ConfigError> {
        for (field, value) in [("eval.during", self.during), ("eval.last", self.last)] {
            if value == 0 {
                return Err(Check(task).count(field, "at least 1 episode or position", 0));
            }
        }
        Ok(())
    }
}
