use thiserror::Error;

/// What a caller can get wrong when driving an environment. Every variant
/// names the environment, what was expected and what was found; none
/// allocates.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum EnvError {
    /// An action index past the action count.
    #[error("{env}: action {action} is out of range 0..{action_count}")]
    ActionOutOfRange {
        /// The environment.
        env: &'static str,
        /// The action given.
        action: usize,
        /// Actions the environment has.
        action_count: usize,
    },
    /// An action the current state does not allow.
    #[error("{env}: action {action} is illegal in this state; the legal-action mask is {legal:#b}")]
    IllegalAction {
        /// The environment.
        env: &'static str,
        /// The action given.
        action: usize,
        /// Bitmask of the legal actions.
        legal: u64,
    },
    /// A step after the episode ended.
    #[error("{env}: the episode is over (done or truncated); call reset before stepping again")]
    EpisodeOver {
        /// The environment.
        env: &'static str,
    },
    /// A move the position does not allow.
    #[error("{game}: action {action} is not legal in this position")]
    IllegalMove {
        /// The game.
        game: &'static str,
        /// The action given.
        action: usize,
    },
    /// A player move at a chance node, or a chance outcome at a player's turn.
    #[error("{game}: expected {expected}, but the game state is {found}")]
    WrongTurn {
        /// The game.
        game: &'static str,
        /// What was expected.
        expected: &'static str,
        /// What was found.
        found: &'static str,
    },
    /// A chance outcome past the node's outcomes.
    #[error("{game}: chance outcome {outcome} is out of range 0..{outcomes}")]
    OutcomeOutOfRange {
        /// The game.
        game: &'static str,
        /// The outcome given.
        outcome: usize,
        /// Outcomes the chance node has.
        outcomes: usize,
    },
    /// A die value outside 1 to 6.
    #[error("{game}: a die shows {die}, expected 1 to 6")]
    InvalidDie {
        /// The game.
        game: &'static str,
        /// The die value.
        die: u8,
    },
    /// A side without exactly 15 checkers.
    #[error("{game}: player {player} has {found} checkers on the points, the bar and off, expected 15")]
    CheckerCount {
        /// The game.
        game: &'static str,
        /// The player.
        player: usize,
        /// What was found.
        found: u32,
    },
    /// A position the rules cannot reach.
    #[error("{game}: invalid position: {problem}")]
    InvalidPosition {
        /// The game.
        game: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
    /// A size an environment or game declares out of range.
    #[error("{env}: {what} is {found}, expected {expected}")]
    InvalidSize {
        /// The environment or game.
        env: &'static str,
        /// The trait item that declares it.
        what: &'static str,
        /// The size declared.
        found: usize,
        /// The range it must lie in.
        expected: &'static str,
    },
    /// An `observe` that left part of its buffer unwritten (the buffer is
    /// reused, so the rest would hold stale values).
    #[error("{env}: {method} wrote {written} of {expected} values; it must write every value of the buffer")]
    PartialObservation {
        /// The environment or game.
        env: &'static str,
        /// The trait method.
        method: &'static str,
        /// Values it wrote.
        written: usize,
        /// Values the observation has.
        expected: usize,
    },
    /// No legal action where the state says one is due.
    #[error("{env}: {method}: no legal action in {state}")]
    NoLegalAction {
        /// The environment or game.
        env: &'static str,
        /// The trait method.
        method: &'static str,
        /// The state it was called in, and the method that says so.
        state: &'static str,
    },
    /// Legal actions past what the environment or game declares.
    #[error("{env}: {method} {what} {found}, past {bound} = {count}")]
    LegalPastBound {
        /// The environment or game.
        env: &'static str,
        /// The trait method.
        method: &'static str,
        /// What it gave (a mask bit, an action, a count).
        what: &'static str,
        /// The value it gave.
        found: usize,
        /// The trait item that bounds it.
        bound: &'static str,
        /// The bound.
        count: usize,
    },
    /// A config value out of range, from the workspace's one check
    /// (`minnow_config::Check`).
    #[error(transparent)]
    Config(#[from] minnow_config::ConfigError),
    /// A cube state index past the number of states.
    #[error("cube2: state index {index} is out of range 0..{count}")]
    StateIndexOutOfRange {
        /// The position in the input (0-based).
        index: u64,
        /// How many there are.
        count: u64,
    },
    /// A distance larger than the cube's diameter.
    #[error("cube2: optimal distance {distance} does not exist; distances run from 0 to {diameter}")]
    DistanceOutOfRange {
        /// The distance asked for.
        distance: usize,
        /// The largest distance there is.
        diameter: usize,
    },
    /// A 2048 cell that holds no tile value.
    #[error("2048: cell {cell} holds {value}, expected 0 or a power of two from 2 to 32768")]
    InvalidTile {
        /// The cell (0-15, row by row).
        cell: usize,
        /// The value it holds.
        value: u32,
    },
}
