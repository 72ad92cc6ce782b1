use crate::Check;
use crate::bands::in_bands;
use crate::optimizer::{Layout, check_grads, check_lr, load_named};
use crate::{Optimizer, Result};
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
        let layout = Layout::of(params);
        let mut sum = AlignedBuf::zeros(layout.len());
        sum.fill(self.initial_accumulator_value);
        Ok(AdaGrad { config: self, layout, sum, steps: 0, threads: 1 })
    }
}

/// AdaGrad as PyTorch runs it; state "adagrad.sum" (padding between
/// tensors holds the initial value too, and never moves the zero padding
/// of the parameters).
#[derive(Clone, Debug)]
pub struct AdaGrad {
    config: AdaGradConfig,
    layout: Layout,
    sum: AlignedBuf,
    steps: u64,
    threads: usize,
}

impl AdaGrad {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> AdaGradConfig {
        self.config
    }
}

impl AdaGrad {
    /// One step; with `zero`, the gradients cleared in the same pass.
    fn update(&mut self, params: &mut Params, zero: bool) -> Result<()> {
        self.layout.check(params)?;
        check_grads(params)?;
        let c = &self.config;
        let hp = AdaGradParams::new(c.lr, c.lr_decay, c.eps, c.weight_decay, self.steps + 1);
        let (values, grads) = params.values_and_grads_mut();
        in_bands(self.threads, &self.layout, [values, &mut self.sum], grads, zero, &|[p, s], g| {
            adagrad_step(p, g, s, &hp)
        });
        self.steps += 1;
        Ok(())
    }
}

impl Optimizer for AdaGrad {
    fn step(&mut self, params: &mut Params) -> Result<()> {
        self.update(params, false)
    }

    fn step_and_zero_grads(&mut self, params: &mut Params) -> Result<()> {
        self.update(params, true)
    }

    fn step_count(&self) -> u64 {
        self.steps
    }

    fn set_threads(&mut self, threads: usize) {
        self.threads = threads;
    }

    fn set_step_count(&mut self, n: u64) {
        self.steps = n;
    }

    fn lr(&self) -> f32 {
        self.config.lr
    }

    fn set_lr(&mut self, lr: f32) {
        check_lr(lr);
        self.config.lr = lr;
    }

    fn state(&self) -> Vec<(String, &[f32])> {
        vec![("adagrad.sum".to_string(), &self.sum[..])]
    }

    fn load_state(&mut self, name: &str, values: &[f32]) -> Result<()> {
        load_named("AdaGrad", &self.layout, &mut [("adagrad.sum", &mut self.sum[..])], name, values)
    }
}
