use crate::bands::Bands;
use crate::stepper::{Stepper, UpdateRule, optimizer_by_stepper};
use crate::{Check, Result};
use minnow_arena::AlignedBuf;
use minnow_autodiff::Params;
use minnow_kernels::{AdaGradParams, adagrad_step};

/// `torch.optim.Adagrad`'s settings and defaults.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdaGradConfig {
    /// Learning rate.
    pub lr: f32,
    /// Step t runs at lr / (1 + (t - 1) * lr_decay).
    pub lr_decay: f32,
    /// L2 penalty added to the gradient.
    pub weight_decay: f32,
    /// Where the sum of squared gradients starts.
    pub initial_accumulator_value: f32,
    /// Added to the denominator.
    pub eps: f32,
}

impl Default for AdaGradConfig {
    fn default() -> Self {
        Self { lr: 1e-2, lr_decay: 0.0, weight_decay: 0.0, initial_accumulator_value: 0.0, eps: 1e-10 }
    }
}

impl AdaGradConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("AdaGradConfig");
        check.non_negative("lr", self.lr)?;
        check.non_negative("lr_decay", self.lr_decay)?;
        check.non_negative("weight_decay", self.weight_decay)?;
        check.non_negative("initial_accumulator_value", self.initial_accumulator_value)?;
        // PyTorch accepts eps = 0; here the zero padding would become 0/0.
        Ok(check.positive("eps", self.eps)?)
    }

    /// An optimiser for `params`, with its accumulator allocated here.
    pub fn build(self, params: &Params) -> Result<AdaGrad> {
        self.validate()?;
        Ok(AdaGrad(Stepper::new(params, self.lr, |len| {
            let mut sum = AlignedBuf::zeros(len);
            sum.fill(self.initial_accumulator_value);
            AdaGradRule { config: self, sum }
        })))
    }
}

/// AdaGrad as PyTorch runs it; state "adagrad.sum" (padding between
/// tensors holds the initial value too, and never moves the zero padding
/// of the parameters).
#[derive(Clone, Debug)]
pub struct AdaGrad(Stepper<AdaGradRule>);

impl AdaGrad {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> AdaGradConfig {
        AdaGradConfig { lr: crate::Optimizer::lr(self), ..self.0.rule.config }
    }
}

optimizer_by_stepper!(AdaGrad);

/// AdaGrad's settings and sum of squared gradients.
#[derive(Clone, Debug)]
struct AdaGradRule {
    config: AdaGradConfig,
    sum: AlignedBuf,
}

impl UpdateRule for AdaGradRule {
    const NAME: &'static str = "AdaGrad";

    fn update(&mut self, steps: u64, lr: f32, values: &mut [f32], grads: &mut [f32], bands: &Bands) {
        let c = &self.config;
        let hp = AdaGradParams::new(lr, c.lr_decay, c.eps, c.weight_decay, steps + 1);
        bands.run([values, &mut self.sum], grads, &|[p, s], g| adagrad_step(p, g, s, &hp));
    }

    fn state(&self) -> Vec<(&'static str, &[f32])> {
        vec![("adagrad.sum", &self.sum[..])]
    }

    fn state_mut(&mut self) -> Vec<(&'static str, &mut [f32])> {
        vec![("adagrad.sum", &mut self.sum[..])]
    }
}
