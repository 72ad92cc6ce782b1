//! Puzzles solved by search guided by a learned cost-to-go, the way
//! DeepCubeA solves the Rubik's cube (Agostinelli et al. 2019):
//!
//! - [`Puzzle`]: a deterministic single-agent problem with unit-cost moves
//!   closed under inverse, a goal state and a dense index of its states.
//! - [`CostToGo`]: a residual MLP `J(s)`, the estimated moves to the goal.
//! - [`ValueIteration`]: trains `J` by approximate value iteration over
//!   random walks from the goal, `y(s) = min_a 1 + J_target(a(s))`, with
//!   no labels from any oracle.
//! - [`WeightedAStar`]: batched weighted A* with `f = lambda g + h`, every
//!   expansion's children scored in one batched call of a [`Heuristic`].
//! - [`BidirectionalBfs`]: the blind baseline the heuristic must beat.
//! - [`greedy_solve`]: the one-step greedy policy `argmin_a J(a(s))`.
//!
//! - [`AdjacentSwaps`]: a small puzzle with known distances, for tests.
//!
//! Searches allocate their tables once; a search then allocates nothing.
//!
//! ```
//! use minnow_rl::puzzle::{AdjacentSwaps, Puzzle, SearchConfig, WeightedAStar};
//!
//! let puzzle = AdjacentSwaps::new(5).unwrap();
//! let start = puzzle.apply(puzzle.apply(puzzle.goal(), 0), 2);
//! let mut search = WeightedAStar::new(&puzzle, SearchConfig { lambda: 1.0, batch: 1 }).unwrap();
//! // Exact distances as the heuristic: A* finds an optimal solution.
//! let mut exact = |s| puzzle.distance(s) as f32;
//! let solution = search.solve(&puzzle, &mut exact, start).unwrap();
//! assert_eq!(solution.length, 2);
//! ```

mod adjacent_swaps;
mod astar;
mod bidirectional;
mod checkpoint;
mod cost_to_go;
mod greedy;
mod heuristic;
mod value_iteration;

pub use adjacent_swaps::{AdjacentSwaps, Arrangement};
pub use astar::{SearchConfig, Solution, WeightedAStar};
pub use bidirectional::BidirectionalBfs;
pub use checkpoint::load_cost_to_go;
pub use cost_to_go::{CostToGo, CostToGoConfig, LearnedHeuristic};
pub use greedy::{greedy_move, greedy_solve};
pub use heuristic::Heuristic;
pub use value_iteration::{TargetRule, ValueIteration, ValueIterationConfig, ValueIterationStats, bellman_targets};

/// A deterministic puzzle: every move costs 1, every move has an inverse
/// among the moves (so a random walk from the goal ends at most that many
/// moves from it, and the goal's predecessors are its successors), and the
/// states are numbered densely by [`Puzzle::index`].
pub trait Puzzle {
    /// Names the puzzle in checkpoints.
    const NAME: &'static str;
    /// A position, small enough to copy.
    type State: Copy + PartialEq + std::fmt::Debug;

    /// Moves `0..moves()`, all legal in every state.
    fn moves(&self) -> usize;
    /// The state `action` leads to from `state`.
    fn apply(&self, state: Self::State, action: usize) -> Self::State;
    /// The move that undoes `action`.
    fn inverse(&self, action: usize) -> usize;
    /// The goal random walks start from.
    fn goal(&self) -> Self::State;
    /// Whether `state` is solved.
    fn is_goal(&self, state: Self::State) -> bool;
    /// The number of states: [`Puzzle::index`] is below it.
    fn state_count(&self) -> usize;
    /// `state`'s dense number, below [`Puzzle::state_count`].
    fn index(&self, state: Self::State) -> usize;
    /// Floats in the network's input encoding of a state.
    fn observation_size(&self) -> usize;
    /// Writes the network's input encoding of `state` into `out`.
    fn observe(&self, state: Self::State, out: &mut [f32]);
}
