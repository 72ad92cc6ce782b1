use crate::Check;
use crate::bands::in_bands;
use crate::optimizer::{Layout, check_grads, check_lr, load_named};
use crate::{OptimError, Optimizer, Result};
use minnow_arena::AlignedBuf;
use minnow_autodiff::Params;
use minnow_kernels::{SgdParams, sgd_step};

/// `torch.optim.SGD`'s settings and defaults.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SgdConfig {
    /// Learning rate.
    pub lr: f32,
    /// Momentum (0: plain SGD).
    pub momentum: f32,
    /// Dampening of the momentum.
    pub dampening: f32,
    /// L2 penalty added to the gradient.
    pub weight_decay: f32,
    /// Nesterov momentum.
    pub nesterov: bool,
}

impl Default for SgdConfig {
    fn default() -> Self {
        Self { lr: 1e-3, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false }
    }
}

impl SgdConfig {
    /// An error naming the first field out of range. Nesterov needs
    /// momentum and no dampening, as in PyTorch.
    pub fn validate(&self) -> Result<()> {
        let check = Check("SgdConfig");
        check.non_negative("lr", self.lr)?;
        check.non_negative("momentum", self.momentum)?;
        check.finite("dampening", self.dampening)?;
        check.non_negative("weight_decay", self.weight_decay)?;
        if self.nesterov && (self.momentum <= 0.0 || self.dampening != 0.0) {
            return Err(OptimError::Nesterov {
                config: "SgdConfig",
                momentum: self.momentum,
                dampening: self.dampening,
            });
        }
        Ok(())
    }

    /// An optimiser for `params`, with its momentum buffer (only if
    /// momentum is on) allocated here.
    pub fn build(self, params: &Params) -> Result<Sgd> {
        self.validate()?;
        let layout = Layout::of(params);
        let momentum_buffer = AlignedBuf::zeros(if self.momentum != 0.0 { layout.len() } else { 0 });
        Ok(Sgd { config: self, layout, momentum_buffer, steps: 0, threads: 1 })
    }
}

/// Stochastic gradient descent with PyTorch's momentum: the buffer starts
/// as the first step's gradient (when the step count is 0), then decays.
#[derive(Clone, Debug)]
pub struct Sgd {
    config: SgdConfig,
    layout: Layout,
    momentum_buffer: AlignedBuf,
    steps: u64,
    threads: usize,
}

impl Sgd {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> SgdConfig {
        self.config
    }

    fn has_momentum(&self) -> bool {
        self.config.momentum != 0.0
    }
}

impl Sgd {
    /// One step; with `zero`, the gradients cleared in the same pass.
    fn update(&mut self, params: &mut Params, zero: bool) -> Result<()> {
        self.layout.check(params)?;
        check_grads(params)?;
        let c = &self.config;
        let hp = SgdParams {
            lr: c.lr,
            momentum: c.momentum,
            dampening: c.dampening,
            weight_decay: c.weight_decay,
            nesterov: c.nesterov,
            first_step: self.steps == 0,
        };
        let (values, grads) = params.values_and_grads_mut();
        in_bands(self.threads, &self.layout, [values, &mut self.momentum_buffer], grads, zero, &|[p, b], g| {
            sgd_step(p, g, b, &hp)
        });
        self.steps += 1;
        Ok(())
    }
}

impl Optimizer for Sgd {
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
        if self.has_momentum() {
            vec![("sgd.momentum_buffer".to_string(), &self.momentum_buffer[..])]
        } else {
            Vec::new()
        }
    }

    fn load_state(&mut self, name: &str, values: &[f32]) -> Result<()> {
        let mut buffers: Vec<(&'static str, &mut [f32])> = Vec::with_capacity(1);
        if self.config.momentum != 0.0 {
            buffers.push(("sgd.momentum_buffer", &mut self.momentum_buffer[..]));
        }
        load_named("Sgd", &self.layout, &mut buffers, name, values)
    }
}
