use minnow_tensor::{Shape, TensorError};

/// What a caller can get wrong when building or running a graph.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// Shapes that do not fit the op (both are named).
    #[error(transparent)]
    Shape(#[from] TensorError),
    /// A class label, action or embedding index past its bound.
    #[error("{op}: index {index} out of range for {bound}")]
    IndexOutOfRange {
        /// The op.
        op: &'static str,
        /// The index given.
        index: u32,
        /// The number of valid indices.
        bound: usize,
    },
    /// Not one index per row.
    #[error("{op}: expected {expected} indices, found {found}")]
    IndexCount {
        /// The op.
        op: &'static str,
        /// Rows of the input.
        expected: usize,
        /// Indices given.
        found: usize,
    },
    /// A NaN or infinite loss: training has diverged.
    #[error("the loss is not finite ({value}); refusing to backpropagate it")]
    NonFiniteLoss {
        /// The loss.
        value: f32,
    },
    /// `backward` from a node of more than one element.
    #[error("backward needs a scalar loss, found shape {shape}")]
    NotScalar {
        /// The node's shape.
        shape: Shape,
    },
    /// Two parameters or buffers added under one name.
    #[error("a parameter or buffer named '{name}' already exists")]
    DuplicateParam {
        /// The name.
        name: String,
    },
    /// Two stores that should share a layout (online and target
    /// networks, a snapshot) do not.
    #[error("parameter layouts differ: {detail}")]
    LayoutMismatch {
        /// The first difference.
        detail: String,
    },
    /// More than [`MAX_BORROWED`](crate::MAX_BORROWED) borrowed inputs in one graph.
    #[error("Graph::input_ref: a graph borrows at most {max} caller buffers; copy the rest with Graph::input")]
    TooManyBorrowed {
        /// The limit.
        max: usize,
    },
    /// A batch with no rows or a sequence with no steps.
    #[error("data: {op}: input {shape} has no rows or no time steps")]
    EmptyInput {
        /// The op or layer.
        op: &'static str,
        /// The input's shape.
        shape: Shape,
    },
    /// An op's setting out of range (a stride, a dropout rate, a delta).
    #[error("invalid configuration: {0}")]
    Config(String),
}

/// The graph's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
