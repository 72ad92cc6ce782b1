use crate::bands::Bands;
use crate::stepper::{Stepper, UpdateRule, optimizer_by_stepper};
use crate::{Check, Result};
use minnow_arena::AlignedBuf;
use minnow_autodiff::Params;
use minnow_kernels::{AdamParams, adam_step};

/// `torch.optim.Adam`'s settings and defaults. Weight decay is added to
/// the gradient (L2 regularisation); see [`AdamWConfig`] for decoupled decay.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdamConfig {
    /// Learning rate.
    pub lr: f32,
    /// Decay of the first and second moments.
    pub betas: (f32, f32),
    /// Added to the denominator.
    pub eps: f32,
    /// L2 penalty added to the gradient.
    pub weight_decay: f32,
}

impl Default for AdamConfig {
    fn default() -> Self {
        Self { lr: 1e-3, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 0.0 }
    }
}

/// `torch.optim.AdamW`'s settings and defaults: the weights decay by
/// `lr * weight_decay` each step, apart from the gradient.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdamWConfig {
    /// Learning rate.
    pub lr: f32,
    /// Decay of the first and second moments.
    pub betas: (f32, f32),
    /// Added to the denominator.
    pub eps: f32,
    /// Decoupled decay: weights shrink by lr * weight_decay per step.
    pub weight_decay: f32,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        Self { lr: 1e-3, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 1e-2 }
    }
}

fn validate(config: &'static str, lr: f32, betas: (f32, f32), eps: f32, weight_decay: f32) -> Result<()> {
    let check = Check(config);
    check.non_negative("lr", lr)?;
    check.unit_open("betas.0", betas.0)?;
    check.unit_open("betas.1", betas.1)?;
    // PyTorch accepts eps = 0; here it would turn the zero padding between
    // tensors into 0/0 = NaN.
    check.positive("eps", eps)?;
    Ok(check.non_negative("weight_decay", weight_decay)?)
}

impl AdamConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        validate("AdamConfig", self.lr, self.betas, self.eps, self.weight_decay)
    }

    /// An optimiser for `params`, with its moment buffers allocated here.
    pub fn build(self, params: &Params) -> Result<Adam> {
        self.validate()?;
        Ok(Adam(Stepper::new(params, self.lr, |len| Moments::new(self, len))))
    }
}

impl AdamWConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        validate("AdamWConfig", self.lr, self.betas, self.eps, self.weight_decay)
    }

    /// An optimiser for `params`, with its moment buffers allocated here.
    pub fn build(self, params: &Params) -> Result<AdamW> {
        self.validate()?;
        let AdamWConfig { lr, betas, eps, weight_decay } = self;
        Ok(AdamW(Stepper::new(params, self.lr, |len| Moments::new(AdamConfig { lr, betas, eps, weight_decay }, len))))
    }
}

/// Adam with PyTorch's bias correction; state "adam.m" and "adam.v".
#[derive(Clone, Debug)]
pub struct Adam(Stepper<Moments<false>>);

/// AdamW (decoupled weight decay); state "adamw.m" and "adamw.v".
#[derive(Clone, Debug)]
pub struct AdamW(Stepper<Moments<true>>);

impl Adam {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> AdamConfig {
        AdamConfig { lr: crate::Optimizer::lr(self), ..self.0.rule.config }
    }
}

impl AdamW {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> AdamWConfig {
        let AdamConfig { betas, eps, weight_decay, .. } = self.0.rule.config;
        AdamWConfig { lr: crate::Optimizer::lr(self), betas, eps, weight_decay }
    }
}

optimizer_by_stepper!(Adam, AdamW);

/// What Adam and AdamW share: the settings (AdamW's as an [`AdamConfig`])
/// and the moment buffers; `DECOUPLED` tells them apart.
#[derive(Clone, Debug)]
struct Moments<const DECOUPLED: bool> {
    config: AdamConfig,
    m: AlignedBuf,
    v: AlignedBuf,
}

impl<const DECOUPLED: bool> Moments<DECOUPLED> {
    const STATE: [&'static str; 2] = if DECOUPLED { ["adamw.m", "adamw.v"] } else { ["adam.m", "adam.v"] };

    fn new(config: AdamConfig, len: usize) -> Self {
        Self { config, m: AlignedBuf::zeros(len), v: AlignedBuf::zeros(len) }
    }
}

impl<const DECOUPLED: bool> UpdateRule for Moments<DECOUPLED> {
    const NAME: &'static str = if DECOUPLED { "AdamW" } else { "Adam" };

    fn update(&mut self, steps: u64, lr: f32, values: &mut [f32], grads: &mut [f32], bands: &Bands) {
        let c = &self.config;
        let hp = AdamParams::new(lr, c.betas.0, c.betas.1, c.eps, c.weight_decay, DECOUPLED, steps + 1);
        let buffers = [values, &mut self.m[..], &mut self.v[..]];
        bands.run(buffers, grads, &|[p, m, v], g| adam_step(p, g, m, v, &hp));
    }

    fn state(&self) -> Vec<(&'static str, &[f32])> {
        vec![(Self::STATE[0], &self.m[..]), (Self::STATE[1], &self.v[..])]
    }

    fn state_mut(&mut self) -> Vec<(&'static str, &mut [f32])> {
        vec![(Self::STATE[0], &mut self.m[..]), (Self::STATE[1], &mut self.v[..])]
    }
}
