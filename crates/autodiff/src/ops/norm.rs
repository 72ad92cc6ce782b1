//! LayerNorm over the last axis (PyTorch semantics, eps 1e-5 by default),
//! optionally fused with ReLU. Saves mean and rstd per row for backward;
//! the fused form masks dy where y = 0 first.

use super::OpKind;
use super::check;
use crate::tape::{Graph, IndexBlock, Op};
use crate::{Result, Var};
use minnow_kernels::{self as k, Accum};
use minnow_tensor::Shape;

impl Graph<'_> {
    /// (x - mean) / sqrt(var + eps) * gamma + beta, per row.
    pub fn layer_norm(&mut self, x: Var, gamma: Var, beta: Var, eps: f32) -> Result<Var> {
        self.layer_norm_op(x, gamma, beta, eps, false)
    }

    /// max(LayerNorm(x), 0), fused.
    pub fn layer_norm_relu(&mut self, x: Var, gamma: Var, beta: Var, eps: f32) -> Result<Var> {
        self.layer_norm_op(x, gamma, beta, eps, true)
    }

    fn layer_norm_op(&mut self, x: Var, gamma: Var, beta: Var, eps: f32, relu: bool) -> Result<Var> {
        const OP: &str = "layer_norm";
        let shape = self.shape(x);
        let cols = shape.last();
        check::same(OP, Shape::vector(cols), self.shape(gamma))?;
        check::same(OP, Shape::vector(cols), self.shape(beta))?;
        let rows = shape.rows();
        let y = self.output(shape, &[x, gamma, beta]);
        let saved = self.scratch(2 * rows);
        let threads = self.row_threads(shape.numel());
        let ([xv, gv, bv], [yv, sv]) =
            self.split([self.val(x), self.val(gamma), self.val(beta)], [self.val(y), self.blk(saved)]);
        let (mean, rstd) = sv.split_at_mut(rows);
        let band = |x: &[f32], y: &mut [f32], mean: &mut [f32], rstd: &mut [f32]| {
            if relu {
                k::layer_norm_relu(x, gv, bv, eps, y, mean, rstd);
            } else {
                k::layer_norm(x, gv, bv, eps, y, mean, rstd);
            }
        };
        k::split_rows(threads, cols, xv, yv, mean, rstd, &band);
        let kind = if relu { OpKind::LayerNormRelu } else { OpKind::LayerNorm };
        self.record(kind, &[x, gamma, beta], y, saved, IndexBlock::EMPTY, eps);
        Ok(y)
    }
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op) {
    let [x, gamma, beta, _] = op.inputs;
    let shape = g.shape(x);
    let rows = shape.rows();
    let mut dy_loc = g.grad_loc(op.output);
    if op.kind == OpKind::LayerNormRelu {
        let dz = g.scratch(shape.numel());
        let ([y, dy], [dzv]) = g.split([g.val(op.output), dy_loc], [g.blk(dz)]);
        k::relu_backward(y, dy, dzv, Accum::Replace);
        dy_loc = g.blk(dz);
    }
    // The kernel produces all three gradients; unwanted ones go to scratch.
    let (dx_loc, dg_loc, db_loc) = (g.grad_or_scratch(x), g.grad_or_scratch(gamma), g.grad_or_scratch(beta));
    let ([xv, gv, sv, dy], [dx, dg, db]) =
        g.split([g.val(x), g.val(gamma), g.blk(op.saved), dy_loc], [dx_loc, dg_loc, db_loc]);
    let (mean, rstd) = sv.split_at(rows);
    k::layer_norm_backward(xv, dy, gv, mean, rstd, dx, dg, db, Accum::Add);
}
