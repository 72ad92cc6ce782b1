//! Dropout with its own seeded generator: each training forward draws one
//! seed from it for `Graph::dropout`'s mask, so a run with a seed replays
//! exactly, and the generator's state is saved with a checkpoint.

use crate::{Module, NnError, config_error};
use minnow_autodiff::{Graph, ParamId, Result, Var};
use rand::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// `nn.Dropout(p)`, seeded.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropoutConfig {
    /// Probability of zeroing an element, in [0, 1) (PyTorch's default 0.5).
    pub p: f32,
    /// The seed of the layer's mask generator.
    pub seed: u64,
}

impl DropoutConfig {
    /// Drops each value with probability `p`.
    pub fn new(p: f32, seed: u64) -> Self {
        Self { p, seed }
    }

    /// The layer, or an error unless p is in [0, 1).
    pub fn init(&self) -> crate::Result<Dropout> {
        check_p(self.p)?;
        Ok(Dropout { p: self.p, rng: Pcg64Mcg::seed_from_u64(self.seed), training: true })
    }
}

fn check_p(p: f32) -> crate::Result<()> {
    if (0.0..1.0).contains(&p) {
        Ok(())
    } else {
        Err(config_error("Dropout", format!("p must be in [0, 1), found {p}")))
    }
}

/// Inverted dropout in training mode (kept elements scaled by 1 / (1 - p)),
/// the identity in evaluation mode. Starts in training mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dropout {
    p: f32,
    rng: Pcg64Mcg,
    training: bool,
}

impl Dropout {
    /// The drop probability.
    pub fn p(&self) -> f32 {
        self.p
    }

    /// Whether values are dropped (train) or passed through (eval).
    pub fn is_training(&self) -> bool {
        self.training
    }

    /// Training: drops each element with probability p (advancing the
    /// generator by one draw). Evaluation, or p = 0: returns x itself.
    pub fn forward(&mut self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        if !self.training || self.p == 0.0 {
            return Ok(x);
        }
        g.dropout(x, self.p, self.rng.next_u64())
    }

    /// The layer's whole state (p, generator, mode) as JSON, for checkpoint
    /// metadata.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain data always serialises")
    }

    /// Reads the state [`to_json`](Self::to_json) wrote.
    pub fn from_json(text: &str) -> crate::Result<Self> {
        let layer: Self =
            serde_json::from_str(text).map_err(|e| NnError::BadState { what: "dropout", detail: e.to_string() })?;
        check_p(layer.p)?;
        Ok(layer)
    }
}

impl Module for Dropout {
    fn visit(&self, _f: &mut dyn FnMut(ParamId)) {}

    fn set_training(&mut self, training: bool) {
        self.training = training;
    }
}
