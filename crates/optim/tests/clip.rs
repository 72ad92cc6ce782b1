//! Gradient clipping by total norm and by value, PyTorch's semantics.

mod common;

use common::{live, tiny};
use minnow_autodiff::Params;
use minnow_optim::{OptimError, clip_grad_norm, clip_grad_value};

/// Gradients 3, 4 in the weight and 12 in the bias: total norm 13.
fn with_norm_13() -> Params {
    let mut params = tiny();
    let (w, b) = (params.find("fc.weight").unwrap(), params.find("fc.bias").unwrap());
    params.grad_mut(w).copy_from_slice(&[3.0, 0.0, 0.0, 4.0]);
    params.grad_mut(b).copy_from_slice(&[0.0, 12.0, 0.0]);
    params
}

#[test]
fn clip_grad_norm_scales_all_gradients_together() {
    let mut params = with_norm_13();
    let norm = clip_grad_norm(&mut params, 6.5).unwrap();
    assert_eq!(norm, 13.0);
    let coef = 6.5 / (13.0 + 1e-6);
    let want = [3.0 * coef, 0.0, 0.0, 4.0 * coef, 0.0, 12.0 * coef, 0.0];
    for (&i, w) in live(&params).iter().zip(want) {
        assert!((params.grads()[i] - w).abs() < 1e-6, "element {i}: {} vs {w}", params.grads()[i]);
    }
    let after = params.grads().iter().map(|g| g * g).sum::<f32>().sqrt();
    assert!((after - 6.5).abs() < 1e-5, "norm after clipping {after}");
    assert!(params.grads().iter().enumerate().all(|(i, &g)| live(&params).contains(&i) || g == 0.0));
}

#[test]
fn clip_grad_norm_leaves_small_gradients_alone() {
    let mut params = with_norm_13();
    let before = params.grads().to_vec();
    assert_eq!(clip_grad_norm(&mut params, 20.0).unwrap(), 13.0);
    assert_eq!(params.grads(), &before[..]);
    // At exactly the limit, max_norm / (norm + 1e-6) is just under 1: PyTorch scales.
    assert_eq!(clip_grad_norm(&mut params, 13.0).unwrap(), 13.0);
    assert!(params.grads()[live(&params)[5]] < 12.0);
}

/// A NaN or infinite gradient is refused, naming its parameter, and no
/// gradient is scaled or clamped.
#[test]
fn clipping_refuses_non_finite_gradients() {
    for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        let mut params = with_norm_13();
        let b = params.find("fc.bias").unwrap();
        params.grad_mut(b)[2] = bad;
        let before: Vec<u32> = params.grads().iter().map(|g| g.to_bits()).collect();
        let unchanged =
            |params: &minnow_autodiff::Params| params.grads().iter().map(|g| g.to_bits()).eq(before.clone());
        let want = OptimError::NonFiniteGradient { name: "fc.bias".into(), index: 2, value: bad };
        let err = clip_grad_norm(&mut params, 1.0).unwrap_err();
        assert!(matches!(&err, OptimError::NonFiniteGradient { name, index: 2, .. } if name == "fc.bias"), "{err}");
        assert_eq!(err.to_string(), want.to_string());
        assert!(unchanged(&params), "clip_grad_norm scaled");
        let err = clip_grad_value(&mut params, 1.0).unwrap_err();
        assert_eq!(err.to_string(), want.to_string());
        assert!(unchanged(&params), "clip_grad_value clamped");
    }
}

/// Finite gradients whose squares overflow f32 still get their norm (in
/// f64) and are scaled to it, not to 0.
#[test]
fn clip_grad_norm_survives_squares_past_f32() {
    let mut params = with_norm_13();
    for g in params.grads_mut().iter_mut() {
        *g *= 1e19;
    }
    let norm = clip_grad_norm(&mut params, 1.0).unwrap();
    assert!((norm / 1.3e20 - 1.0).abs() < 1e-6, "{norm}");
    let after = params.grads().iter().map(|&g| g as f64 * g as f64).sum::<f64>().sqrt();
    assert!((after - 1.0).abs() < 1e-5, "norm after clipping {after}");
}

#[test]
fn clip_grad_value_clamps_each_gradient() {
    let mut params = with_norm_13();
    params.grads_mut()[1] = -7.0;
    clip_grad_value(&mut params, 3.5).unwrap();
    let got: Vec<f32> = live(&params).into_iter().map(|i| params.grads()[i]).collect();
    assert_eq!(got, [3.0, -3.5, 0.0, 3.5, 0.0, 3.5, 0.0]);
}

#[test]
#[should_panic(expected = "clip_grad_norm: expected max_norm >= 0, found -1")]
fn clip_grad_norm_rejects_a_negative_limit() {
    let _ = clip_grad_norm(&mut tiny(), -1.0);
}

#[test]
#[should_panic(expected = "clip_grad_value: expected clip_value >= 0, found NaN")]
fn clip_grad_value_rejects_nan() {
    let _ = clip_grad_value(&mut tiny(), f32::NAN);
}
