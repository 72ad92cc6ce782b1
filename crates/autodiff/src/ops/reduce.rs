//! Reductions to a scalar: sum (dx += dy) and mean (dx += dy / n).

use super::OpKind;
use crate::tape::{Block, Graph, IndexBlock, Op};
use crate::{Result, Var};
use minnow_kernels as k;
use minnow_tensor::Shape;

impl Graph<'_> {
    /// Σ x, as a one-element tensor.
    pub fn sum(&mut self, x: Var) -> Result<Var> {
        Ok(self.reduce(OpKind::Sum, x))
    }

    /// The mean of x, as a one-element tensor.
    pub fn mean(&mut self, x: Var) -> Result<Var> {
        Ok(self.reduce(OpKind::Mean, x))
    }

    fn reduce(&mut self, kind: OpKind, x: Var) -> Var {
        let n = self.shape(x).numel();
        let y = self.output(Shape::scalar(), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        let total = k::sum(xv);
        yv[0] = if kind == OpKind::Mean { total / n.max(1) as f32 } else { total };
        self.record(kind, &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        y
    }
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op) {
    let x = op.inputs[0];
    let n = g.shape(x).numel().max(1);
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
    let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
    let step = if op.kind == OpKind::Mean { dy[0] / n as f32 } else { dy[0] };
    dx.iter_mut().for_each(|d| *d += step);
}
