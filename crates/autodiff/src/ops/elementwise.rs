//! Elementwise binary ops of equal shapes, scaling and copying.
//!
//! add: dy flows to both; add_relu: y = max(a + b, 0) (NaN kept), dy
//! masked by y > 0 then to both; sub: da += dy, db -= dy; mul: da += dy b, db += dy a;
//! scale: dx += s dy; copy: dx += dy.

use super::OpKind;
use super::check;
use crate::tape::{Block, Graph, IndexBlock, Op};
use crate::{Result, Var};
use minnow_kernels::{self as k, Accum};

impl Graph<'_> {
    /// a + b (same shapes).
    pub fn add(&mut self, a: Var, b: Var) -> Result<Var> {
        self.binary(OpKind::Add, a, b)
    }

    /// max(a + b, 0), NaN kept: a residual connection's sum and
    /// activation, fused.
    pub fn add_relu(&mut self, a: Var, b: Var) -> Result<Var> {
        self.binary(OpKind::AddRelu, a, b)
    }

    /// a - b (same shapes).
    pub fn sub(&mut self, a: Var, b: Var) -> Result<Var> {
        self.binary(OpKind::Sub, a, b)
    }

    /// a * b elementwise (same shapes).
    pub fn mul(&mut self, a: Var, b: Var) -> Result<Var> {
        self.binary(OpKind::Mul, a, b)
    }

    /// s * x
    pub fn scale(&mut self, x: Var, s: f32) -> Result<Var> {
        let y = self.output(self.shape(x), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        k::scale_into(s, xv, yv);
        self.record(OpKind::Scale, &[x], y, Block::EMPTY, IndexBlock::EMPTY, s);
        Ok(y)
    }

    /// A copy of `x` as a new node (so an op can take a value twice).
    pub fn copy(&mut self, x: Var) -> Var {
        let y = self.output(self.shape(x), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        yv.copy_from_slice(xv);
        self.record(OpKind::Copy, &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        y
    }

    /// `b`, or a copy of it when it is `a` itself and needs a gradient, so
    /// that an op's two input gradients never share memory.
    pub(crate) fn distinct(&mut self, a: Var, b: Var) -> Var {
        if a == b && self.requires_grad(b) { self.copy(b) } else { b }
    }

    fn binary(&mut self, kind: OpKind, a: Var, b: Var) -> Result<Var> {
        check::same(kind.name(), self.shape(a), self.shape(b))?;
        let b = self.distinct(a, b);
        let y = self.output(self.shape(a), &[a, b]);
        let ([av, bv], [yv]) = self.split([self.val(a), self.val(b)], [self.val(y)]);
        match kind {
            OpKind::Add => k::add(av, bv, yv),
            OpKind::AddRelu => {
                k::add(av, bv, yv);
                k::relu_inplace(yv);
            }
            OpKind::Sub => k::sub(av, bv, yv),
            _ => k::mul(av, bv, yv),
        }
        self.record(kind, &[a, b], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op) {
    let x = op.inputs[0];
    let mut dy_loc = g.grad_loc(op.output);
    match op.kind {
        OpKind::Scale | OpKind::Copy => {
            let dx_loc = g.grad_loc(x);
            let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
            let s = if op.kind == OpKind::Scale { op.scalar } else { 1.0 };
            k::axpy(s, dy, dx);
        }
        _ => {
            let b = op.inputs[1];
            if op.kind == OpKind::AddRelu {
                let dz = g.scratch(dy_loc.1.len());
                let ([y, dy], [dzv]) = g.split([g.val(op.output), dy_loc], [g.blk(dz)]);
                k::relu_backward(y, dy, dzv, Accum::Replace);
                dy_loc = g.blk(dz);
            }
            let (da_loc, db_loc) = (g.grad_loc(x), g.grad_loc(b));
            let ([av, bv, dy], [da, db]) = g.split([g.val(x), g.val(b), dy_loc], [da_loc, db_loc]);
            match op.kind {
                OpKind::Mul => {
                    if !da.is_empty() {
                        k::mul_add_assign(da, dy, bv);
                    }
                    if !db.is_empty() {
                        k::mul_add_assign(db, dy, av);
                    }
                }
                _ => {
                    if !da.is_empty() {
                        k::add_assign(da, dy);
                    }
                    if !db.is_empty() {
                        let s = if op.kind == OpKind::Sub { -1.0 } else { 1.0 };
                        k::axpy(s, dy, db);
                    }
                }
            }
        }
    }
}
