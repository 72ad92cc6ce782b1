use crate::{OptimError, Result};
use minnow_autodiff::Params;
use minnow_tensor::Shape;
use std::ops::Range;

/// An optimiser over one [`Params`] store: each [`step`](Optimizer::step)
/// is one fused pass over the flat values, gradients and state buffers.
///
/// State buffers are laid out like [`Params::values`] (padding included),
/// allocated once when the optimiser is built; `step` never allocates.
pub trait Optimizer {
    /// Updates every parameter from its gradient and counts the step.
    /// An error, and no update at all (values, state and step count stay
    /// as they were), if `params` is not laid out like the store the
    /// optimiser was built for, or if a gradient holds NaN or an infinity:
    /// [`OptimError::NonFiniteGradient`] names the first such parameter.
    /// The check is one read pass over the gradients before the update.
    fn step(&mut self, params: &mut Params) -> Result<()>;

    /// As [`step`](Self::step), then leaves every gradient at zero, set in
    /// the same pass by the thread that read it: [`Params::zero_grads`]
    /// before the next backward pass without a second pass over memory
    /// (and, split over threads, without the gradients moving between
    /// cores). On an error the gradients too are left as they were.
    fn step_and_zero_grads(&mut self, params: &mut Params) -> Result<()>;

    /// Steps taken so far (PyTorch's `state["step"]`).
    fn step_count(&self) -> u64;

    /// Sets the step count, when resuming from a checkpoint: Adam's bias
    /// correction, AdaGrad's rate decay and SGD's first-step momentum all
    /// read it.
    fn set_step_count(&mut self, n: u64);

    /// The learning rate of the next step.
    fn lr(&self) -> f32;

    /// Sets the learning rate for the next steps (a schedule calls this).
    /// Panics unless `lr` is finite and >= 0: schedules only produce such
    /// rates, and configs are validated when built.
    fn set_lr(&mut self, lr: f32);

    /// Splits each step over `threads` threads of rayon's pool (0 and 1:
    /// the calling thread, the default). Elementwise, so the result is the
    /// same for any count.
    fn set_threads(&mut self, threads: usize);

    /// Every state buffer by name ("adam.m", "adam.v", ...), laid out like
    /// [`Params::values`]. For checkpoints; allocates the list.
    fn state(&self) -> Vec<(String, &[f32])>;

    /// Overwrites the state buffer `name` (one of those [`state`](Self::state) lists).
    fn load_state(&mut self, name: &str, values: &[f32]) -> Result<()>;
}

/// An error naming the first parameter with a NaN or infinite gradient,
/// if any: one vectorised read pass over the flat gradients (padding is
/// zero), the parameter looked up only when it finds one.
pub(crate) fn check_grads(params: &Params) -> Result<()> {
    if minnow_kernels::all_finite(params.grads()) { Ok(()) } else { Err(non_finite_gradient(params)) }
}

/// The error for the first non-finite gradient of `params` (the failure
/// path of [`check_grads`]; allocates the name).
fn non_finite_gradient(params: &Params) -> OptimError {
    for id in params.ids() {
        let grad = params.grad(id);
        if let Some(index) = grad.iter().position(|g| !g.is_finite()) {
            return OptimError::NonFiniteGradient { name: params.name(id).to_string(), index, value: grad[index] };
        }
    }
    // Only the padding between tensors, which a caller wrote through
    // `Params::grads_mut`.
    let index = params.grads().iter().position(|g| !g.is_finite()).unwrap_or(0);
    OptimError::NonFiniteGradient {
        name: "(padding between tensors)".to_string(),
        index,
        value: params.grads().get(index).copied().unwrap_or(0.0),
    }
}

#[track_caller]
pub(crate) fn check_lr(lr: f32) {
    assert!(lr.is_finite() && lr >= 0.0, "set_lr: expected a finite rate >= 0, found {lr}");
}

/// Slices the flat state buffer `name` per parameter: `("<name>.<param
/// name>", values)` for each parameter in order, padding left out. For
/// checkpoint writers.
pub fn split_state<'a>(params: &Params, name: &str, flat: &'a [f32]) -> Result<Vec<(String, &'a [f32])>> {
    if flat.len() != params.values().len() {
        return Err(OptimError::StateLength {
            name: name.to_string(),
            expected: params.values().len(),
            found: flat.len(),
        });
    }
    Ok(params.ids().map(|id| (format!("{name}.{}", params.name(id)), &flat[params.range(id)])).collect())
}

