//! TD(lambda) self-play on afterstates, the TD-Gammon method: a value
//! network rates the position left after each candidate move (the
//! afterstate, before the chance event), each side plays the move whose
//! afterstate it rates best, and after every game each afterstate's
//! rating moves towards the lambda-return of the ratings that followed it
//! (the last one towards the game's result).
//!
//! - [`AfterstateGame`]: what a two-player game with chance between turns
//!   supplies: its decisions' afterstates, their encoding, its results.
//! - [`ValueNet`]: one hidden layer, sigmoid outputs (probabilities of
//!   outcome events), a forward pass that skips zero inputs.
//! - [`TdLambda`]: plays a game against itself and learns from it.
//! - [`Searcher`]: picks a move by the network alone (1-ply) or by a
//!   2-ply expectimax over the chance outcomes with candidate pruning.
//!
//! The outputs are probabilities of events from the view of the player
//! who just moved (for instance win, and win by a larger margin); the game
//! says how they turn into one number to maximise ([`AfterstateGame::equity`])
//! and how they read from the other side ([`AfterstateGame::flip`]).
//! Equity must be zero-sum: `equity(flip(v)) == -equity(v)`.

mod learner;
mod network;
mod search;

pub use learner::{GameStats, TdLambda, TdLambdaConfig};
pub use network::ValueNet;
pub use search::Searcher;

/// A two-player game played as whole decisions, with a chance event after
/// each (dice), whose afterstates a value network can rate.
pub trait AfterstateGame {
    /// A game state: at a decision, or an afterstate (after a decision,
    /// before the chance event).
    type State: Copy;
    /// Inputs of the value network.
    const FEATURES: usize;
    /// Outputs of the value network: probabilities of outcome events,
    /// from the view of the player who just moved.
    const OUTPUTS: usize;
    /// The most chance outcomes after a decision.
    const MAX_CHANCES: usize;

    /// A new game from `seed`, at its first decision.
    fn start(&self, seed: u64) -> Self::State;

    /// The player (0 or 1) who decides at `state`.
    fn mover(&self, state: &Self::State) -> usize;

    /// Every distinct afterstate of the decision at `state` into `out`
    /// (cleared first; at least one).
    fn afterstates(&mut self, state: &Self::State, out: &mut Vec<Self::State>);

    /// If the game ended with the afterstate `after` (reached by `mover`'s
    /// decision), writes its result as the outputs should read
    /// (`OUTPUTS` values, `mover`'s view) and returns true.
    fn result(&self, after: &Self::State, mover: usize, out: &mut [f32]) -> bool;

    /// The network's inputs (`FEATURES` values) for the afterstate `after`
    /// of `mover`'s decision, from `mover`'s view.
    fn encode(&self, after: &Self::State, mover: usize, out: &mut [f32]);

    /// The chance outcomes after `after` (a game not over): their
    /// probabilities into `out`, returning how many.
    fn chances(&self, after: &Self::State, out: &mut [f32]) -> usize;

    /// The next decision after chance outcome `outcome` of `after`.
    fn decision(&self, after: &Self::State, outcome: usize) -> Self::State;

    /// The number `mover` maximises, from outputs in `mover`'s view.
    fn equity(outputs: &[f32]) -> f32;

    /// Outputs from one player's view turned into the other's.
    fn flip(outputs: &mut [f32]);
}
