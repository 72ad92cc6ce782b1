//! Gradient clipping over the flat gradient buffer (padding is zero, so
//! it changes neither the norm nor anything else).

use minnow_autodiff::Params;

/// PyTorch's `clip_grad_norm_` (L2): if the norm of all gradients together
/// exceeds `max_norm`, scales them by max_norm / (norm + 1e-6). Returns the
/// norm before clipping, which is NaN or infinite if a gradient is.
///
/// Panics unless `max_norm` >= 0: it is a validated setting, not data.
#[track_caller]
pub fn clip_grad_norm(params: &mut Params, max_norm: f32) -> f32 {
    assert!(max_norm >= 0.0, "clip_grad_norm: expected max_norm >= 0, found {max_norm}");
    let grads = params.grads_mut();
    let norm = minnow_kernels::sum_squares(grads).sqrt();
    let coef = max_norm / (norm + 1e-6);
    if coef < 1.0 {
        minnow_kernels::scale(coef, grads);
    }
    norm
}

/// PyTorch's `clip_grad_value_`: clamps every gradient to
/// [-clip_value, clip_value]; NaN stays NaN.
///
/// Panics unless `clip_value` >= 0: it is a validated setting, not data.
#[track_caller]
pub fn clip_grad_value(params: &mut Params, clip_value: f32) {
    assert!(clip_value >= 0.0, "clip_grad_value: expected clip_value >= 0, found {clip_value}");
    minnow_kernels::clip_by_value(params.grads_mut(), clip_value);
}
