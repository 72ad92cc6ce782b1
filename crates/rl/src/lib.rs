//! Reinforcement learning for minnow, generic over the environment and game
//! traits of `minnow-envs`. The DQN code names no particular environment:
//! an environment says what it offers through traits ([`dqn::DqnEnv`] and
//! its capabilities [`dqn::EnvModel`], [`dqn::AfterstateModel`],
//! [`dqn::Symmetries`]), and the shipped tasks' adapters, presets,
//! pretraining and evaluations live in `minnow-tasks`, above this crate.
//!
//! - [`dqn`]: deep Q-learning (double, dueling, n-step, prioritized replay,
//!   target networks, an environment model's all-action targets,
//!   curriculum, evaluation, exact checkpoints).
//! - [`mcts`] and [`alphazero`]: Monte Carlo tree search (PUCT, batched
//!   leaf evaluation, chance nodes, a Gumbel root, an MCTS-solver) and
//!   AlphaZero-style self-play training of a policy-value network.
//! - [`afterstate`]: TD(λ) on afterstate values (TD-Gammon), with 1-ply
//!   and 2-ply search; [`ntuple`]: n-tuple networks learned by TD(0);
//!   [`expectimax`]: depth-limited expectimax over games of chance with
//!   afterstates (2048), generic over the afterstate value function.
//! - [`puzzle`]: search for single-agent puzzles (batched weighted A*,
//!   bidirectional BFS) and a cost-to-go learned by value iteration.
//! - The replay machinery underneath: [`ReplayBuffer`], [`SumTree`] and
//!   [`PrioritizedReplay`], [`NStep`] returns, and [`SavedState`] for
//!   checkpoints that resume exactly. Exploration rates and other decays
//!   are [`minnow_optim::Schedule`]s.
//!
//! After construction, stepping, searching, pushing and sampling allocate
//! nothing. Every random draw comes from a generator the caller passes in.
//!
//! MCTS finds tic-tac-toe's winning move (X holds 0 and 1, so 2 wins):
//!
//! ```
//! use minnow_envs::TicTacToe;
//! use minnow_rl::mcts::{MctsConfig, Search, UniformEvaluator};
//! use rand::SeedableRng;
//!
//! let game = TicTacToe::from_moves(&[0, 3, 1, 4])?;
//! let config = MctsConfig { simulations: 400, dirichlet_fraction: 0.0, ..MctsConfig::default() };
//! let mut search = Search::new(&config, &game)?;
//! let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
//! search.run(&mut UniformEvaluator, false, &mut rng)?;
//! assert_eq!(search.choose_action(0.0, &mut rng)?, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod afterstate;
pub mod alphazero;
mod batch;
pub mod dqn;
mod error;
pub mod expectimax;
pub mod mcts;
mod n_step;
pub mod ntuple;
mod prioritized;
pub mod puzzle;
mod replay;
mod splitmix;
pub mod state;
mod sum_tree;
mod transition;

pub use batch::Batch;
pub use error::{Result, RlError};
pub(crate) use minnow_config::Check;
pub use n_step::{MAX_N, NStep, NStepConfig, Step};
pub use prioritized::{PrioritizedConfig, PrioritizedReplay};
pub use replay::{ReplayBuffer, ReplayConfig, Sampling};
pub use splitmix::splitmix;
pub use state::{SavedArray, SavedState, StateSource, restore_rng, save_rng};
pub use sum_tree::SumTree;
pub use transition::{Transition, TransitionSink};
