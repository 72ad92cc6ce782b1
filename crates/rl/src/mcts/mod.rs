//! AlphaZero-style Monte Carlo tree search over any [`Game`](minnow_envs::Game).
//!
//! - [`Search`]: one tree in preallocated arenas (nodes, edges with the
//!   legal actions cached, game states), PUCT selection with network
//!   priors and values, chance nodes ([`ChanceMode`]), Dirichlet noise at
//!   the root, subtree reuse between moves, virtual loss so one tree can
//!   queue several leaves per evaluation; optionally a Gumbel root with
//!   sequential halving for small budgets (`gumbel_considered`).
//! - [`LeafBatch`] and [`search_batched`]: many trees' leaves evaluated in
//!   one call of an [`Evaluator`].
//! - Evaluators: [`NetEvaluator`] (a `PolicyValueNet` snapshot, one
//!   batched inference pass), [`RolloutEvaluator`] (uniform priors, random
//!   playouts: the classic MCTS baseline), [`UniformEvaluator`].
//!
//! Values in the tree are kept from player 0's view, so the same backup
//! serves alternating moves, repeated moves by one player (a backgammon
//! turn) and dice. After construction a simulation allocates nothing.

mod backup;
mod batch;
mod config;
mod descent;
pub mod dirichlet;
mod evaluator;
mod gumbel;
mod locate;
mod network;
mod policy;
mod search;
mod tree;

pub use batch::{LeafBatch, search_batched};
pub use config::{ChanceMode, Inference, MctsConfig, check_temperature};
pub(crate) use evaluator::sample_index;
pub use evaluator::{Evaluator, RolloutEvaluator, UniformEvaluator, final_value};
pub use network::{NetEvaluator, check_network};
pub use search::Search;
