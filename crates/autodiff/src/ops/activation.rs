//! Activations, from the kernels' forward/backward pairs.
//!
//! relu, sigmoid, tanh: backward from y. leaky_relu: backward from x.
//! softmax / log_softmax over the last axis: backward from y per row.

use super::OpKind;
use crate::tape::{Block, Graph, IndexBlock, Op};
use crate::{Result, Var};
use minnow_kernels::{self as k, Accum};

impl Graph<'_> {
    /// max(x, 0), NaN kept (PyTorch's `relu`); d/dx = 1 where x > 0, else 0.
    pub fn relu(&mut self, x: Var) -> Result<Var> {
        Ok(self.activation(OpKind::Relu, x, 0.0))
    }

    /// x for x > 0, else slope * x
    pub fn leaky_relu(&mut self, x: Var, slope: f32) -> Result<Var> {
        Ok(self.activation(OpKind::LeakyRelu, x, slope))
    }

    /// 1 / (1 + e^-x); d/dx = y (1 - y).
    pub fn sigmoid(&mut self, x: Var) -> Result<Var> {
        Ok(self.activation(OpKind::Sigmoid, x, 0.0))
    }

    /// tanh x; d/dx = 1 - y^2.
    pub fn tanh(&mut self, x: Var) -> Result<Var> {
        Ok(self.activation(OpKind::Tanh, x, 0.0))
    }

    /// Softmax over the last axis.
    pub fn softmax(&mut self, x: Var) -> Result<Var> {
        Ok(self.activation(OpKind::Softmax, x, 0.0))
    }

    /// Log-softmax over the last axis.
    pub fn log_softmax(&mut self, x: Var) -> Result<Var> {
        Ok(self.activation(OpKind::LogSoftmax, x, 0.0))
    }

    fn activation(&mut self, kind: OpKind, x: Var, scalar: f32) -> Var {
        let shape = self.shape(x);
        let y = self.output(shape, &[x]);
        let threads = self.row_threads(shape.numel());
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        match kind {
            OpKind::Relu => k::relu(xv, yv),
            OpKind::LeakyRelu => k::leaky_relu(xv, scalar, yv),
            OpKind::Sigmoid => k::sigmoid(xv, yv),
            OpKind::Tanh => k::tanh(xv, yv),
            // Softmax or log-softmax, by rows.
            _ => {
                let cols = shape.last();
                let band = |x: &[f32], y: &mut [f32], _: &mut [f32], _: &mut [f32]| match kind {
                    OpKind::Softmax => k::softmax_rows(x, cols, y),
                    _ => k::log_softmax_rows(x, cols, y),
                };
                k::split_rows(threads, cols, xv, yv, &mut [], &mut [], &band);
            }
        }
        self.record(kind, &[x], y, Block::EMPTY, IndexBlock::EMPTY, scalar);
        y
    }
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op) {
    let x = op.inputs[0];
    let cols = g.shape(x).last();
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
    let ([xv, yv, dy], [dx]) = g.split([g.val(x), g.val(op.output), dy_loc], [dx_loc]);
    if dx.is_empty() {
        return;
    }
    match op.kind {
        OpKind::Relu => k::relu_backward(yv, dy, dx, Accum::Add),
        OpKind::LeakyRelu => k::leaky_relu_backward(xv, op.scalar, dy, dx, Accum::Add),
        OpKind::Sigmoid => k::sigmoid_backward(yv, dy, dx, Accum::Add),
        OpKind::Tanh => k::tanh_backward(yv, dy, dx, Accum::Add),
        OpKind::Softmax => k::softmax_rows_backward(yv, dy, cols, dx, Accum::Add),
        _ => k::log_softmax_rows_backward(yv, dy, cols, dx, Accum::Add),
    }
}
