use crate::Check;
use crate::bands::in_bands;
use crate::optimizer::{Layout, check_grads, check_lr, load_named};
use crate::{Optimizer, Result};
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
        let layout = Layout::of(params);
        let n = layout.len();
        Ok(RmsProp {
            square_avg: AlignedBuf::zeros(n),
            grad_avg: AlignedBuf::zeros(if self.centered { n } else { 0 }),
            momentum_buffer: AlignedBuf::zeros(if self.momentum > 0.0 { n } else { 0 }),
            config: self,
            layout,
            steps: 0,
            threads: 1,
        })
    }
}

/// RMSprop as PyTorch runs it; state "rmsprop.square_avg", plus
/// "rmsprop.grad_avg" when centered and "rmsprop.momentum_buffer" with
/// momentum.
#[derive(Clone, Debug)]
pub struct RmsProp {
    config: RmsPropConfig,
    layout: Layout,
    square_avg: AlignedBuf,
    grad_avg: AlignedBuf,
    momentum_buffer: AlignedBuf,
    steps: u64,
    threads: usize,
}

impl RmsProp {
    /// The settings, with the current learning rate.
    pub fn config(&self) -> RmsPropConfig {
        self.config
    }
}

impl RmsProp {
    /// One step; with `zero`, the gradients cleared in the same pass.
    fn update(&mut self, params: &mut Params, zero: bool) -> Result<()> {
        self.layout.check(params)?;
        check_grads(params)?;
        let c = &self.config;
        let hp = RmsPropParams {
            lr: c.lr,
            alpha: c.alpha,
            eps: c.eps,
            weight_decay: c.weight_decay,
            momentum: c.momentum,
            centered: c.centered,
        };
        let (values, grads) = params.values_and_grads_mut();
        let buffers = [values, &mut self.square_avg, &mut self.grad_avg, &mut self.momentum_buffer];
        in_bands(self.threads, &self.layout, buffers, grads, zero, &|[p, s, a, b], g| rmsprop_step(p, g, s, a, b, &hp));
        self.steps += 1;
        Ok(())
    }
}

impl Optimizer for RmsProp {
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
        let mut state = vec![("rmsprop.square_avg".to_string(), &self.square_avg[..])];
        if self.config.centered {
            state.push(("rmsprop.grad_avg".to_string(), &self.grad_avg[..]));
        }
        if self.config.momentum > 0.0 {
            state.push(("rmsprop.momentum_buffer".to_string(), &self.momentum_buffer[..]));
        }
        state
    }

    fn load_state(&mut self, name: &str, values: &[f32]) -> Result<()> {
        let Self { config, layout, square_avg, grad_avg, momentum_buffer, .. } = self;
        let mut buffers: Vec<(&'static str, &mut [f32])> = vec![("rmsprop.square_avg", &mut square_avg[..])];
        if config.centered {
            buffers.push(("rmsprop.grad_avg", &mut grad_avg[..]));
        }
        if config.momentum > 0.0 {
            buffers.push(("rmsprop.momentum_buffer", &mut momentum_buffer[..]));
        }
        load_named("RmsProp", layout, &mut buffers, name, values)
    }
}
