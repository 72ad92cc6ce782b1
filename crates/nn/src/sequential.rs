//! [`Sequential`]: layers run one after another, PyTorch's `nn.Sequential`.

use crate::{Forward, Module};
use minnow_autodiff::{Graph, ParamId, Result, Var};

/// A boxed layer of a [`Sequential`].
pub type BoxedLayer = Box<dyn Forward<Output = Var> + Send + Sync>;

/// Layers that each map one node to one node, run in order. `L` is a boxed
/// layer by default (any mix of layers); a user's own `enum` of layers
/// that implements [`Forward`] avoids the indirection. Running it walks a
/// `Vec` it already owns, so a forward pass allocates nothing.
///
/// ```
/// use minnow_nn::{Activation, Forward, LinearConfig, Params, Sequential, Tape};
/// use rand::SeedableRng;
/// # fn main() -> minnow_nn::Result<()> {
/// let (mut params, mut rng) = (Params::new(), rand_pcg::Pcg64Mcg::seed_from_u64(0));
/// let model = Sequential::new()
///     .push(LinearConfig::new(2, 8).init(&mut params, "0", &mut rng)?)
///     .push(Activation::Tanh)
///     .push(LinearConfig::new(8, 1).init(&mut params, "2", &mut rng)?);
/// let mut tape = Tape::new();
/// let mut g = tape.inference(&params);
/// let x = g.input(&[1, 2], &[0.5, -0.5])?;
/// let y = model.forward(&mut g, x)?;
/// assert_eq!(g.value(y).len(), 1);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Sequential<L = BoxedLayer> {
    layers: Vec<L>,
}

impl<L> Default for Sequential<L> {
    fn default() -> Self {
        Self { layers: Vec::new() }
    }
}

impl Sequential {
    /// No layers yet (runs as the identity).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a layer, boxed.
    pub fn push(mut self, layer: impl Forward<Output = Var> + Send + Sync + 'static) -> Self {
        self.layers.push(Box::new(layer));
        self
    }
}

impl<L> Sequential<L> {
    /// Layers of one type (an enum of layers, or boxes already made).
    pub fn from_layers(layers: Vec<L>) -> Self {
        Self { layers }
    }

    /// The layers, in order.
    pub fn layers(&self) -> &[L] {
        &self.layers
    }

    /// The layers, mutably (to adjust one in place).
    pub fn layers_mut(&mut self) -> &mut [L] {
        &mut self.layers
    }

    /// Number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether there are no layers.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }
}

impl<L: Module> Module for Sequential<L> {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.layers.iter().for_each(|l| l.visit(f));
    }
}

impl<L: Forward<Output = Var>> Forward for Sequential<L> {
    type Output = Var;

    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let mut h = x;
        for layer in &self.layers {
            h = layer.forward(g, h)?;
        }
        Ok(h)
    }
}
