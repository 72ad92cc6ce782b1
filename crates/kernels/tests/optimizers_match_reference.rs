//! The fused SGD, RMSprop and AdaGrad updates and clipping by value against
//! their scalar twins in `reference`, at every SIMD level, on random lengths
//! that include 0, 1 and non-multiples of the vector width.

use minnow_kernels::{self as k, AdaGradParams, RmsPropParams, SgdParams, reference as r};
use proptest::prelude::*;

/// |got - want| <= atol + rtol * |want|, elementwise, with the index of the first miss.
fn assert_close(op: &str, got: &[f32], want: &[f32], rtol: f32, atol: f32) {
    assert_eq!(got.len(), want.len(), "{op}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= atol + rtol * w.abs() || (g.is_nan() && w.is_nan());
        assert!(ok, "{op}: element {i}: got {g}, want {w}");
    }
}

fn values(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(-8.0f32..8.0, len)
}

/// Four equal-length vectors: parameters, gradients and two state buffers.
fn quad() -> impl Strategy<Value = (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>)> {
    (0usize..300).prop_flat_map(|n| (values(n), values(n), values(n), values(n)))
}

/// Runs `check` once per SIMD level this CPU supports (scalar included).
fn each_level(check: impl Fn()) {
    for level in k::supported_levels() {
        k::with_level(level, &check);
    }
}

fn abs(x: &[f32]) -> Vec<f32> {
    x.iter().map(|v| v.abs()).collect()
}

// Without fast-math neither side fuses or reorders, so the SIMD copies
// agree with the twins to the bit; the tolerances only leave room for a
// future FMA.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sgd_matches(
        (p, g, b, _) in quad(),
        momentum in prop_oneof![Just(0.0f32), 0.0f32..0.99],
        dampening in prop_oneof![Just(0.0f32), 0.0f32..0.5],
        wd in prop_oneof![Just(0.0f32), 0.0f32..0.1],
        nesterov in any::<bool>(),
        first_step in any::<bool>(),
    ) {
        each_level(|| {
            let hp = SgdParams { lr: 0.05, momentum, dampening, weight_decay: wd, nesterov, first_step };
            let (mut p1, mut b1) = (p.clone(), b.clone());
            let (mut p2, mut b2) = (p.clone(), b.clone());
            k::sgd_step(&mut p1, &g, &mut b1, &hp);
            r::sgd_step(&mut p2, &g, &mut b2, &hp);
            assert_close("sgd buf", &b1, &b2, 1e-6, 1e-6);
            assert_close("sgd params", &p1, &p2, 1e-6, 1e-6);
        });
    }

    #[test]
    fn sgd_without_momentum_takes_an_empty_buffer((p, g, _, _) in quad(), wd in 0.0f32..0.1) {
        each_level(|| {
            let hp = SgdParams { lr: 0.05, momentum: 0.0, dampening: 0.0, weight_decay: wd, nesterov: false, first_step: false };
            let (mut p1, mut p2) = (p.clone(), p.clone());
            k::sgd_step(&mut p1, &g, &mut [], &hp);
            r::sgd_step(&mut p2, &g, &mut [], &hp);
            assert_close("sgd params", &p1, &p2, 1e-6, 1e-6);
        });
    }

    #[test]
    fn rmsprop_matches(
        (p, g, s, a) in quad(),
        b_seed in values(300),
        momentum in prop_oneof![Just(0.0f32), 0.0f32..0.99],
        centered in any::<bool>(),
        wd in prop_oneof![Just(0.0f32), 0.0f32..0.1],
        alpha in 0.5f32..1.0,
    ) {
        each_level(|| {
            let hp = RmsPropParams { lr: 1e-2, alpha, eps: 1e-8, weight_decay: wd, momentum, centered };
            let b = &b_seed[..p.len()];
            // Empty where the variant does not use the buffer.
            let a0 = if centered { a.clone() } else { Vec::new() };
            let b0 = if momentum > 0.0 { b.to_vec() } else { Vec::new() };
            let (mut p1, mut s1, mut a1, mut b1) = (p.clone(), abs(&s), a0.clone(), b0.clone());
            let (mut p2, mut s2, mut a2, mut b2) = (p.clone(), abs(&s), a0, b0);
            k::rmsprop_step(&mut p1, &g, &mut s1, &mut a1, &mut b1, &hp);
            r::rmsprop_step(&mut p2, &g, &mut s2, &mut a2, &mut b2, &hp);
            assert_close("rmsprop square_avg", &s1, &s2, 1e-6, 1e-6);
            assert_close("rmsprop grad_avg", &a1, &a2, 1e-6, 1e-6);
            assert_close("rmsprop momentum", &b1, &b2, 1e-5, 1e-5);
            assert_close("rmsprop params", &p1, &p2, 1e-5, 1e-5);
        });
    }

    #[test]
    fn adagrad_matches(
        (p, g, s, _) in quad(),
        step in 1u64..50,
        lr_decay in prop_oneof![Just(0.0f32), 0.0f32..0.1],
        wd in prop_oneof![Just(0.0f32), 0.0f32..0.1],
    ) {
        each_level(|| {
            let hp = AdaGradParams::new(1e-2, lr_decay, 1e-10, wd, step);
            let (mut p1, mut s1) = (p.clone(), abs(&s));
            let (mut p2, mut s2) = (p.clone(), abs(&s));
            k::adagrad_step(&mut p1, &g, &mut s1, &hp);
            r::adagrad_step(&mut p2, &g, &mut s2, &hp);
            assert_close("adagrad sum", &s1, &s2, 1e-6, 1e-6);
            assert_close("adagrad params", &p1, &p2, 1e-6, 1e-6);
        });
    }

    #[test]
    fn clip_by_value_matches((x, _, _, _) in quad(), limit in prop_oneof![Just(0.0f32), Just(f32::INFINITY), 0.0f32..10.0]) {
        each_level(|| {
            let (mut got, mut want) = (x.clone(), x.clone());
            k::clip_by_value(&mut got, limit);
            r::clip_by_value(&mut want, limit);
            assert_close("clip_by_value", &got, &want, 0.0, 0.0);
            assert!(got.iter().all(|v| v.abs() <= limit));
        });
    }
}

