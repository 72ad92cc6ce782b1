use crate::Shape;

/// What a caller can get wrong with shapes. Every variant names the op and
/// the shapes involved; building one never allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorError {
    #[error("{op}: shapes {lhs} and {rhs} do not match")]
    ShapeMismatch { op: &'static str, lhs: Shape, rhs: Shape },
    #[error("{op}: expected a rank-{expected} tensor, found shape {found}")]
    Rank { op: &'static str, expected: usize, found: Shape },
    #[error("shape {dims_prefix:?}... has rank {rank}, more than the maximum of {max}", max = crate::MAX_RANK)]
    RankTooHigh { rank: usize, dims_prefix: [usize; crate::MAX_RANK] },
    #[error("{op}: {len} values cannot fill shape {shape} ({numel} elements)")]
    DataLength { op: &'static str, shape: Shape, numel: usize, len: usize },
    #[error("{op}: shape {shape} has {numel} elements, which overflows")]
    TooLarge { op: &'static str, shape: Shape, numel: u128 },
}
