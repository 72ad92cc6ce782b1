use crate::Shape;

/// What a caller can get wrong with shapes. Every variant names the op and
/// the shapes involved; building one never allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorError {
    /// Two operands whose shapes must agree do not.
    #[error("{op}: shapes {lhs} and {rhs} do not match")]
    ShapeMismatch {
        /// The op.
        op: &'static str,
        /// The shape it expected (or its first operand's).
        lhs: Shape,
        /// The shape it found.
        rhs: Shape,
    },
    /// An operand of the wrong rank.
    #[error("{op}: expected a rank-{expected} tensor, found shape {found}")]
    Rank {
        /// The op.
        op: &'static str,
        /// The rank it needs.
        expected: usize,
        /// The shape it found.
        found: Shape,
    },
    /// More dimensions than a [`Shape`] holds.
    #[error("shape {dims_prefix:?}... has rank {rank}, more than the maximum of {max}", max = crate::MAX_RANK)]
    RankTooHigh {
        /// The rank asked for.
        rank: usize,
        /// Its first dimensions.
        dims_prefix: [usize; crate::MAX_RANK],
    },
    /// Data whose length does not fill the shape.
    #[error("{op}: {len} values cannot fill shape {shape} ({numel} elements)")]
    DataLength {
        /// The op.
        op: &'static str,
        /// The shape.
        shape: Shape,
        /// The elements it has.
        numel: usize,
        /// The values given.
        len: usize,
    },
    /// A shape whose element count overflows `usize`.
    #[error("{op}: shape {shape} has {numel} elements, which overflows")]
    TooLarge {
        /// The op.
        op: &'static str,
        /// The shape (its dimensions as far as they fit).
        shape: Shape,
        /// The element count.
        numel: u128,
    },
}
