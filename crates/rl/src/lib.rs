//! Reinforcement learning for minnow. So far, the replay machinery a DQN
//! learner draws its minibatches from:
//!
//! - [`ReplayBuffer`]: a preallocated ring of transitions, struct of
//!   arrays, sampled uniformly into a caller's [`Batch`].
//! - [`SumTree`] and [`PrioritizedReplay`]: proportional prioritized replay
//!   with stratified sampling, beta annealing and importance weights.
//! - [`NStep`]: n-step returns (n = 1..=5), correct at terminal states and
//!   at time-limit truncations.
//! - [`EpsilonSchedule`]: linear and exponential exploration schedules.
//! - [`SavedState`]: every piece above saved as named flat `f32` arrays and
//!   JSON metadata (see [`state`]), for checkpoints that resume exactly.
//! - [`ntuple`]: n-tuple networks (sums of lookup tables over cell
//!   patterns) learned by TD(0) on afterstates, with sparse updates.
//!
//! After construction, pushing, sampling and updating priorities allocate
//! nothing. Every random draw comes from a generator the caller passes in.

pub mod afterstate;
pub mod alphazero;
mod batch;
pub mod dqn;
mod epsilon;
mod error;
pub mod mcts;
mod n_step;
pub mod ntuple;
mod prioritized;
pub mod puzzle;
mod replay;
pub mod state;
mod sum_tree;
mod transition;

pub use batch::Batch;
pub use epsilon::EpsilonSchedule;
pub(crate) use error::Check;
pub use error::{Result, RlError};
pub use n_step::{MAX_N, NStep, NStepConfig, Step};
pub use prioritized::{PrioritizedConfig, PrioritizedReplay};
pub use replay::{ReplayBuffer, ReplayConfig, Sampling, StoredTransition};
pub use state::{SavedArray, SavedState, StateSource, restore_rng, save_rng};
pub use sum_tree::SumTree;
pub use transition::{Transition, TransitionSink};
