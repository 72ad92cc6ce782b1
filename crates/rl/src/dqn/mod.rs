//! DQN: a Q network learned from replayed experience (Mnih et al. 2015),
//! with the extensions that matter on small tasks: double Q-learning,
//! a dueling head, n-step returns, prioritized replay, LayerNorm, Polyak
//! or hard target updates, gradient clipping, vectorised environments and
//! a curriculum. Where the environment offers it: learning every action
//! from a model (`all_actions`), acting on afterstate values (2048), and
//! evaluating on Q averaged over symmetric views (the cube's 48).
//!
//! - [`DqnConfig`]: every hyperparameter, validated, serde.
//! - [`DqnLearner`]: networks, Adam and replay; one allocation-free update.
//! - [`DqnRun`]: the acting loop over `num_envs` environments ([`DqnEnv`]).
//! - [`eval`]: greedy evaluations (cube by true distance, 2048 games).
//! - [`DqnRun::save`] / [`DqnRun::resume`]: checkpoints that continue exactly.

mod afterstates;
mod checkpoint;
mod config;
mod curriculum;
pub mod eval;
mod learner;
mod memory;
mod network;
mod presets;
mod pretrain;
mod run;
mod symmetric;
mod task;

pub use config::{DqnConfig, PerEnvEpsilon, TargetUpdate};
pub use curriculum::{Curriculum, CurriculumConfig};
pub use learner::{DqnLearner, UpdateStats};
pub use memory::Memory;
pub use network::{QNetwork, masked_argmax};
pub use pretrain::pretrain_cube;
pub use run::{CURRICULUM_EPSILON, DqnRun, RECENT_EPISODES, RecentEpisodes};
pub use task::DqnEnv;
