//! Built-in ops: one file per family, each holding the forward methods on
//! [`Graph`](crate::Graph) and the backward rules beside them.

mod activation;
pub(crate) mod columns;
mod dropout;
mod elementwise;
mod embedding;
mod gelu;
mod index;
mod linear;
mod loss;
mod norm;
pub(crate) mod recurrent;
mod reduce;
mod reshape;
pub(crate) mod spatial;

use crate::custom::CustomId;
use crate::tape::{Graph, Op};

/// What a recorded op was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    Linear,
    LinearRelu,
    MatMul,
    Add,
    AddRelu,
    Sub,
    Mul,
    Scale,
    Copy,
    Relu,
    LeakyRelu,
    Sigmoid,
    Tanh,
    Softmax,
    LogSoftmax,
    LayerNorm,
    LayerNormRelu,
    GatherCols,
    Sum,
    Mean,
    Dueling,
    Mse,
    Huber,
    BceWithLogits,
    CrossEntropy,
    SoftCrossEntropy,
    /// GELU (gelu.rs).
    Gelu,
    /// Saves the scaled keep mask (dropout.rs).
    Dropout,
    /// Row gather; the indices go to the tape's index store (embedding.rs).
    Embedding,
    /// A new shape over the same values (reshape.rs).
    Reshape,
    /// Images: convolution, pooling, batch normalisation (spatial.rs).
    Spatial(spatial::Kind),
    /// Column slices, concatenation and time steps (columns.rs).
    Columns(columns::Kind),
    /// One step of a recurrent cell (recurrent.rs).
    Recurrent(recurrent::Kind),
    Custom(CustomId),
}

impl OpKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            OpKind::Linear => "linear",
            OpKind::LinearRelu => "linear+relu",
            OpKind::MatMul => "matmul",
            OpKind::Add => "add",
            OpKind::AddRelu => "add+relu",
            OpKind::Sub => "sub",
            OpKind::Mul => "mul",
            OpKind::Scale => "scale",
            OpKind::Copy => "copy",
            OpKind::Relu => "relu",
            OpKind::LeakyRelu => "leaky_relu",
            OpKind::Sigmoid => "sigmoid",
            OpKind::Tanh => "tanh",
            OpKind::Softmax => "softmax",
            OpKind::LogSoftmax => "log_softmax",
            OpKind::LayerNorm => "layer_norm",
            OpKind::LayerNormRelu => "layer_norm+relu",
            OpKind::GatherCols => "gather_cols",
            OpKind::Sum => "sum",
            OpKind::Mean => "mean",
            OpKind::Dueling => "dueling",
            OpKind::Mse => "mse",
            OpKind::Huber => "huber",
            OpKind::BceWithLogits => "bce_with_logits",
            OpKind::CrossEntropy => "cross_entropy",
            OpKind::SoftCrossEntropy => "soft_cross_entropy",
            OpKind::Gelu => "gelu",
            OpKind::Dropout => "dropout",
            OpKind::Embedding => "embedding",
            OpKind::Reshape => "reshape",
            OpKind::Spatial(k) => k.name(),
            OpKind::Columns(k) => k.name(),
            OpKind::Recurrent(k) => k.name(),
            OpKind::Custom(_) => "custom",
        }
    }
}

/// Adds the op's contribution to its inputs' gradients.
pub(crate) fn backward(g: &mut Graph<'_>, op: &Op) {
    match op.kind {
        OpKind::Linear | OpKind::LinearRelu => linear::linear_backward(g, op),
        OpKind::MatMul => linear::matmul_backward(g, op),
        OpKind::Add | OpKind::AddRelu | OpKind::Sub | OpKind::Mul | OpKind::Scale | OpKind::Copy => {
            elementwise::backward(g, op)
        }
        OpKind::Relu | OpKind::LeakyRelu | OpKind::Sigmoid | OpKind::Tanh | OpKind::Softmax | OpKind::LogSoftmax => {
            activation::backward(g, op)
        }
        OpKind::LayerNorm | OpKind::LayerNormRelu => norm::backward(g, op),
        OpKind::GatherCols | OpKind::Dueling => index::backward(g, op),
        OpKind::Sum | OpKind::Mean => reduce::backward(g, op),
        OpKind::Mse | OpKind::Huber | OpKind::BceWithLogits | OpKind::CrossEntropy | OpKind::SoftCrossEntropy => {
            loss::backward(g, op)
        }
        OpKind::Gelu => gelu::backward(g, op),
        OpKind::Dropout => dropout::backward(g, op),
        OpKind::Embedding => embedding::backward(g, op),
        OpKind::Reshape => reshape::backward(g, op),
        OpKind::Spatial(kind) => spatial::backward(g, op, kind),
        OpKind::Columns(kind) => columns::backward(g, op, kind),
        OpKind::Recurrent(kind) => recurrent::backward(g, op, kind),
        OpKind::Custom(id) => custom_backward(g, op, id),
    }
}

fn custom_backward(g: &mut Graph<'_>, op: &Op, id: CustomId) {
    use minnow_tensor::Shape;
    let inputs = op.inputs();
    let mut shapes = [Shape::scalar(); crate::tape::MAX_INPUTS];
    let mut reads = [(0, 0..0), (0, 0..0), (0, 0..0), (0, 0..0), (0, 0..0), (0, 0..0), (0, 0..0)];
    let mut writes = [(0, 0..0), (0, 0..0), (0, 0..0), (0, 0..0)];
    for (i, &v) in inputs.iter().enumerate() {
        shapes[i] = g.shape(v);
        reads[i] = g.val(v);
        writes[i] = g.grad_loc(v);
    }
    reads[4] = g.val(op.output);
    reads[5] = g.blk(op.saved);
    reads[6] = g.grad_loc(op.output);
    let n = inputs.len();
    let shapes = &shapes[..n];
    g.with_custom(id, reads, writes, |custom, r, mut w| {
        custom.backward(&r[..n], shapes, r[4], r[5], r[6], &mut w[..n]);
    });
}

/// Shape checks shared by the op files.
pub(crate) mod check {
    use crate::Result;
    use minnow_tensor::{Shape, TensorError};

    pub(crate) fn same(op: &'static str, lhs: Shape, rhs: Shape) -> Result<()> {
        if lhs == rhs { Ok(()) } else { Err(TensorError::ShapeMismatch { op, lhs, rhs }.into()) }
    }

    /// An index past its bound (a time step, a column).
    pub(crate) fn index(op: &'static str, index: usize, bound: usize) -> crate::Error {
        crate::Error::IndexOutOfRange { op, index: u32::try_from(index).unwrap_or(u32::MAX), bound }
    }

    /// The batch size (first dimension) of a non-scalar shape.
    pub(crate) fn batch(op: &'static str, shape: Shape) -> Result<usize> {
        match shape.dims().first() {
            Some(&b) => Ok(b),
            None => Err(TensorError::Rank { op, expected: 1, found: shape }.into()),
        }
    }
}
