//! Ops defined outside this crate (the logic-gate layers are one): a
//! forward and a backward over slices, registered once on the tape and
//! recorded by index like any built-in op.

use crate::tape::{Graph, IndexBlock, MAX_INPUTS, Var};
use crate::{Error, Result};
use minnow_tensor::Shape;

/// The handle of a registered custom op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CustomId(pub(crate) u32);

/// An op with its own forward and backward. Implementations must not
/// allocate in `forward` or `backward` if the steps using them are to stay
/// allocation-free.
pub trait CustomOp: Send + Sync {
    /// The op's name, for errors and profiles.
    fn name(&self) -> &'static str;

    /// The output shape for these input shapes, or an error naming the
    /// mismatch.
    fn output_shape(&self, inputs: &[Shape]) -> Result<Shape>;

    /// Floats of scratch to keep from forward to backward.
    fn saved_len(&self, _inputs: &[Shape]) -> usize {
        0
    }

    /// Writes the output from the inputs, and what backward needs into `saved`.
    fn forward(&self, inputs: &[&[f32]], shapes: &[Shape], output: &mut [f32], saved: &mut [f32]);

    /// Adds each input's gradient into `d_inputs[i]`, which is empty for an
    /// input that needs none.
    fn backward(
        &self,
        inputs: &[&[f32]],
        shapes: &[Shape],
        output: &[f32],
        saved: &[f32],
        d_output: &[f32],
        d_inputs: &mut [&mut [f32]],
    );
}

impl Graph<'_> {
    /// Runs a registered custom op on up to four inputs.
    pub fn custom(&mut self, id: CustomId, inputs: &[Var]) -> Result<Var> {
        if inputs.is_empty() || inputs.len() > MAX_INPUTS {
            return Err(Error::Config(format!("custom op: {} inputs, expected 1 to {MAX_INPUTS}", inputs.len())));
        }
        let mut shapes = [Shape::scalar(); MAX_INPUTS];
        for (s, &v) in shapes.iter_mut().zip(inputs) {
            *s = self.shape(v);
        }
        let shapes = &shapes[..inputs.len()];
        let op = self.custom_op(id);
        let out_shape = op.output_shape(shapes)?;
        let saved_len = op.saved_len(shapes);
        let y = self.output(out_shape, inputs);
        let saved = self.scratch(saved_len);
        let mut reads = [(0, 0..0), (0, 0..0), (0, 0..0), (0, 0..0)];
        for (r, &v) in reads.iter_mut().zip(inputs) {
            *r = self.val(v);
        }
        let writes = [self.val(y), self.blk(saved)];
        let arity = inputs.len();
        self.with_custom(id, reads, writes, |op, ins, [out, sv]| op.forward(&ins[..arity], shapes, out, sv));
        self.record(crate::ops::OpKind::Custom(id), inputs, y, saved, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }
}
