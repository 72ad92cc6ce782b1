//! Image ops: convolution (im2col + GEMM), 2x2 max pooling and batch
//! normalisation. One file per op below `spatial/`; this one names the ops
//! and routes their backward passes.

use crate::tape::{Graph, Op};

mod batch_norm;
mod conv;
mod pool;

/// The ops of this family, with their settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// x [N, C, H, W], w [O, C, kh, kw], b [O] (optional, as a third
    /// input); saves the im2col matrix.
    Conv2d { stride: u16, padding: u16, kernel: [u16; 2] },
    /// 2x2 window, stride 2; saves each window's argmax.
    MaxPool2d,
    /// Batch statistics (training); saves mean and 1/std per channel.
    BatchNorm,
    /// Running statistics (evaluation); saves them as used.
    BatchNormEval,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Conv2d { .. } => "conv2d",
            Kind::MaxPool2d => "max_pool2d",
            Kind::BatchNorm => "batch_norm",
            Kind::BatchNormEval => "batch_norm_eval",
        }
    }
}

pub(crate) fn backward(g: &mut Graph<'_>, op: &Op, kind: Kind) {
    match kind {
        Kind::Conv2d { stride, padding, kernel } => conv::backward(g, op, stride, padding, kernel),
        Kind::MaxPool2d => pool::backward(g, op),
        Kind::BatchNorm => batch_norm::backward(g, op, true),
        Kind::BatchNormEval => batch_norm::backward(g, op, false),
    }
}
