//! BatchNorm1d on [B, C] with learned gamma (ones) and beta (zeros), and
//! running statistics kept as buffers of the [`Params`] store (PyTorch's
//! buffers: saved in checkpoints beside the parameters, never trained).
//! In the store rather than the layer, they are written by a training
//! graph through a `&self` forward, follow the parameters into a target
//! network or a checkpoint, and stay out of the optimiser's flat memory.

use crate::{Forward, Module, config_error, join};
use minnow_autodiff::{BufferId, Graph, ParamId, Params, Result, Var};

/// PyTorch's defaults: eps 1e-5, momentum 0.1.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchNorm1dConfig {
    /// Channels (the width of x [B, features]).
    pub features: usize,
    /// Added to the variance (PyTorch: 1e-5).
    pub eps: f32,
    /// Weight of the batch in each running-statistics update:
    /// running = (1 - momentum) running + momentum batch.
    pub momentum: f32,
}

impl BatchNorm1dConfig {
    /// PyTorch's defaults for `features` channels.
    pub fn new(features: usize) -> Self {
        Self { features, eps: 1e-5, momentum: 0.1 }
    }

    /// Adds the parameters `name.weight` and `name.bias` and the buffers
    /// `name.running_mean` (zeros) and `name.running_var` (ones), all
    /// `[features]`, PyTorch's state_dict names.
    pub fn init(&self, params: &mut Params, name: &str) -> crate::Result<BatchNorm1d> {
        if self.features == 0 {
            return Err(config_error(name, "BatchNorm1d needs features > 0, found 0"));
        }
        if !(self.eps > 0.0 && self.eps.is_finite()) {
            return Err(config_error(name, format!("BatchNorm1d needs eps > 0, found {}", self.eps)));
        }
        if !(0.0..=1.0).contains(&self.momentum) {
            return Err(config_error(name, format!("BatchNorm1d needs momentum in [0, 1], found {}", self.momentum)));
        }
        let dims = [self.features];
        Ok(BatchNorm1d {
            gamma: params.add(&join(name, "weight"), &dims, |v| v.fill(1.0))?,
            beta: params.add(&join(name, "bias"), &dims, |v| v.fill(0.0))?,
            running_mean: params.add_buffer(&join(name, "running_mean"), &dims, |v| v.fill(0.0))?,
            running_var: params.add_buffer(&join(name, "running_var"), &dims, |v| v.fill(1.0))?,
            eps: self.eps,
            momentum: self.momentum,
        })
    }
}

/// A built [`BatchNorm1dConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchNorm1d {
    /// Per-channel scale.
    pub gamma: ParamId,
    /// Per-channel shift.
    pub beta: ParamId,
    /// The running mean per channel.
    pub running_mean: BufferId,
    /// The running (unbiased) variance per channel.
    pub running_var: BufferId,
    /// Added to the variance.
    pub eps: f32,
    /// Weight of a new batch in the running statistics.
    pub momentum: f32,
}

impl Module for BatchNorm1d {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        f(self.gamma);
        f(self.beta);
    }
}

impl Forward for BatchNorm1d {
    type Output = Var;

    /// x [B, C] -> [B, C]. A training graph: normalises with the batch's
    /// statistics and moves the running ones towards them (so it needs
    /// B >= 2). An inference graph: normalises with the running statistics.
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let (gamma, beta) = (g.param(self.gamma), g.param(self.beta));
        let training = g.is_training();
        g.batch_norm(x, self.running_mean, self.running_var, gamma, beta, training, self.momentum, self.eps)
    }
}