/// Every state buffer of `optimizer` split per parameter, as
/// [`split_state`] names them ("adam.m.fc1.weight", ...).
pub fn state_by_param<'a, O: Optimizer + ?Sized>(
    optimizer: &'a O,
    params: &Params,
) -> Result<Vec<(String, &'a [f32])>> {
    let mut all = Vec::new();
    for (name, flat) in optimizer.state() {
        all.extend(split_state(params, &name, flat)?);
    }
    Ok(all)
}

/// The inverse of [`state_by_param`]: for each of the optimiser's state
/// buffers, gathers `"<state>.<param>"` from `lookup` into the flat layout
/// of `params` and loads it. An error names the first missing or
/// wrongly sized piece; on error the optimiser may be partly loaded.
pub fn load_state_by_param<'a, O: Optimizer + ?Sized>(
    optimizer: &mut O,
    params: &Params,
    mut lookup: impl FnMut(&str) -> Option<&'a [f32]>,
) -> Result<()> {
    let names: Vec<String> = optimizer.state().into_iter().map(|(name, _)| name).collect();
    let mut flat = vec![0.0; params.values().len()];
    for name in names {
        flat.fill(0.0);
        for id in params.ids() {
            let key = format!("{name}.{}", params.name(id));
            let piece = lookup(&key).ok_or_else(|| OptimError::MissingState { name: key.clone() })?;
            let range = params.range(id);
            if piece.len() != range.len() {
                return Err(OptimError::StateLength { name: key, expected: range.len(), found: piece.len() });
            }
            flat[range].copy_from_slice(piece);
        }
        optimizer.load_state(&name, &flat)?;
    }
    Ok(())
}

/// The layout of the store an optimiser was built for: names, shapes and
/// ranges, checked (without allocating) on every step.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Layout {
    entries: Vec<(String, Shape, Range<usize>)>,
    len: usize,
}

impl Layout {
    /// Each tensor's shape and range in the flat buffers, in order.
    pub fn tensors(&self) -> impl Iterator<Item = (&Shape, &Range<usize>)> {
        self.entries.iter().map(|(_, shape, range)| (shape, range))
    }

    pub fn of(params: &Params) -> Self {
        let entries =
            params.ids().map(|id| (params.name(id).to_string(), params.shape(id), params.range(id))).collect();
        Self { entries, len: params.values().len() }
    }

    /// Length of the flat buffers, padding included.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn check(&self, params: &Params) -> Result<()> {
        let same = params.len() == self.entries.len()
            && params.values().len() == self.len
            && params.ids().zip(&self.entries).all(|(id, (name, shape, range))| {
                params.name(id) == name && params.shape(id) == *shape && params.range(id) == *range
            });
        if same {
            return Ok(());
        }
        let first_difference = params
            .ids()
            .zip(&self.entries)
            .find(|(id, (name, shape, _))| params.name(*id) != name || params.shape(*id) != *shape);
        let detail = match first_difference {
            Some((id, (name, shape, _))) => {
                format!("expected '{name}' {shape}, found '{}' {}", params.name(id), params.shape(id))
            }
            None => format!("expected {} tensors, found {}", self.entries.len(), params.len()),
        };
        Err(OptimError::LayoutMismatch { detail })
    }

    /// An error unless `values` fits a state buffer named `name`.
    pub fn check_state(&self, name: &str, values: &[f32]) -> Result<()> {
        if values.len() == self.len {
            Ok(())
        } else {
            Err(OptimError::StateLength { name: name.to_string(), expected: self.len, found: values.len() })
        }
    }
}

/// Copies `values` into the buffer named `name` among `buffers`, or an
/// error listing the names there are.
pub(crate) fn load_named(
    optimizer: &'static str,
    layout: &Layout,
    buffers: &mut [(&'static str, &mut [f32])],
    name: &str,
    values: &[f32],
) -> Result<()> {
    match buffers.iter_mut().find(|(n, _)| *n == name) {
        Some((_, buf)) => {
            layout.check_state(name, values)?;
            buf.copy_from_slice(values);
            Ok(())
        }
        None => Err(OptimError::UnknownState {
            optimizer,
            name: name.to_string(),
            expected: if buffers.is_empty() {
                "(no state)".to_string()
            } else {
                buffers.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            },
        }),
    }
}
