//! A tiny two-tensor parameter store (with padding between the tensors)
//! and a fixed gradient sequence, shared by the optimiser tests.
#![allow(dead_code)]

use minnow_autodiff::Params;

/// "fc.weight" [2, 2] then "fc.bias" [3], the bias starting on the next
/// cache line, so the flat buffers hold zero padding.
pub fn tiny() -> Params {
    let mut p = Params::new();
    p.add("fc.weight", &[2, 2], |v| v.copy_from_slice(&[0.5, -1.0, 1.5, -0.25])).unwrap();
    p.add("fc.bias", &[3], |v| v.copy_from_slice(&[0.1, 0.0, -2.0])).unwrap();
    p
}

/// Flat indices of the real elements (padding left out), in order.
pub fn live(params: &Params) -> Vec<usize> {
    params.ids().flat_map(|id| params.range(id)).collect()
}

/// The gradient at step `t` (from 0) of flat element `i`: mixed signs and
/// sizes, different every step.
pub fn grad(t: usize, i: usize) -> f32 {
    ((0.7 * i as f64 + 1.3 * t as f64 + 0.2).sin() * 2.0) as f32
}

/// Sets the gradients of step `t` (padding zero), without allocating.
pub fn set_grads(params: &mut Params, t: usize) {
    params.zero_grads();
    for id in params.ids() {
        let start = params.range(id).start;
        for (k, g) in params.grad_mut(id).iter_mut().enumerate() {
            *g = grad(t, start + k);
        }
    }
}

/// The live values as f64, for a reference to start from.
pub fn live_values(params: &Params) -> Vec<f64> {
    live(params).into_iter().map(|i| params.values()[i] as f64).collect()
}

/// Every live value within `rtol` of the reference (plus a small absolute
/// slack for values near 0), and the padding still zero.
#[track_caller]
pub fn assert_matches(what: &str, params: &Params, want: &[f64], rtol: f64) {
    let idx = live(params);
    assert_eq!(idx.len(), want.len(), "{what}: element count");
    for (k, (&i, &w)) in idx.iter().zip(want).enumerate() {
        let got = params.values()[i] as f64;
        assert!((got - w).abs() <= rtol * w.abs() + 1e-6, "{what}: element {k}: got {got}, want {w}");
    }
    for (i, &v) in params.values().iter().enumerate() {
        if !idx.contains(&i) {
            assert_eq!(v, 0.0, "{what}: padding at {i} moved");
        }
    }
}
