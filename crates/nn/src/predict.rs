//! [`Predict`]: a model's outputs for a batch of inputs in one call, run
//! on an inference graph (`Tape::inference`: nothing recorded, no
//! gradients), without building the graph by hand.

use crate::Forward;
use minnow_autodiff::{Params, Result, Tape, Var};
use minnow_tensor::{Shape, TensorError};

/// One-call inference for every model that maps one node to one node
/// ([`Linear`](crate::Linear), [`Mlp`](crate::Mlp), [`Sequential`](crate::Sequential),
/// a user's own [`Forward`]): `x` holds the input of shape `dims`
/// (`[rows, inputs]` for an MLP, `[N, C, H, W]` for a CNN), row-major.
///
/// The outputs are the graph forward's bit for bit, in evaluation mode
/// (dropout passes values through, batch norm reads its running
/// statistics): an inference graph is not a training one.
///
/// ```
/// use minnow_nn::{MlpConfig, Params, Predict, Tape};
/// use rand::SeedableRng;
/// # fn main() -> minnow_nn::Result<()> {
/// let (mut params, mut rng) = (Params::new(), rand_pcg::Pcg64Mcg::seed_from_u64(0));
/// let model = MlpConfig::new(&[2, 16, 1]).init(&mut params, "mlp", &mut rng)?;
/// let x = [0.0, 1.0, 1.0, 0.0];
/// let y = model.predict(&params, &[2, 2], &x)?; // two rows in, two outputs
/// assert_eq!(y.len(), 2);
///
/// // Into the caller's buffer, reusing a tape: allocates nothing once warm.
/// let (mut tape, mut out) = (Tape::new(), [0.0; 2]);
/// let shape = model.predict_into(&mut tape, &params, &[2, 2], &x, &mut out)?;
/// assert_eq!((shape.dims(), out), (&[2, 1][..], [y[0], y[1]]));
/// # Ok(())
/// # }
/// ```
pub trait Predict: Forward<Output = Var> {
    /// The outputs for `x` (shape `dims`) as a new vector. Builds a tape
    /// for the call; [`predict_into`](Self::predict_into) reuses one.
    /// An error if `x` does not fill `dims` or the model refuses the shape.
    fn predict(&self, params: &Params, dims: &[usize], x: &[f32]) -> Result<Vec<f32>> {
        let mut tape = Tape::new();
        let mut g = tape.inference(params);
        let input = g.input_ref(dims, x)?;
        let y = self.forward(&mut g, input)?;
        Ok(g.value(y).to_vec())
    }

    /// The outputs for `x` (shape `dims`) written into `out`, on `tape`'s
    /// memory; returns their shape. An error, with `out` untouched, if `x`
    /// does not fill `dims`, the model refuses the shape, or `out` is not
    /// as long as the outputs.
    fn predict_into(
        &self,
        tape: &mut Tape,
        params: &Params,
        dims: &[usize],
        x: &[f32],
        out: &mut [f32],
    ) -> Result<Shape> {
        let mut g = tape.inference(params);
        let input = g.input_ref(dims, x)?;
        let y = self.forward(&mut g, input)?;
        let (shape, value) = (g.shape(y), g.value(y));
        if value.len() != out.len() {
            return Err(TensorError::DataLength {
                op: "predict_into (out)",
                shape,
                numel: value.len(),
                len: out.len(),
            }
            .into());
        }
        out.copy_from_slice(value);
        Ok(shape)
    }
}

impl<M: Forward<Output = Var> + ?Sized> Predict for M {}
