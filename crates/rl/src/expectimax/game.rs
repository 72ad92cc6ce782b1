//! What a game of chance with afterstates tells the search.

/// One legal move: its action, the afterstate it leads to and its reward.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Move<S> {
    /// The action's index in the game's own numbering.
    pub action: usize,
    /// The state after the move, before chance.
    pub after: S,
    /// The move's reward.
    pub reward: f32,
}

/// One outcome of chance from an afterstate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome<S> {
    /// Its probability; an afterstate's outcomes sum to 1.
    pub probability: f32,
    /// The position the player moves from next.
    pub state: S,
}

/// A one-player game in which every move leads deterministically to an
/// afterstate and a reward, and chance then turns the afterstate into the
/// next position. States are small values (a 2048 board is one `u64`);
/// the transposition table keeps them and hashes them with `Hash`.
pub trait ChanceGame {
    /// A position or an afterstate.
    type State: Copy + Default + PartialEq + std::hash::Hash;
    /// The most legal moves a position has.
    const MAX_MOVES: usize;
    /// The most chance outcomes an afterstate has.
    const MAX_OUTCOMES: usize;

    /// Writes the legal moves of `state` into `out` (`MAX_MOVES` long), in
    /// the order ties are broken (the first best move is chosen), and
    /// returns how many; 0 when the game is over.
    fn moves(&self, state: Self::State, out: &mut [Move<Self::State>]) -> usize;

    /// Writes the chance outcomes of `after` into `out` (`MAX_OUTCOMES`
    /// long), every one with a probability above 0, summing to 1, and
    /// returns how many (at least 1).
    fn outcomes(&self, after: Self::State, out: &mut [Outcome<Self::State>]) -> usize;
}
