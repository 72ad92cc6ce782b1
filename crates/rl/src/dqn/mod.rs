//! DQN: a Q network learned from replayed experience (Mnih et al. 2015),
//! with the extensions that matter on small tasks: double Q-learning,
//! a dueling head, n-step returns, prioritized replay, LayerNorm, Polyak
//! or hard target updates, gradient clipping, vectorised environments and
//! a curriculum. Where the environment offers the capability: learning
//! every action from its model (`all_actions`, [`EnvModel`]), acting on
//! afterstate values ([`AfterstateModel`]), and evaluating on Q averaged
//! over symmetric views ([`Symmetries`]).
//!
//! - [`DqnConfig`]: every hyperparameter, validated, serde.
//! - [`DqnLearner`]: networks, Adam and replay; one allocation-free update.
//! - [`DqnRun`]: the acting loop over `num_envs` environments ([`DqnEnv`]).
//! - [`eval::play_greedy`]: batched greedy play, what evaluations build on.
//! - [`DqnRun::save`] / [`DqnRun::resume`]: checkpoints that continue exactly.
//! - [`DqnRun::step_sharded`]: data-parallel learning over the ranks of a
//!   `minnow_dist::Collective` (an MPI job), each rank the gradient of its
//!   shard of every batch ([`Shards`]).
//!
//! No environment is named here: the shipped tasks' adapters, presets and
//! evaluations live in `minnow-tasks`.

mod afterstates;
mod checkpoint;
mod config;
mod curriculum;
mod env;
pub mod eval;
mod learner;
mod memory;
mod network;
mod run;
mod running;
mod shards;
mod symmetric;

pub use config::{DqnConfig, PerEnvEpsilon, TargetUpdate};
pub use curriculum::{Curriculum, CurriculumConfig};
pub use env::{AfterstateModel, DqnEnv, EnvModel, Symmetries};
pub use learner::{DqnLearner, UpdateStats};
pub use memory::{Memory, MemoryConfig};
pub use network::{QNetwork, QNetworkConfig, masked_argmax};
pub use run::{CURRICULUM_EPSILON, DqnRun, RECENT_EPISODES, RecentEpisodes};
pub use shards::Shards;
