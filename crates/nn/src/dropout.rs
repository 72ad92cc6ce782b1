//! Dropout: in a training graph, zeroes each value with probability p and
//! scales the rest by 1 / (1 - p); in an inference graph, the identity.
//! The layer holds only p: each training forward draws its mask's seed
//! from the graph's stream (`Graph::set_seed`), so a step with a given
//! seed replays exactly and a checkpoint needs no generator state.

use crate::{Forward, Module, config_error};
use minnow_autodiff::{Graph, ParamId, Result, Var};

/// `nn.Dropout(p)`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropoutConfig {
    /// Probability of zeroing an element, in [0, 1) (PyTorch's default 0.5).
    pub p: f32,
}

impl DropoutConfig {
    /// Drops each value with probability `p`.
    pub fn new(p: f32) -> Self {
        Self { p }
    }

    /// The layer, or an error unless p is in [0, 1).
    pub fn init(&self) -> crate::Result<Dropout> {
        if !(0.0..1.0).contains(&self.p) {
            return Err(config_error("Dropout", format!("p must be in [0, 1), found {}", self.p)));
        }
        Ok(Dropout { p: self.p })
    }
}

/// A built [`DropoutConfig`]: inverted dropout in training graphs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dropout {
    p: f32,
}

impl Dropout {
    /// The drop probability.
    pub fn p(&self) -> f32 {
        self.p
    }
}

impl Module for Dropout {
    fn visit(&self, _f: &mut dyn FnMut(ParamId)) {}
}

impl Forward for Dropout {
    type Output = Var;

    /// A training graph: drops each element with probability p, with the
    /// graph's next seed (an error if nobody seeded it). An inference
    /// graph, or p = 0: returns x itself and draws nothing.
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        if !g.is_training() || self.p == 0.0 {
            return Ok(x);
        }
        let seed = g.next_seed()?;
        g.dropout(x, self.p, seed)
    }
}
