use minnow_tensor::{Shape, TensorError};

/// What a caller can get wrong when building or running a graph.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Shape(#[from] TensorError),
    #[error("{op}: index {index} out of range for {bound}")]
    IndexOutOfRange { op: &'static str, index: u32, bound: usize },
    #[error("{op}: expected {expected} indices, found {found}")]
    IndexCount { op: &'static str, expected: usize, found: usize },
    #[error("the loss is not finite ({value}); refusing to backpropagate it")]
    NonFiniteLoss { value: f32 },
    #[error("backward needs a scalar loss, found shape {shape}")]
    NotScalar { shape: Shape },
    #[error("a parameter named '{name}' already exists")]
    DuplicateParam { name: String },
    #[error("parameter layouts differ: {detail}")]
    LayoutMismatch { detail: String },
    #[error("Graph::input_ref: a graph borrows at most {max} caller buffers; copy the rest with Graph::input")]
    TooManyBorrowed { max: usize },
    #[error("invalid configuration: {0}")]
    Config(String),
}

/// The graph's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
