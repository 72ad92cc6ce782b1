//! Embedding lookup: weight [V, D], indices [L] -> y [L, D], y row i =
//! weight row indices[i]; backward scatter-adds dy's rows into dweight
//! (repeated indices add up). The indices go to the tape's index store.

use crate::ops::OpKind;
use crate::tape::{Block, Graph, Op, split_parts};
use crate::{Error, Result, Var};
use minnow_kernels as k;
use minnow_tensor::Shape;

impl Graph<'_> {
    /// Rows of `weight` [V, D] at `indices`: [indices.len(), D]. An index
    /// of V or more is an [`Error::IndexOutOfRange`].
    pub fn embedding(&mut self, weight: Var, indices: &[u32]) -> Result<Var> {
        const OP: &str = "embedding";
        let (vocab, dim) = self.shape(weight).as_matrix(OP)?;
        if let Some(&bad) = indices.iter().find(|&&i| i as usize >= vocab) {
            return Err(Error::IndexOutOfRange { op: OP, index: bad, bound: vocab });
        }
        let stored = self.store_indices(indices);
        let y = self.output(Shape::matrix(indices.len(), dim), &[weight]);
        let (reads, writes) = ([self.val(weight)], [self.val(y)]);
        let ([wv], [yv]) = split_parts(&mut self.tape.data, &mut self.params, self.borrowed, reads, writes);
        k::gather_rows(wv, dim, &self.tape.indices[stored.range()], yv);
        self.record(OpKind::Embedding, &[weight], y, Block::EMPTY, stored, 0.0);
        Ok(y)
    }
}

pub(crate) fn backward(g: &mut Graph<'_>, op: &Op) {
    let weight = op.inputs[0];
    let dim = g.shape(weight).last();
    let (dy_loc, dw_loc) = (g.grad_loc(op.output), g.grad_loc(weight));
    let ([dy], [dw]) = split_parts(&mut g.tape.data, &mut g.params, g.borrowed, [dy_loc], [dw_loc]);
    if !dw.is_empty() {
        k::scatter_add_rows(dy, dim, &g.tape.indices[op.index.range()], dw);
    }
}
