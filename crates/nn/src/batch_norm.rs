//! BatchNorm1d on [B, C] with learned gamma (ones) and beta (zeros), and
//! running statistics owned by the layer: buffers in PyTorch's sense, saved
//! in checkpoints beside the parameters but never trained.

use crate::{Checkpoint, Module, NnError, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};

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

    /// Adds `name.weight` and `name.bias` `[features]`; the running mean
    /// starts at 0 and the running variance at 1.
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
        let gamma = params.add(&join(name, "weight"), &[self.features], |v| v.fill(1.0))?;
        let beta = params.add(&join(name, "bias"), &[self.features], |v| v.fill(0.0))?;
        Ok(BatchNorm1d {
            gamma,
            beta,
            running_mean: vec![0.0; self.features],
            running_var: vec![1.0; self.features],
            names: [join(name, "running_mean"), join(name, "running_var")],
            eps: self.eps,
            momentum: self.momentum,
            training: true,
        })
    }
}

/// Starts in training mode, as PyTorch modules do.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchNorm1d {
    /// Per-channel scale.
    pub gamma: ParamId,
    /// Per-channel shift.
    pub beta: ParamId,
    running_mean: Vec<f32>,
    running_var: Vec<f32>,
    /// `name.running_mean`, `name.running_var`.
    names: [String; 2],
    /// Added to the variance.
    pub eps: f32,
    /// Weight of a new batch in the running statistics.
    pub momentum: f32,
    training: bool,
}

impl BatchNorm1d {
    /// x [B, C] -> [B, C]. Training: normalises with the batch's statistics
    /// and moves the running ones towards them (so it needs B >= 2).
    /// Evaluation: normalises with the running statistics.
    pub fn forward(&mut self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let (gamma, beta) = (g.param(self.gamma), g.param(self.beta));
        g.batch_norm(
            x,
            &mut self.running_mean,
            &mut self.running_var,
            gamma,
            beta,
            self.training,
            self.momentum,
            self.eps,
        )
    }

    /// Whether batches use their own statistics (train) or the running ones (eval).
    pub fn is_training(&self) -> bool {
        self.training
    }

    /// The running mean per channel.
    pub fn running_mean(&self) -> &[f32] {
        &self.running_mean
    }

    /// The running (unbiased) variance per channel.
    pub fn running_var(&self) -> &[f32] {
        &self.running_var
    }

    /// The running statistics under their checkpoint names
    /// (`name.running_mean`, `name.running_var`, as PyTorch's state_dict).
    pub fn buffers(&self) -> [(&str, &[f32]); 2] {
        [(&self.names[0], &self.running_mean), (&self.names[1], &self.running_var)]
    }

    /// Sets the buffer called `name` (one of [`buffers`](Self::buffers)'
    /// names) from `values`; an error for another name or length.
    pub fn load_buffer(&mut self, name: &str, values: &[f32]) -> crate::Result<()> {
        let target = if name == self.names[0] {
            &mut self.running_mean
        } else if name == self.names[1] {
            &mut self.running_var
        } else {
            return Err(NnError::Config {
                layer: "BatchNorm1d".into(),
                detail: format!("'{name}' is not a buffer (expected '{}' or '{}')", self.names[0], self.names[1]),
            });
        };
        if values.len() != target.len() {
            return Err(NnError::TensorLength { name: name.to_string(), expected: target.len(), found: values.len() });
        }
        target.copy_from_slice(values);
        Ok(())
    }

    /// Loads both buffers from a checkpoint; checks both first, so on an
    /// error nothing has changed.
    pub fn restore_buffers(&mut self, checkpoint: &Checkpoint) -> crate::Result<()> {
        let mut found = [&[][..]; 2];
        for (slot, name) in found.iter_mut().zip(&self.names) {
            *slot = checkpoint.tensor(name).ok_or_else(|| NnError::MissingTensor { name: name.clone() })?;
            if slot.len() != self.running_mean.len() {
                return Err(NnError::TensorLength {
                    name: name.clone(),
                    expected: self.running_mean.len(),
                    found: slot.len(),
                });
            }
        }
        self.running_mean.copy_from_slice(found[0]);
        self.running_var.copy_from_slice(found[1]);
        Ok(())
    }
}

impl Module for BatchNorm1d {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        f(self.gamma);
        f(self.beta);
    }

    fn set_training(&mut self, training: bool) {
        self.training = training;
    }
}
