use crate::bands::Bands;
use crate::stepper::{Stepper, UpdateRule, optimizer_by_stepper};
use crate::{Check, Result};
use minnow_arena::AlignedBuf;
use minnow_autodiff::Params;
use minnow_kernels::{RmsPropParams, rmsprop_step};

/// `torch.optim.RMSprop`'s settings and defaults.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RmsPropConfig {
    /// Learning rate.
    pub lr: f32,
    /// Decay of the running averages.
    pub alpha: f32,
    /// Added to the denominator.
    pub eps: f32,
    /// L2 penalty added to the gradient.
    pub weight_decay: f32,
    /// Momentum of the update (0: none).
    pub momentum: f32,
    /// Divide by the running variance (second moment minus squared mean)
    /// rather than the second moment.
    pub centered: bool,
}

impl Default for RmsPropConfig {
    fn default() -> Self {
        Self { lr: 1e-2, alpha: 0.99, eps: 1e-8, weight_decay: 0.0, momentum: 0.0, centered: false }
    }
}

impl RmsPropConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("RmsPropConfig");
        check.non_negative("lr", self.lr)?;
        // PyTorch only asks alpha >= 0; above 1 the average diverges.
        check.unit_closed("alpha", self.alpha)?;
        // PyTorch accepts eps = 0; here the zero padding would become 0/0.
        check.positive("eps", self.eps)?;
        check.non_negative("weight_decay", self.weight_decay)?;
        Ok(check.non_negative("momentum", self.momentum)?)
    }

    /// An optimiser for `params`, with its buffers allocated here: the
    /// gradient average only when centered, the momentum buffer only with
    /// momentum.
    pub fn build(self, params: &Params) -> Result<RmsProp> {
        self.validate()?;
        Ok(RmsProp(Stepper::new(params, self.lr, |len| RmsPropRule {
            square_avg: AlignedBuf::zeros(len),
            grad_avg: AlignedBuf::zeros(if self.centered { len } else { 0 }),
            momentum_buffer: AlignedBuf::zeros(if self.momentum > 0.0 { len } else { 0 }),
            config: self,
        })))
    }
}

/// RMSprop as PyTorch runs it; state "rmsprop.square_avg", plus
/// "rmsprop.grad_avg" when centered and "rmsprop.momentum_buffer" with
/// momentum.
#[derive(Clone, Debug)]
pub struct RmsProp(Stepper<RmsPropRule>);

impl RmsProp {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> RmsPropConfig {
        RmsPropConfig { lr: crate::Optimizer::lr(self), ..self.0.rule.config }
    }
}

optimizer_by_stepper!(RmsProp);

/// RMSprop's settings and buffers (those the settings leave off empty).
#[derive(Clone, Debug)]
struct RmsPropRule {
    config: RmsPropConfig,
    square_avg: AlignedBuf,
    grad_avg: AlignedBuf,
    momentum_buffer: AlignedBuf,
}

impl UpdateRule for RmsPropRule {
    const NAME: &'static str = "RmsProp";

    fn update(&mut self, _steps: u64, lr: f32, values: &mut [f32], grads: &mut [f32], bands: &Bands) {
        let c = &self.config;
        let hp = RmsPropParams {
            lr,
            alpha: c.alpha,
            eps: c.eps,
            weight_decay: c.weight_decay,
            momentum: c.momentum,
            centered: c.centered,
        };
        let buffers = [values, &mut self.square_avg, &mut self.grad_avg, &mut self.momentum_buffer];
        bands.run(buffers, grads, &|[p, s, a, b], g| rmsprop_step(p, g, s, a, b, &hp));
    }

    fn state(&self) -> Vec<(&'static str, &[f32])> {
        let mut state = vec![("rmsprop.square_avg", &self.square_avg[..])];
        if self.config.centered {
            state.push(("rmsprop.grad_avg", &self.grad_avg[..]));
        }
        if self.config.momentum > 0.0 {
            state.push(("rmsprop.momentum_buffer", &self.momentum_buffer[..]));
        }
        state
    }

    fn state_mut(&mut self) -> Vec<(&'static str, &mut [f32])> {
        let Self { config, square_avg, grad_avg, momentum_buffer } = self;
        let mut state = vec![("rmsprop.square_avg", &mut square_avg[..])];
        if config.centered {
            state.push(("rmsprop.grad_avg", &mut grad_avg[..]));
        }
        if config.momentum > 0.0 {
            state.push(("rmsprop.momentum_buffer", &mut momentum_buffer[..]));
        }
        state
    }
}
