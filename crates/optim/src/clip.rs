//! Gradient clipping over the flat gradient buffer (padding is zero, so
//! it changes neither the norm nor anything else). Both refuse gradients
//! holding NaN or an infinity, as the optimisers do, naming the parameter
//! and changing nothing.

use crate::Result;
use crate::optimizer::check_grads;
use minnow_autodiff::Params;

/// PyTorch's `clip_grad_norm_` (L2): if the norm of all gradients together
/// exceeds `max_norm`, scales them by max_norm / (norm + 1e-6). Returns the
/// norm before clipping.
///
/// A NaN or infinite gradient is an error ([`OptimError::NonFiniteGradient`]
/// naming the parameter) and nothing is scaled; PyTorch would return a
/// NaN or infinite norm and scale by NaN or 0. Finite gradients whose
/// squares overflow f32 get their norm in f64 instead of an infinite one
/// (which would scale them all to 0).
///
/// Panics unless `max_norm` >= 0: it is a validated setting, not data.
///
/// [`OptimError::NonFiniteGradient`]: crate::OptimError::NonFiniteGradient
#[track_caller]
pub fn clip_grad_norm(params: &mut Params, max_norm: f32) -> Result<f32> {
    assert!(max_norm >= 0.0, "clip_grad_norm: expected max_norm >= 0, found {max_norm}");
    // The sum of squares is the norm's pass and the finiteness check at once.
    let mut norm = minnow_kernels::sum_squares(params.grads()).sqrt();
    if !norm.is_finite() {
        check_grads(params)?;
        norm = params.grads().iter().map(|&g| g as f64 * g as f64).sum::<f64>().sqrt() as f32;
    }
    let coef = max_norm / (norm + 1e-6);
    if coef < 1.0 {
        minnow_kernels::scale(coef, params.grads_mut());
    }
    Ok(norm)
}

/// PyTorch's `clip_grad_value_`: clamps every gradient to
/// [-clip_value, clip_value]. A NaN or infinite gradient is an error
/// ([`OptimError::NonFiniteGradient`] naming the parameter) and nothing is
/// clamped: clamping would turn an infinity into an ordinary-looking
/// gradient that the optimiser step would then accept.
///
/// Panics unless `clip_value` >= 0: it is a validated setting, not data.
///
/// [`OptimError::NonFiniteGradient`]: crate::OptimError::NonFiniteGradient
#[track_caller]
pub fn clip_grad_value(params: &mut Params, clip_value: f32) -> Result<()> {
    assert!(clip_value >= 0.0, "clip_grad_value: expected clip_value >= 0, found {clip_value}");
    check_grads(params)?;
    minnow_kernels::clip_by_value(params.grads_mut(), clip_value);
    Ok(())
}
