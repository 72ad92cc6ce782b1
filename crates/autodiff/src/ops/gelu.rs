//! GELU, exact: y = x Φ(x) (PyTorch's default, erf-based); backward from
//! x: dx += dy (Φ(x) + x φ(x)). The kernels are `minnow_kernels::gelu`.

use crate::ops::OpKind;
use crate::tape::{Block, Graph, IndexBlock, Op};
use crate::{Result, Var};
use minnow_kernels::{self as k, Accum};

impl Graph<'_> {
    /// x Φ(x), with Φ the standard normal CDF.
    pub fn gelu(&mut self, x: Var) -> Result<Var> {
        let y = self.output(self.shape(x), &[x]);
        let ([xv], [yv]) = self.split([self.val(x)], [self.val(y)]);
        k::gelu(xv, yv);
        self.record(OpKind::Gelu, &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }
}

pub(crate) fn backward(g: &mut Graph<'_>, op: &Op) {
    let x = op.inputs[0];
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
    let ([xv, dy], [dx]) = g.split([g.val(x), dy_loc], [dx_loc]);
    if !dx.is_empty() {
        k::gelu_backward(xv, dy, dx, Accum::Add);
    }
}
