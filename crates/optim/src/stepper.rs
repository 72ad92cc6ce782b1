//! What every optimiser here shares around its own update rule: the check
//! that the store is laid out as when the optimiser was built, the check
//! that the gradients are finite, the step count, the thread count, naming
//! the state for checkpoints, and so the whole of [`Optimizer`]. Each
//! public optimiser is a [`Stepper`] around its [`UpdateRule`].

use crate::bands::Bands;
use crate::optimizer::{Layout, check_grads, check_lr, load_named};
use crate::{Optimizer, Result};
use minnow_autodiff::Params;

/// What sets one optimiser apart: its settings, its state buffers and the
/// fused kernel that updates them.
pub(crate) trait UpdateRule {
    /// The optimiser's name in error messages ("Sgd").
    const NAME: &'static str;

    /// One fused pass over `values`, `grads` and the state at learning
    /// rate `lr`, split by `bands`; `steps` steps came before it.
    fn update(&mut self, steps: u64, lr: f32, values: &mut [f32], grads: &mut [f32], bands: &Bands);

    /// The state buffers these settings keep, by name.
    fn state(&self) -> Vec<(&'static str, &[f32])>;

    /// The same buffers, to load a checkpoint into.
    fn state_mut(&mut self) -> Vec<(&'static str, &mut [f32])>;
}

/// An optimiser: its [`UpdateRule`] and the layout of the store it was
/// built for, with what changes as it trains: the step count, the
/// learning rate (a schedule sets it; the rule's own settings keep the
/// first) and the thread count.
#[derive(Clone, Debug)]
pub(crate) struct Stepper<R> {
    pub rule: R,
    layout: Layout,
    steps: u64,
    lr: f32,
    threads: usize,
}

impl<R: UpdateRule> Stepper<R> {
    /// An optimiser for `params` at learning rate `lr`, no step taken, on
    /// the calling thread; `rule` is given the length of the flat buffers
    /// to allocate its state.
    pub fn new(params: &Params, lr: f32, rule: impl FnOnce(usize) -> R) -> Self {
        let layout = Layout::of(params);
        Self { rule: rule(layout.len()), layout, steps: 0, lr, threads: 1 }
    }

    /// One step; with `zero`, the gradients cleared in the same pass.
    fn update(&mut self, params: &mut Params, zero: bool) -> Result<()> {
        self.layout.check(params)?;
        check_grads(params)?;
        let (values, grads) = params.values_and_grads_mut();
        let bands = Bands { layout: &self.layout, threads: self.threads, zero };
        self.rule.update(self.steps, self.lr, values, grads, &bands);
        self.steps += 1;
        Ok(())
    }
}

impl<R: UpdateRule> Optimizer for Stepper<R> {
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
        self.lr
    }

    fn set_lr(&mut self, lr: f32) {
        check_lr(lr);
        self.lr = lr;
    }

    fn state(&self) -> Vec<(String, &[f32])> {
        self.rule.state().into_iter().map(|(name, buffer)| (name.to_string(), buffer)).collect()
    }

    fn load_state(&mut self, name: &str, values: &[f32]) -> Result<()> {
        load_named(R::NAME, &self.layout, &mut self.rule.state_mut(), name, values)
    }
}

/// `impl Optimizer` for public newtypes around a [`Stepper`], passing
/// every call on to it. A blanket impl over a private trait would do the
/// same, but would rule out impls such as `Optimizer for Box<O>` here.
macro_rules! optimizer_by_stepper {
    ($($optimizer:ty),+) => {$(
        impl $crate::Optimizer for $optimizer {
            fn step(&mut self, params: &mut minnow_autodiff::Params) -> $crate::Result<()> {
                self.0.step(params)
            }

            fn step_and_zero_grads(&mut self, params: &mut minnow_autodiff::Params) -> $crate::Result<()> {
                self.0.step_and_zero_grads(params)
            }

            fn step_count(&self) -> u64 {
                self.0.step_count()
            }

            fn set_threads(&mut self, threads: usize) {
                self.0.set_threads(threads)
            }

            fn set_step_count(&mut self, n: u64) {
                self.0.set_step_count(n)
            }

            fn lr(&self) -> f32 {
                self.0.lr()
            }

            fn set_lr(&mut self, lr: f32) {
                self.0.set_lr(lr)
            }

            fn state(&self) -> Vec<(String, &[f32])> {
                self.0.state()
            }

            fn load_state(&mut self, name: &str, values: &[f32]) -> $crate::Result<()> {
                self.0.load_state(name, values)
            }
        }
    )+};
}

pub(crate) use optimizer_by_stepper;
