//! minnow-nn's error: what a caller can get wrong when building layers,
//! reading checkpoints and loading data. Graph errors from running a layer
//! stay [`minnow_autodiff::Error`]s and convert with `?`.

use minnow_tensor::Shape;

/// What went wrong in minnow-nn, with the name, path, line or key to fix.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NnError {
    /// An op on the graph refused its inputs.
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
    /// A layer config out of range: `layer` is the name the layer was built
    /// under (or its type), `detail` what was expected and found.
    #[error("invalid configuration: {layer}: {detail}")]
    Config {
        /// The layer's name or type.
        layer: String,
        /// What was expected and what was found.
        detail: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {detail}")]
    Io {
        /// The file or directory.
        path: String,
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
        /// The operating system's message.
        detail: String,
    },
    /// The bytes are not a safetensors checkpoint of f32 and U8 tensors.
    #[error("not a readable checkpoint: {detail}")]
    CorruptCheckpoint {
        /// What the decoder found.
        detail: String,
    },
    /// A tensor holds NaN or an infinity: refused when writing (the last
    /// good checkpoint stays) and when reading.
    #[error("checkpoint: tensor '{name}' holds a non-finite value ({value} at index {index})")]
    NonFinite {
        /// The tensor's full name.
        name: String,
        /// Where the first non-finite value is, flat.
        index: usize,
        /// The value.
        value: f32,
    },
    /// The model has a tensor the checkpoint lacks (another architecture).
    #[error("checkpoint: tensor '{name}' is missing (another architecture?)")]
    MissingTensor {
        /// The tensor's full name.
        name: String,
    },
    /// A tensor of the checkpoint has another shape than the model's.
    #[error("checkpoint: tensor '{name}' has shape {found}, the model expects {expected}")]
    TensorShape {
        /// The tensor's full name.
        name: String,
        /// The model's shape.
        expected: Shape,
        /// The checkpoint's shape.
        found: Shape,
    },
    /// A tensor of the checkpoint holds another dtype than the reader needs.
    #[error("checkpoint: tensor '{name}' holds {found} values, expected {expected}")]
    TensorDtype {
        /// The tensor's full name.
        name: String,
        /// The dtype the reader needs.
        expected: &'static str,
        /// The checkpoint's dtype.
        found: &'static str,
    },
    /// A saved tensor or buffer of the wrong length.
    #[error("checkpoint: '{name}' has {found} values, the model expects {expected}")]
    TensorLength {
        /// The tensor's full name.
        name: String,
        /// The model's length.
        expected: usize,
        /// The saved length.
        found: usize,
    },
    /// A metadata key the reader needs is absent.
    #[error("checkpoint: metadata '{key}' is missing")]
    MissingMeta {
        /// The metadata key.
        key: String,
    },
    /// Saved state (a JSON blob in the metadata) does not parse.
    #[error("checkpoint: {what}: {detail}")]
    BadState {
        /// Whose state.
        what: &'static str,
        /// The parser's message.
        detail: String,
    },
    /// A value of a data file does not parse or is out of range.
    #[error("data: line {line}, column {column}: {detail}")]
    BadValue {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was expected and found.
        detail: String,
    },
    /// A data file or dataset of the wrong layout.
    #[error("data: {0}")]
    Data(String),
}

/// minnow-nn's result.
pub type Result<T, E = NnError> = std::result::Result<T, E>;

impl NnError {
    /// An I/O failure at `path`.
    pub(crate) fn io(path: &std::path::Path, e: &std::io::Error) -> Self {
        NnError::Io { path: path.display().to_string(), kind: e.kind(), detail: e.to_string() }
    }
}
