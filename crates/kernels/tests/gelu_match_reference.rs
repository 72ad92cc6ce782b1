//! GELU and its backward against the f64 scalar twin at every SIMD level,
//! and against PyTorch's values.

use minnow_kernels::{self as k, Accum, reference as r};
use proptest::prelude::*;

/// |got - want| <= atol + rtol (1 + x²) |want|, elementwise, naming the
/// first miss. The x² term: e^(-x²/2) turns the rounding of x² (2^-24
/// relative) into a relative error of x²/2 · 2^-24 in the tails, which no
/// f32 evaluation avoids.
fn assert_close(op: &str, x: &[f32], got: &[f32], want: &[f32], rtol: f32, atol: f32) {
    assert_eq!(got.len(), want.len(), "{op}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= atol + rtol * (1.0 + x[i] * x[i]) * w.abs();
        assert!(ok, "{op}: element {i} (x = {}): got {g}, want {w}", x[i]);
    }
}

/// Runs `check` once per SIMD level this CPU supports (scalar included).
fn each_level(check: impl Fn()) {
    for level in k::supported_levels() {
        k::with_level(level, &check);
    }
}

/// Mostly the active range, sometimes far into the tails.
fn inputs() -> impl Strategy<Value = (Vec<f32>, Vec<f32>)> {
    (0usize..300).prop_flat_map(|n| {
        (
            prop::collection::vec(prop_oneof![4 => -6.0f32..6.0, 1 => -30.0f32..30.0], n),
            prop::collection::vec(-4.0f32..4.0, n),
        )
    })
}

fn accum() -> impl Strategy<Value = Accum> {
    prop_oneof![Just(Accum::Replace), Just(Accum::Add)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gelu_matches_reference((x, dy) in inputs(), acc in accum()) {
        each_level(|| {
            let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            k::gelu(&x, &mut got);
            r::gelu(&x, &mut want);
            // The erfc fit is good to 1.2e-7 relative, exp to 2 ulp.
            assert_close("gelu", &x, &got, &want, 2e-6, 1e-30);
            // Φ + x φ crosses zero near x = -0.75: relative error there is
            // unbounded, so the tolerance is absolute in units of dy.
            let (mut got, mut want) = (dy.clone(), dy.clone());
            k::gelu_backward(&x, &dy, &mut got, acc);
            r::gelu_backward(&x, &dy, &mut want, acc);
            assert_close("gelu_backward", &x, &got, &want, 2e-6, 4e-6);
        });
    }
}

#[test]
fn lengths_around_the_vector_width() {
    for n in [15, 16, 17, 31, 32, 33, 127, 128, 129] {
        let x: Vec<f32> = (0..n).map(|i| (i as f32 - n as f32 / 2.0) * 0.37).collect();
        each_level(|| {
            let (mut got, mut want) = (vec![0.0; n], vec![0.0; n]);
            k::gelu(&x, &mut got);
            r::gelu(&x, &mut want);
            assert_close("gelu", &x, &got, &want, 2e-6, 1e-30);
        });
    }
}

/// Known values of x Φ(x) (what `torch.nn.functional.gelu` returns with
/// `approximate="none"`), from Φ to 8 digits; -5 and -3 to 5 digits.
#[test]
fn pytorch_values() {
    let x = [-5.0f32, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0];
    let y = [
        -1.4333e-06f32,
        -4.0496e-03,
        -1.5865526e-01,
        -1.5426877e-01,
        0.0,
        3.4573123e-01,
        8.413_447e-1,
        1.9544997e+00,
        2.9959502e+00,
    ];
    let mut got = [0.0f32; 9];
    k::gelu(&x, &mut got);
    assert_close("gelu vs PyTorch", &x, &got, &y, 1e-4, 1e-9);
    // d/dx at 1: Φ(1) + φ(1) = 0.8413447 + 0.2419707.
    let mut dx = [0.0f32];
    k::gelu_backward(&[1.0], &[1.0], &mut dx, Accum::Replace);
    assert!((dx[0] - 1.0833155).abs() < 1e-6, "{}", dx[0]);
}