#[test]
fn clip_by_value_keeps_nan() {
    each_level(|| {
        let mut x = [f32::NAN, -3.0, 0.5, 3.0, f32::NEG_INFINITY];
        k::clip_by_value(&mut x, 1.0);
        assert!(x[0].is_nan());
        assert_eq!(x[1..], [-1.0, 0.5, 1.0, -1.0]);
    });
}

#[test]
fn rmsprop_centered_variance_rounding_gives_no_nan() {
    // After a long steady gradient, s and a² agree to rounding; a tiny
    // negative difference must not become sqrt(-0.0...) = NaN.
    each_level(|| {
        let hp = RmsPropParams { lr: 1e-2, alpha: 0.99, eps: 1e-8, weight_decay: 0.0, momentum: 0.0, centered: true };
        // With g = 0.1, s - a² rounds below 0 in about 3800 of these 5000 steps.
        let g = [0.1f32; 19];
        let (mut p, mut s, mut a) = ([1.0f32; 19], [0.0f32; 19], [0.0f32; 19]);
        for _ in 0..5000 {
            k::rmsprop_step(&mut p, &g, &mut s, &mut a, &mut [], &hp);
        }
        assert!(p.iter().all(|v| v.is_finite()), "{p:?}");
    });
}

#[test]
fn adagrad_params_decay_the_rate_per_step() {
    assert_eq!(AdaGradParams::new(0.1, 0.5, 1e-10, 0.0, 1).lr, 0.1);
    assert_eq!(AdaGradParams::new(0.1, 0.5, 1e-10, 0.0, 3).lr, 0.05);
}

#[test]
#[should_panic(expected = "sgd_step: slice lengths differ: [3, 3, 2]")]
fn sgd_momentum_buffer_length_is_checked() {
    let hp = SgdParams { lr: 0.1, momentum: 0.9, dampening: 0.0, weight_decay: 0.0, nesterov: false, first_step: true };
    k::sgd_step(&mut [0.0; 3], &[0.0; 3], &mut [0.0; 2], &hp);
}

#[test]
#[should_panic(expected = "clip_by_value: limit must be >= 0, found -1")]
fn clip_by_value_rejects_a_negative_limit() {
    k::clip_by_value(&mut [0.0; 3], -1.0);
}
