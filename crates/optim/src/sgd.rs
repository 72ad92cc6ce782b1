use crate::bands::Bands;
use crate::stepper::{Stepper, UpdateRule, optimizer_by_stepper};
use crate::{Check, OptimError, Result};
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
        let momentum = self.momentum != 0.0;
        Ok(Sgd(Stepper::new(params, self.lr, |len| SgdRule {
            config: self,
            momentum_buffer: AlignedBuf::zeros(if momentum { len } else { 0 }),
        })))
    }
}

/// Stochastic gradient descent with PyTorch's momentum: the buffer starts
/// as the first step's gradient (when the step count is 0), then decays.
#[derive(Clone, Debug)]
pub struct Sgd(Stepper<SgdRule>);

impl Sgd {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> SgdConfig {
        SgdConfig { lr: crate::Optimizer::lr(self), ..self.0.rule.config }
    }
}

optimizer_by_stepper!(Sgd);

/// SGD's settings and momentum buffer (empty without momentum).
#[derive(Clone, Debug)]
struct SgdRule {
    config: SgdConfig,
    momentum_buffer: AlignedBuf,
}

impl UpdateRule for SgdRule {
    const NAME: &'static str = "Sgd";

    fn update(&mut self, steps: u64, lr: f32, values: &mut [f32], grads: &mut [f32], bands: &Bands) {
        let c = &self.config;
        let hp = SgdParams {
            lr,
            momentum: c.momentum,
            dampening: c.dampening,
            weight_decay: c.weight_decay,
            nesterov: c.nesterov,
            first_step: steps == 0,
        };
        bands.run([values, &mut self.momentum_buffer], grads, &|[p, b], g| sgd_step(p, g, b, &hp));
    }

    fn state(&self) -> Vec<(&'static str, &[f32])> {
        if self.config.momentum != 0.0 { vec![("sgd.momentum_buffer", &self.momentum_buffer[..])] } else { Vec::new() }
    }

    fn state_mut(&mut self) -> Vec<(&'static str, &mut [f32])> {
        if self.config.momentum != 0.0 {
            vec![("sgd.momentum_buffer", &mut self.momentum_buffer[..])]
        } else {
            Vec::new()
        }
    }
}
