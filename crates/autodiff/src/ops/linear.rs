//! Linear layers and matrix products.
//!
//! linear: x [B, in], W [out, in] (PyTorch layout), b [out] -> y [B, out];
//! y = x Wᵀ + b. Backward: dx += dy W; dW += dyᵀ x; db += Σ_rows dy.
//! linear_relu fuses the ReLU into the bias epilogue; its backward first
//! masks dy where y = 0.
//! matmul: a [m, k], b [k, n] -> c [m, n]; da += dc bᵀ; db += aᵀ dc.

use super::OpKind;
use super::check;
use crate::Result;
use crate::tape::{Block, Graph, IndexBlock, Op, TAPE};
use minnow_kernels::{self as k, Accum, View, ViewMut};
use minnow_tensor::{Shape, TensorError};

impl Graph<'_> {
    /// y = x Wᵀ + b
    pub fn linear(&mut self, x: crate::Var, w: crate::Var, b: Option<crate::Var>) -> Result<crate::Var> {
        self.linear_op(x, w, b, false)
    }

    /// y = max(x Wᵀ + b, 0), fused.
    pub fn linear_relu(&mut self, x: crate::Var, w: crate::Var, b: Option<crate::Var>) -> Result<crate::Var> {
        self.linear_op(x, w, b, true)
    }

    fn linear_op(&mut self, x: crate::Var, w: crate::Var, b: Option<crate::Var>, relu: bool) -> Result<crate::Var> {
        const OP: &str = "linear";
        let (xs, ws) = (self.shape(x), self.shape(w));
        let (batch, inp) = xs.as_matrix(OP)?;
        let (out, w_in) = ws.as_matrix(OP)?;
        if w_in != inp {
            return Err(TensorError::ShapeMismatch { op: OP, lhs: xs, rhs: ws }.into());
        }
        if let Some(b) = b {
            check::same(OP, Shape::vector(out), self.shape(b))?;
        }
        let inputs = [x, w, b.unwrap_or(w)];
        let inputs = &inputs[..if b.is_some() { 3 } else { 2 }];
        let y = self.output(Shape::matrix(batch, out), inputs);
        let bias = b.map_or((TAPE, 0..0), |b| self.val(b));
        let threads = self.gemm_threads(batch * inp * out);
        let ([xv, wv, bv], [yv]) = self.split([self.val(x), self.val(w), bias], [self.val(y)]);
        k::gemm_threads(
            ViewMut::new(yv, batch, out),
            0.0,
            View::new(xv, batch, inp),
            View::new(wv, out, inp).t(),
            1.0,
            threads,
        );
        k::linear_epilogue(yv, b.map(|_| &*bv), relu);
        let kind = if relu { OpKind::LinearRelu } else { OpKind::Linear };
        self.record(kind, inputs, y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    /// c = a b for matrices.
    pub fn matmul(&mut self, a: crate::Var, b: crate::Var) -> Result<crate::Var> {
        const OP: &str = "matmul";
        let b = self.distinct(a, b);
        let (as_, bs) = (self.shape(a), self.shape(b));
        let (m, ka) = as_.as_matrix(OP)?;
        let (kb, n) = bs.as_matrix(OP)?;
        if ka != kb {
            return Err(TensorError::ShapeMismatch { op: OP, lhs: as_, rhs: bs }.into());
        }
        let c = self.output(Shape::matrix(m, n), &[a, b]);
        let threads = self.gemm_threads(m * ka * n);
        let ([av, bv], [cv]) = self.split([self.val(a), self.val(b)], [self.val(c)]);
        k::gemm_threads(ViewMut::new(cv, m, n), 0.0, View::new(av, m, ka), View::new(bv, ka, n), 1.0, threads);
        self.record(OpKind::MatMul, &[a, b], c, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(c)
    }
}

pub(super) fn linear_backward(g: &mut Graph<'_>, op: &Op) {
    let (x, w) = (op.inputs[0], op.inputs[1]);
    let (batch, inp) = (g.shape(x).dims()[0], g.shape(x).dims()[1]);
    let out = g.shape(w).dims()[0];
    let mut dy_loc = g.grad_loc(op.output);
    if op.kind == OpKind::LinearRelu {
        // dz = dy where y > 0: into scratch, since dy may be read elsewhere.
        let dz = g.scratch(batch * out);
        let ([y, dy], [dzv]) = g.split([g.val(op.output), dy_loc.clone()], [g.blk(dz)]);
        k::relu_backward(y, dy, dzv, Accum::Replace);
        dy_loc = g.blk(dz);
    }
    let dx_loc = g.grad_loc(x);
    let dw_loc = g.grad_loc(w);
    let db_loc = if op.arity == 3 { g.grad_loc(op.inputs[2]) } else { (TAPE, 0..0) };
    let threads = g.gemm_threads(batch * inp * out);
    let ([xv, wv, dy], [dx, dw, db]) = g.split([g.val(x), g.val(w), dy_loc], [dx_loc, dw_loc, db_loc]);
    if !dx.is_empty() {
        k::gemm_threads(
            ViewMut::new(dx, batch, inp),
            1.0,
            View::new(dy, batch, out),
            View::new(wv, out, inp),
            1.0,
            threads,
        );
    }
    if !dw.is_empty() {
        k::gemm_threads(
            ViewMut::new(dw, out, inp),
            1.0,
            View::new(dy, batch, out).t(),
            View::new(xv, batch, inp),
            1.0,
            threads,
        );
    }
    if !db.is_empty() {
        k::col_sums(dy, out, db, Accum::Add);
    }
}

pub(super) fn matmul_backward(g: &mut Graph<'_>, op: &Op) {
    let (a, b) = (op.inputs[0], op.inputs[1]);
    let (m, kk) = (g.shape(a).dims()[0], g.shape(a).dims()[1]);
    let n = g.shape(b).dims()[1];
    let (da_loc, db_loc, dc_loc) = (g.grad_loc(a), g.grad_loc(b), g.grad_loc(op.output));
    let threads = g.gemm_threads(m * kk * n);
    let ([av, bv, dc], [da, db]) = g.split([g.val(a), g.val(b), dc_loc], [da_loc, db_loc]);
    if !da.is_empty() {
        k::gemm_threads(ViewMut::new(da, m, kk), 1.0, View::new(dc, m, n), View::new(bv, kk, n).t(), 1.0, threads);
    }
    if !db.is_empty() {
        k::gemm_threads(ViewMut::new(db, kk, n), 1.0, View::new(av, m, kk).t(), View::new(dc, m, n), 1.0, threads);
    }
}
