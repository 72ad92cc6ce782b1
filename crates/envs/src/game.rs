use crate::EnvError;

/// Whose decision a game state waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Player 0 or 1 chooses one of [`Game::legal_actions`].
    Player(usize),
    /// Nature draws one of [`Game::chance_outcomes`] (the dice).
    Chance,
    /// The game is over; [`Game::outcome`] holds the result.
    Over,
}

/// A two-player, zero-sum game with perfect information and optional
/// chance nodes, as self-play search sees it.
///
/// Like [`crate::Env`], a game's whole state is plain data: `clone` is a
/// cheap copy and two clones given the same actions and outcomes stay
/// identical. Nothing here allocates. A player may move several times in a
/// row (a backgammon turn is up to four micro-actions); search must ask
/// [`Game::turn`] after every action rather than assume alternation.
pub trait Game: Clone {
    /// A short name for messages and benchmarks (`"connect4"`).
    const NAME: &'static str;
    /// Size of the fixed action space; actions are `0..ACTIONS`.
    const ACTIONS: usize;
    /// At most this many actions are legal at once (the length
    /// [`Game::legal_actions`] needs); by default all of them.
    const MAX_LEGAL: usize = Self::ACTIONS;
    /// At most this many chance outcomes exist at a chance node; by
    /// default none (a game without chance). A game with chance nodes
    /// must set it.
    const MAX_OUTCOMES: usize = 0;
    /// Length of the buffer [`Game::observe`] writes.
    const OBSERVATION_SIZE: usize;

    /// Puts the game in its start position; any randomness of the start
    /// (who opens, an opening roll) comes from `seed`.
    fn reset(&mut self, seed: u64);

    /// Whose turn it is: a player's, chance's, or the game is over.
    fn turn(&self) -> Turn;

    /// Writes the legal actions (ascending) into `out[..n]` and returns
    /// `n`; `out` must hold at least [`Game::MAX_LEGAL`] entries. At least
    /// one when a player is to move; zero when the game is over or at a
    /// chance node.
    fn legal_actions(&self, out: &mut [u16]) -> usize;

    /// Plays `action` for the player to move: an error, with the state
    /// unchanged, if it is out of range, illegal, or it is not a player's turn.
    fn apply(&mut self, action: usize) -> Result<(), EnvError>;

    /// At a chance node, writes the probability of each outcome into
    /// `out[..n]` (they sum to 1) and returns `n`; zero elsewhere. By
    /// default zero: a game without chance nodes.
    fn chance_outcomes(&self, out: &mut [f32]) -> usize {
        let _ = out;
        0
    }

    /// Resolves a chance node with outcome `outcome` (an index into
    /// [`Game::chance_outcomes`]): an error, state unchanged, anywhere
    /// else. By default always that error: a game without chance nodes.
    fn apply_chance(&mut self, outcome: usize) -> Result<(), EnvError> {
        let _ = outcome;
        Err(not_a_chance_node(self))
    }

    /// The final result for `player` (+1 win, 0 draw, -1 loss; games with
    /// larger stakes may return more), or `None` while the game runs.
    fn outcome(&self, player: usize) -> Option<f32>;

    /// The most points one game can be won by (backgammon: 3, a
    /// backgammon).
    const MAX_POINTS: f32 = 1.0;

    /// The points `player` won (negative: lost) under the game's full
    /// scoring, whatever rules [`Game::outcome`] follows (backgammon: a
    /// gammon counts 2), or `None` while the game runs. By default the
    /// outcome.
    fn points(&self, player: usize) -> Option<f32> {
        self.outcome(player)
    }

    /// Encodes the state from the view of the player to move into every
    /// value of `out` (exactly [`Game::OBSERVATION_SIZE`] values), so one
    /// network serves both sides.
    fn observe(&self, out: &mut [f32]);

    /// Whether [`Game::mirror`] is a symmetry of the game (training can
    /// then learn from every position and its mirror image).
    const MIRRORED: bool = false;

    /// Maps a training sample onto its mirror image in place: `obs` an
    /// observation, `policy` a distribution over the actions. The game's
    /// rules must be invariant under it, so the mirrored position has the
    /// same value. Does nothing unless [`Game::MIRRORED`].
    fn mirror(_obs: &mut [f32], _policy: &mut [f32]) {}
}

/// How a [`Turn`] reads in an [`EnvError::WrongTurn`] message.
pub(crate) fn turn_name(turn: Turn) -> &'static str {
    match turn {
        Turn::Player(0) => "player 0 to move",
        Turn::Player(_) => "player 1 to move",
        Turn::Chance => "a chance node",
        Turn::Over => "the game over",
    }
}

/// Checks the preconditions of [`Game::apply`] that every game shares: a
/// player is to move and `action` is in `0..G::ACTIONS`. An `apply` can
/// begin with it and check only whether the move is legal here.
pub fn check_player_turn<G: Game>(game: &G, action: usize) -> Result<(), EnvError> {
    match game.turn() {
        Turn::Player(_) => {}
        found => {
            return Err(EnvError::WrongTurn { game: G::NAME, expected: "a player to move", found: turn_name(found) });
        }
    }
    if action >= G::ACTIONS {
        return Err(EnvError::ActionOutOfRange { env: G::NAME, action, action_count: G::ACTIONS });
    }
    Ok(())
}

/// The error of [`Game::apply_chance`] away from a chance node.
pub(crate) fn not_a_chance_node<G: Game>(game: &G) -> EnvError {
    EnvError::WrongTurn { game: G::NAME, expected: "a chance node", found: turn_name(game.turn()) }
}
