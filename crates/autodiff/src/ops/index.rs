//! Picking one element per row, and the dueling head's combination.
//!
//! gather_cols: x [B, C], idx [B] -> y [B], y[b] = x[b, idx[b]] (Q at the
//! actions taken); dx[b, idx[b]] += dy[b].
//! dueling: v [B, 1], a [B, A] -> q [B, A] = v + a - mean_j a[b, j];
//! dv[b] += Σ_j dq[b, j]; da[b, j] += dq[b, j] - mean_j dq[b, :].

use super::OpKind;
use super::check;
use crate::tape::{Block, Graph, IndexBlock, Op, split_parts};
use crate::{Error, Result, Var};
use minnow_kernels as k;
use minnow_tensor::{Shape, TensorError};

impl Graph<'_> {
    /// `y[b] = x[b, idx[b]]`
    pub fn gather_cols(&mut self, x: Var, idx: &[u32]) -> Result<Var> {
        const OP: &str = "gather_cols";
        let (rows, cols) = self.shape(x).as_matrix(OP)?;
        if idx.len() != rows {
            return Err(Error::IndexCount { op: OP, expected: rows, found: idx.len() });
        }
        if let Some(&bad) = idx.iter().find(|&&i| i as usize >= cols) {
            return Err(Error::IndexOutOfRange { op: OP, index: bad, bound: cols });
        }
        let stored = self.store_indices(idx);
        let y = self.output(Shape::vector(rows), &[x]);
        let (reads, writes) = ([self.val(x)], [self.val(y)]);
        let ([xv], [yv]) = split_parts(&mut self.tape.data, &mut self.params, self.borrowed, reads, writes);
        let idx = &self.tape.indices[stored.range()];
        k::gather_cols(xv, cols, idx, yv);
        self.record(OpKind::GatherCols, &[x], y, Block::EMPTY, stored, 0.0);
        Ok(y)
    }

    /// q = v + a - mean(a) per row: the dueling head.
    pub fn dueling(&mut self, v: Var, a: Var) -> Result<Var> {
        const OP: &str = "dueling";
        let (rows, actions) = self.shape(a).as_matrix(OP)?;
        check::same(OP, Shape::matrix(rows, 1), self.shape(v))?;
        if actions == 0 {
            return Err(TensorError::Rank { op: OP, expected: 2, found: self.shape(a) }.into());
        }
        let q = self.output(Shape::matrix(rows, actions), &[v, a]);
        let ([vv, av], [qv]) = self.split([self.val(v), self.val(a)], [self.val(q)]);
        for ((q_row, a_row), &value) in qv.chunks_exact_mut(actions).zip(av.chunks_exact(actions)).zip(vv) {
            let shift = value - k::sum(a_row) / actions as f32;
            q_row.iter_mut().zip(a_row).for_each(|(q, &a)| *q = a + shift);
        }
        self.record(OpKind::Dueling, &[v, a], q, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(q)
    }
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op) {
    match op.kind {
        OpKind::GatherCols => {
            let x = op.inputs[0];
            let cols = g.shape(x).last();
            let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
            let ([dy], [dx]) = split_parts(&mut g.tape.data, &mut g.params, g.borrowed, [dy_loc], [dx_loc]);
            if !dx.is_empty() {
                let idx = &g.tape.indices[op.index.range()];
                k::scatter_add_cols(dy, cols, idx, dx);
            }
        }
        _ => {
            let (v, a) = (op.inputs[0], op.inputs[1]);
            let actions = g.shape(a).last();
            let (dq_loc, dv_loc, da_loc) = (g.grad_loc(op.output), g.grad_loc(v), g.grad_loc(a));
            let ([dq], [dv, da]) = g.split([dq_loc], [dv_loc, da_loc]);
            for (b, dq_row) in dq.chunks_exact(actions).enumerate() {
                let total = k::sum(dq_row);
                if !dv.is_empty() {
                    dv[b] += total;
                }
                if !da.is_empty() {
                    let mean = total / actions as f32;
                    da[b * actions..(b + 1) * actions].iter_mut().zip(dq_row).for_each(|(d, &g)| *d += g - mean);
                }
            }
        }
    }
}
