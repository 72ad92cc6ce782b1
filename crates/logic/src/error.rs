/// What a caller can get wrong: wiring that cannot be built, a grid or a
/// configuration out of range, data of the wrong size, a checkpoint of
/// another run, a diverging loss.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LogicError {
    #[error(
        "layer {layer}: unique wiring of {outputs} gates cannot read all {inputs} inputs \
         (expected 2 * outputs >= inputs)"
    )]
    UniqueWiring { layer: LayerName, inputs: usize, outputs: usize },
    #[error("layer {layer}: expected {expected}, found {found}")]
    LayerWidth { layer: LayerName, expected: &'static str, found: usize },
    #[error("grid: expected at least 3x3 cells, found {height}x{width}")]
    GridTooSmall { height: usize, width: usize },
    #[error("{config}.{field}: expected {expected}, found {found}")]
    InvalidCount { config: &'static str, field: &'static str, expected: &'static str, found: usize },
    #[error("{config}.{field}: expected {expected}, found {found}")]
    InvalidValue { config: &'static str, field: &'static str, expected: &'static str, found: f32 },
    #[error("{what}: expected {expected} values, found {found}")]
    DataLength { what: &'static str, expected: usize, found: usize },
    #[error("training step {step}: the soft loss is not finite ({loss})")]
    NonFiniteLoss { step: usize, loss: f32 },
    #[error("config: {0}")]
    Config(String),
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    #[error("worker threads: {0}")]
    ThreadPool(String),
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
}

/// A layer of a circuit, for error messages: `update.3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerName {
    pub part: &'static str,
    pub index: usize,
}

impl LayerName {
    pub const fn new(part: &'static str, index: usize) -> Self {
        Self { part, index }
    }
}

impl std::fmt::Display for LayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.part, self.index)
    }
}

pub type Result<T, E = LogicError> = std::result::Result<T, E>;
