use crate::Check;
use crate::bands::in_bands;
use crate::optimizer::{Layout, check_grads, check_lr, load_named};
use crate::{Optimizer, Result};
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
        Ok(Adam(Moments::new(params, self, false, ["adam.m", "adam.v"])))
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
        Ok(AdamW(Moments::new(params, AdamConfig { lr, betas, eps, weight_decay }, true, ["adamw.m", "adamw.v"])))
    }
}

/// What Adam and AdamW share: the moment buffers and the fused update.
#[derive(Clone, Debug)]
struct Moments {
    config: AdamConfig,
    decoupled: bool,
    names: [&'static str; 2],
    layout: Layout,
    m: AlignedBuf,
    v: AlignedBuf,
    steps: u64,
    threads: usize,
}

impl Moments {
    fn new(params: &Params, config: AdamConfig, decoupled: bool, names: [&'static str; 2]) -> Self {
        let layout = Layout::of(params);
        let (m, v) = (AlignedBuf::zeros(layout.len()), AlignedBuf::zeros(layout.len()));
        Self { config, decoupled, names, layout, m, v, steps: 0, threads: 1 }
    }

    fn step(&mut self, params: &mut Params, zero: bool) -> Result<()> {
        self.layout.check(params)?;
        check_grads(params)?;
        let c = &self.config;
        let hp = AdamParams::new(c.lr, c.betas.0, c.betas.1, c.eps, c.weight_decay, self.decoupled, self.steps + 1);
        let (values, grads) = params.values_and_grads_mut();
        let buffers = [values, &mut self.m[..], &mut self.v[..]];
        in_bands(self.threads, &self.layout, buffers, grads, zero, &|[p, m, v], g| adam_step(p, g, m, v, &hp));
        self.steps += 1;
        Ok(())
    }

    fn state(&self) -> Vec<(String, &[f32])> {
        vec![(self.names[0].to_string(), &self.m[..]), (self.names[1].to_string(), &self.v[..])]
    }

    fn load_state(&mut self, optimizer: &'static str, name: &str, values: &[f32]) -> Result<()> {
        let mut buffers = [(self.names[0], &mut self.m[..]), (self.names[1], &mut self.v[..])];
        load_named(optimizer, &self.layout, &mut buffers, name, values)
    }
}

/// Adam with PyTorch's bias correction; state "adam.m" and "adam.v".
#[derive(Clone, Debug)]
pub struct Adam(Moments);

/// AdamW (decoupled weight decay); state "adamw.m" and "adamw.v".
#[derive(Clone, Debug)]
pub struct AdamW(Moments);

impl Adam {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> AdamConfig {
        self.0.config
    }
}

impl AdamW {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> AdamWConfig {
        let AdamConfig { lr, betas, eps, weight_decay } = self.0.config;
        AdamWConfig { lr, betas, eps, weight_decay }
    }
}

macro_rules! delegate_to_moments {
    ($ty:ident, $name:literal) => {
        impl Optimizer for $ty {
            fn step(&mut self, params: &mut Params) -> Result<()> {
                self.0.step(params, false)
            }

            fn step_and_zero_grads(&mut self, params: &mut Params) -> Result<()> {
                self.0.step(params, true)
            }

            fn step_count(&self) -> u64 {
                self.0.steps
            }

            fn set_threads(&mut self, threads: usize) {
                self.0.threads = threads;
            }

            fn set_step_count(&mut self, n: u64) {
                self.0.steps = n;
            }

            fn lr(&self) -> f32 {
                self.0.config.lr
            }

            fn set_lr(&mut self, lr: f32) {
                check_lr(lr);
                self.0.config.lr = lr;
            }

            fn state(&self) -> Vec<(String, &[f32])> {
                self.0.state()
            }

            fn load_state(&mut self, name: &str, values: &[f32]) -> Result<()> {
                self.0.load_state($name, name, values)
            }
        }
    };
}

delegate_to_moments!(Adam, "Adam");
delegate_to_moments!(AdamW, "AdamW");
