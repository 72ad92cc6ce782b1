//! Expectimax search over a one-player game of chance whose moves lead to
//! afterstates (2048 and games like it): the player picks a move, the move
//! leads deterministically to an afterstate and a reward, then chance
//! turns the afterstate into the next position.
//!
//! [`Expectimax`] looks `depth` moves ahead: depth 1 picks the move with
//! the largest reward + V(afterstate), the greedy afterstate play of TD
//! learning; each further level averages over every chance outcome of an
//! afterstate (weighted by its probability) the best of the moves that
//! follow. Leaves are afterstates valued by the caller's function, so the
//! search is generic over the value function (an n-tuple network, a
//! neural network, a heuristic).
//!
//! - [`ChanceGame`]: what a game tells the search (its legal moves and
//!   afterstates, the chance outcomes of an afterstate).
//! - [`ExpectimaxConfig`]: the depth, the probability below which a chance
//!   node is valued as a leaf, the transposition table's size.
//! - Scratch for every level and the transposition table are allocated
//!   once, in [`Expectimax::new`]: a search allocates nothing.
//!
//! A chain where the greedy move walks into a trap that chance springs
//! half the time:
//!
//! ```
//! use minnow_rl::expectimax::{ChanceGame, Expectimax, ExpectimaxConfig, Move, Outcome};
//!
//! /// States 0..=3. From 0: move 0 earns 1 and leads to afterstate 1, move 1
//! /// earns 0 and leads to afterstate 2. Afterstate 1 becomes 3 (no move
//! /// left) or 0 with probability 1/2 each; afterstate 2 becomes 0.
//! struct Trap;
//! impl ChanceGame for Trap {
//!     type State = u8;
//!     const MAX_MOVES: usize = 2;
//!     const MAX_OUTCOMES: usize = 2;
//!     fn moves(&self, s: u8, out: &mut [Move<u8>]) -> usize {
//!         if s != 0 { return 0; }
//!         out[0] = Move { action: 0, after: 1, reward: 1.0 };
//!         out[1] = Move { action: 1, after: 2, reward: 0.0 };
//!         2
//!     }
//!     fn outcomes(&self, after: u8, out: &mut [Outcome<u8>]) -> usize {
//!         if after == 1 {
//!             out[0] = Outcome { probability: 0.5, state: 3 };
//!             out[1] = Outcome { probability: 0.5, state: 0 };
//!             2
//!         } else {
//!             out[0] = Outcome { probability: 1.0, state: 0 };
//!             1
//!         }
//!     }
//! }
//! // Every afterstate looks worth 10 to a value function that cannot see the trap.
//! let value = |_: u8| 10.0;
//! let mut greedy = Expectimax::new::<Trap>(&ExpectimaxConfig::default()).unwrap();
//! assert_eq!(greedy.best_move(&Trap, 0, &value).unwrap().action, 0);
//! let config = ExpectimaxConfig { depth: 2, ..ExpectimaxConfig::default() };
//! let mut search = Expectimax::new::<Trap>(&config).unwrap();
//! assert_eq!(search.best_move(&Trap, 0, &value).unwrap().action, 1);
//! ```

mod game;
mod search;
mod table;

pub use game::{ChanceGame, Move, Outcome};
pub use search::{Expectimax, ExpectimaxConfig, MAX_DEPTH, SearchCounts};
