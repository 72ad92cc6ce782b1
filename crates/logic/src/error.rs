/// What a caller can get wrong: wiring that cannot be built, a grid or a
/// configuration out of range, data of the wrong size, a diverging loss;
/// and what the system can refuse (the trainer's threads).
#[derive(Debug, thiserror::Error)]
pub enum LogicError {
    #[error(
        "layer {layer}: unique wiring of {outputs} gates cannot read all {inputs} inputs \
         (expected 2 * outputs >= inputs)"
    )]
    /// A layer whose "unique" wiring cannot give every input a reader.
    UniqueWiring {
        /// The layer.
        layer: LayerName,
        /// Values the layer reads.
        inputs: usize,
        /// Gates in the layer (each reads two inputs).
        outputs: usize,
    },
    #[error("layer {layer}: expected {expected}, found {found}")]
    /// A layer of the wrong number of gates.
    LayerWidth {
        /// The layer.
        layer: LayerName,
        /// The width it needs, in words.
        expected: &'static str,
        /// Its width, in gates.
        found: usize,
    },
    #[error("grid: expected at least 3x3 cells, found {height}x{width}")]
    /// A grid smaller than one 3x3 neighbourhood.
    GridTooSmall {
        /// Rows of the grid.
        height: usize,
        /// Columns of the grid.
        width: usize,
    },
    /// A count, size or value in a config (or an input) out of its range,
    /// from the workspace's one check (`minnow_config::Check`).
    #[error(transparent)]
    Config(#[from] minnow_config::ConfigError),
    #[error("{what}: expected {expected} values, found {found}")]
    /// A buffer of the wrong length.
    DataLength {
        /// The buffer: `SoftRollout target`.
        what: &'static str,
        /// The length it needs, in values.
        expected: usize,
        /// Its length, in values.
        found: usize,
    },
    #[error("training step {step}: the soft loss is not finite ({loss})")]
    /// A training step whose soft loss came out NaN or infinite; the
    /// parameters were not updated from it.
    NonFiniteLoss {
        /// The step (counting from 1).
        step: usize,
        /// The loss it computed.
        loss: f32,
    },
    /// A config file that does not parse, or names a key the config does
    /// not have (the source names it by its path).
    #[error("CheckerboardConfig JSON")]
    ConfigFile(#[source] serde_json::Error),
    /// The trainer's worker threads could not be started.
    #[error("cannot start the trainer's worker threads")]
    WorkerThreads(#[source] std::io::Error),
    /// An optimiser config out of range, or a gradient it refused (NaN
    /// or infinite, naming the parameter).
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    /// An error of the autodiff tape (a [`GateLayer`](crate::GateLayer) on it).
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
}

/// A layer of a circuit, for error messages: `update.3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerName {
    /// The part of the circuit: `perception`, `update`.
    pub part: &'static str,
    /// The layer's index within its part, from 0.
    pub index: usize,
}

impl LayerName {
    /// Layer `index` of `part`.
    pub const fn new(part: &'static str, index: usize) -> Self {
        Self { part, index }
    }
}

impl std::fmt::Display for LayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.part, self.index)
    }
}

/// A result whose error is a [`LogicError`].
pub type Result<T, E = LogicError> = std::result::Result<T, E>;
