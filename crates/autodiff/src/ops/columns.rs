//! Column and time-step ops on matrices and batch-first sequences.
//!
//! slice_cols: x [B, N] -> y [B, len] = x[:, start..start + len];
//!   dx[:, start..start + len] += dy.
//! concat_cols: one to four x_k [B, N_k] -> y [B, Σ N_k];
//!   dx_k += dy[:, the columns of x_k].
//! time_step: x [B, T, F] -> y [B, F] = x[:, t, :]; dx[:, t, :] += dy.
//! stack_steps: h_t [B, H] (any T) -> y [B, T, H], built from concat_cols
//!   (a [B, T H] row is a [T, H] block) and a free reshape.

use super::OpKind;
use super::check;
use crate::tape::{Block, Graph, IndexBlock, MAX_INPUTS, Op};
use crate::{Error, Result, Var};
use minnow_kernels::{self as k, Accum};
use minnow_tensor::{Shape, TensorError};

/// The ops of this family; settings that differ per call (a column
/// offset, a time step) live in the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    SliceCols { start: u32 },
    ConcatCols,
    TimeStep { t: u32 },
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::SliceCols { .. } => "slice_cols",
            Kind::ConcatCols => "concat_cols",
            Kind::TimeStep { .. } => "time_step",
        }
    }
}

/// dst[r, d0..d0 + width] = (or +=) src[r, s0..s0 + width] for every row r
/// of two row-major matrices with `src_cols` and `dst_cols` columns.
fn move_cols(
    src: &[f32],
    src_cols: usize,
    s0: usize,
    dst: &mut [f32],
    dst_cols: usize,
    d0: usize,
    width: usize,
    rows: usize,
    accum: Accum,
) {
    if width == 0 {
        return;
    }
    for r in 0..rows {
        let s = &src[r * src_cols + s0..r * src_cols + s0 + width];
        let d = &mut dst[r * dst_cols + d0..r * dst_cols + d0 + width];
        match accum {
            Accum::Replace => d.copy_from_slice(s),
            Accum::Add => k::add_assign(d, s),
        }
    }
}

impl Graph<'_> {
    /// y = x[:, start..start + len] of a matrix x [B, N].
    pub fn slice_cols(&mut self, x: Var, start: usize, len: usize) -> Result<Var> {
        const OP: &str = "slice_cols";
        let shape = self.shape(x);
        let (rows, cols) = shape.as_matrix(OP)?;
        let end = start.saturating_add(len);
        if end > cols {
            // The shape the slice would need.
            return Err(TensorError::ShapeMismatch { op: OP, lhs: shape, rhs: Shape::matrix(rows, end) }.into());
        }
        let y = self.output(Shape::matrix(rows, len), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        move_cols(xv, cols, start, yv, len, 0, len, rows, Accum::Replace);
        let kind = Kind::SliceCols { start: start as u32 };
        self.record(OpKind::Columns(kind), &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    /// y = [x_0 x_1 ...] side by side: matrices [B, N_k], one to four of
    /// them, with the same number of rows.
    pub fn concat_cols(&mut self, xs: &[Var]) -> Result<Var> {
        const OP: &str = "concat_cols";
        if xs.is_empty() || xs.len() > MAX_INPUTS {
            return Err(Error::Config(format!("{OP} takes 1 to {MAX_INPUTS} inputs, found {}", xs.len())));
        }
        let first = self.shape(xs[0]);
        let (rows, _) = first.as_matrix(OP)?;
        let mut total = 0;
        for &x in xs {
            let (r, c) = self.shape(x).as_matrix(OP)?;
            if r != rows {
                return Err(TensorError::ShapeMismatch { op: OP, lhs: first, rhs: self.shape(x) }.into());
            }
            total += c;
        }
        let y = self.output(Shape::matrix(rows, total), xs);
        let mut at = 0;
        for &x in xs {
            let cols = self.shape(x).last();
            let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
            move_cols(xv, cols, 0, yv, total, at, cols, rows, Accum::Replace);
            at += cols;
        }
        self.record(OpKind::Columns(Kind::ConcatCols), xs, y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    /// y = x[:, t, :] of a batch-first sequence x [B, T, F].
    pub fn time_step(&mut self, x: Var, t: usize) -> Result<Var> {
        const OP: &str = "time_step";
        let shape = self.shape(x);
        let &[batch, steps, features] = shape.dims() else {
            return Err(TensorError::Rank { op: OP, expected: 3, found: shape }.into());
        };
        if t >= steps {
            return Err(check::index(OP, t, steps));
        }
        let y = self.output(Shape::matrix(batch, features), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        let row = steps * features;
        move_cols(xv, row, t * features, yv, features, 0, features, batch, Accum::Replace);
        let kind = Kind::TimeStep { t: t as u32 };
        self.record(OpKind::Columns(kind), &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }

    /// y `[B, T, H]` with `y[:, t, :] = hs[t]`: the hidden states of a sequence,
    /// any number of equal-shaped matrices [B, H].
    pub fn stack_steps(&mut self, hs: &[Var]) -> Result<Var> {
        const OP: &str = "stack_steps";
        let Some(&first) = hs.first() else {
            return Err(Error::Config(format!("{OP} needs at least one step")));
        };
        let shape = self.shape(first);
        let (batch, hidden) = shape.as_matrix(OP)?;
        for &h in hs {
            check::same(OP, shape, self.shape(h))?;
        }
        let whole = self.concat_tree(hs)?;
        self.reshape(whole, &[batch, hs.len(), hidden])
    }

    /// Columns of all of `xs`, concatenated four at a time, bottom up.
    fn concat_tree(&mut self, xs: &[Var]) -> Result<Var> {
        if xs.len() == 1 {
            return Ok(xs[0]);
        }
        if xs.len() <= MAX_INPUTS {
            return self.concat_cols(xs);
        }
        // Groups of the largest power of 4 below the length, so that most
        // values are copied once per level of a balanced tree.
        let mut group = MAX_INPUTS;
        while group * MAX_INPUTS < xs.len() {
            group *= MAX_INPUTS;
        }
        let mut parts = [xs[0]; MAX_INPUTS];
        let mut n = 0;
        for chunk in xs.chunks(group) {
            parts[n] = self.concat_tree(chunk)?;
            n += 1;
        }
        self.concat_cols(&parts[..n])
    }
}

pub(crate) fn backward(g: &mut Graph<'_>, op: &Op, kind: Kind) {
    match kind {
        Kind::SliceCols { start } => {
            let x = op.inputs[0];
            let cols = g.shape(x).last();
            let out = g.shape(op.output);
            let (rows, len) = (out.dims()[0], out.dims()[1]);
            let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
            let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
            if !dx.is_empty() {
                let start = start as usize;
                move_cols(dy, len, 0, dx, cols, start, len, rows, Accum::Add);
            }
        }
        Kind::ConcatCols => {
            let total = g.shape(op.output).last();
            let rows = g.shape(op.output).rows();
            let mut at = 0;
            for &x in op.inputs() {
                let cols = g.shape(x).last();
                let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
                let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
                if !dx.is_empty() {
                    move_cols(dy, total, at, dx, cols, 0, cols, rows, Accum::Add);
                }
                at += cols;
            }
        }
        Kind::TimeStep { t } => {
            let x = op.inputs[0];
            let dims = g.shape(x);
            let (batch, steps, features) = (dims.dims()[0], dims.dims()[1], dims.dims()[2]);
            let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
            let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
            if !dx.is_empty() {
                let at = t as usize * features;
                let row = steps * features;
                move_cols(dy, features, 0, dx, row, at, features, batch, Accum::Add);
            }
        }
    }
}
