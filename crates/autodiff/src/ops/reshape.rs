//! Reshape: the same values under a new shape of equal size (row-major, so
//! no data moves). The new node reads its input's memory in place. Its
//! gradient is its own block, added back into dx, except for a reshaped
//! parameter: that node's gradient already is the parameter's (a tape
//! node whose value lives in the store accumulates into the store), so
//! nothing is recorded.

use crate::Result;
use crate::ops::OpKind;
use crate::tape::{Block, Graph, IndexBlock, Loc, Node, Op, Var};
use minnow_tensor::{Shape, TensorError};

impl Graph<'_> {
    /// x viewed with `dims` (same number of elements); free: no copy.
    pub fn reshape(&mut self, x: Var, dims: &[usize]) -> Result<Var> {
        let (from, to) = (self.shape(x), Shape::new(dims)?);
        if from.numel() != to.numel() {
            return Err(TensorError::ShapeMismatch { op: "reshape", lhs: from, rhs: to }.into());
        }
        let node = self.tape.nodes[x.0 as usize];
        self.tape.nodes.push(Node { shape: to, value: node.value, grad: None, requires_grad: node.requires_grad });
        let y = Var(self.tape.nodes.len() as u32 - 1);
        if matches!(node.value, Loc::Param(_)) {
            return Ok(y);
        }
        self.record(OpKind::Reshape, &[x], y, Block::EMPTY, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }
}

pub(crate) fn backward(g: &mut Graph<'_>, op: &Op) {
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(op.inputs[0]));
    let ([dy], [dx]) = g.split([dy_loc], [dx_loc]);
    if !dx.is_empty() {
        minnow_kernels::add_assign(dx, dy);
    }
}
