use thiserror::Error;

/// What a caller can get wrong when driving an environment. Every variant
/// names the environment, what was expected and what was found; none
/// allocates.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum EnvError {
    #[error("{env}: action {action} is out of range 0..{action_count}")]
    ActionOutOfRange { env: &'static str, action: usize, action_count: usize },
    #[error("{env}: action {action} is illegal in this state; the legal-action mask is {legal:#b}")]
    IllegalAction { env: &'static str, action: usize, legal: u64 },
    #[error("{env}: the episode is over (done or truncated); call reset before stepping again")]
    EpisodeOver { env: &'static str },
    #[error("{game}: action {action} is not legal in this position")]
    IllegalMove { game: &'static str, action: usize },
    #[error("{game}: expected {expected}, but the game state is {found}")]
    WrongTurn { game: &'static str, expected: &'static str, found: &'static str },
    #[error("{game}: chance outcome {outcome} is out of range 0..{outcomes}")]
    OutcomeOutOfRange { game: &'static str, outcome: usize, outcomes: usize },
    #[error("{game}: a die shows {die}, expected 1 to 6")]
    InvalidDie { game: &'static str, die: u8 },
    #[error("{game}: player {player} has {found} checkers on the points, the bar and off, expected 15")]
    CheckerCount { game: &'static str, player: usize, found: u32 },
    #[error("{game}: invalid position: {problem}")]
    InvalidPosition { game: &'static str, problem: &'static str },
    #[error("{env} config: {field} must be {expected}, found {found}")]
    InvalidConfig { env: &'static str, field: &'static str, expected: &'static str, found: f64 },
    #[error("cube2: state index {index} is out of range 0..{count}")]
    StateIndexOutOfRange { index: u64, count: u64 },
    #[error("cube2: optimal distance {distance} does not exist; distances run from 0 to {diameter}")]
    DistanceOutOfRange { distance: usize, diameter: usize },
    #[error("2048: cell {cell} holds {value}, expected 0 or a power of two from 2 to 32768")]
    InvalidTile { cell: usize, value: u32 },
}
