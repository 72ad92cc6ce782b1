//! Every SIMD kernel against its scalar twin in `reference`, on random
//! lengths that include 0, 1 and non-multiples of the vector width.

use minnow_kernels::{self as k, Accum, AdamParams, reference as r};
use proptest::prelude::*;

/// |got - want| <= atol + rtol * |want|, elementwise, with the index of the first miss.
fn assert_close(op: &str, got: &[f32], want: &[f32], rtol: f32, atol: f32) {
    assert_eq!(got.len(), want.len(), "{op}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = g == w || (g - w).abs() <= atol + rtol * w.abs() || (g.is_nan() && w.is_nan());
        assert!(ok, "{op}: element {i}: got {g}, want {w}");
    }
}

fn values(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(-8.0f32..8.0, len)
}

/// Same bits, or both NaN: for kernels that must agree with their twin
/// exactly, signed zeros included.
fn assert_same(op: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{op}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()), "{op}: element {i}: got {g:?}, want {w:?}");
    }
}

/// Numbers with NaN, both infinities and both zeros mixed in (about one
/// element in four), so every SIMD body and tail sees them.
fn specials(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = Vec<f32>> {
    let element = prop_oneof![
        12 => -8.0f32..8.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
    ];
    prop::collection::vec(element, len)
}

/// Numbers with NaN mixed in (about one element in eight).
fn with_nans(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(prop_oneof![7 => -8.0f32..8.0, 1 => Just(f32::NAN)], len)
}

/// Two or three equal-length vectors.
fn pair() -> impl Strategy<Value = (Vec<f32>, Vec<f32>)> {
    (0usize..300).prop_flat_map(|n| (values(n), values(n)))
}

fn triple() -> impl Strategy<Value = (Vec<f32>, Vec<f32>, Vec<f32>)> {
    (0usize..300).prop_flat_map(|n| (values(n), values(n), values(n)))
}

/// A (rows, cols) matrix with rows in 0..12 and cols in 1..80.
fn matrix() -> impl Strategy<Value = (usize, Vec<f32>)> {
    (0usize..12, 1usize..80).prop_flat_map(|(rows, cols)| (Just(cols), values(rows * cols)))
}

fn accum() -> impl Strategy<Value = Accum> {
    prop_oneof![Just(Accum::Replace), Just(Accum::Add)]
}

/// Runs `check` once per SIMD level this CPU supports (scalar included).
fn each_level(check: impl Fn()) {
    for level in k::supported_levels() {
        k::with_level(level, &check);
    }
}

type Binary = fn(&[f32], &[f32], &mut [f32]);
type Unary = fn(&[f32], &mut [f32]);
type Backward = fn(&[f32], &[f32], &mut [f32], Accum);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn binary_ops((a, b) in pair()) {
        each_level(|| {
            let ops: [(&str, Binary, Binary); 3] = [("add", k::add, r::add), ("sub", k::sub, r::sub), ("mul", k::mul, r::mul)];
            for (name, fast, slow) in ops {
                let (mut got, mut want) = (vec![0.0; a.len()], vec![0.0; a.len()]);
                fast(&a, &b, &mut got);
                slow(&a, &b, &mut want);
                assert_close(name, &got, &want, 0.0, 0.0);
            }
        });
    }

    #[test]
    fn in_place_ops((a, b, c) in triple(), alpha in -3.0f32..3.0) {
        each_level(|| {
            let (mut got, mut want) = (a.clone(), a.clone());
            k::add_assign(&mut got, &b);
            r::add_assign(&mut want, &b);
            assert_close("add_assign", &got, &want, 0.0, 0.0);
            k::mul_add_assign(&mut got, &b, &c);
            r::mul_add_assign(&mut want, &b, &c);
            assert_close("mul_add_assign", &got, &want, 1e-6, 1e-6);
            k::axpy(alpha, &c, &mut got);
            r::axpy(alpha, &c, &mut want);
            assert_close("axpy", &got, &want, 1e-6, 1e-5);
            k::scale(alpha, &mut got);
            r::scale(alpha, &mut want);
            assert_close("scale", &got, &want, 1e-6, 1e-5);
            let (mut got2, mut want2) = (vec![0.0; a.len()], vec![0.0; a.len()]);
            k::scale_into(alpha, &a, &mut got2);
            r::scale_into(alpha, &a, &mut want2);
            assert_close("scale_into", &got2, &want2, 0.0, 0.0);
        });
    }

    #[test]
    fn activations((x, dy) in pair(), acc in accum(), slope in 0.0f32..0.5) {
        each_level(|| {
            // exp is approximated (about 2 ulp); tanh and sigmoid inherit it,
            // and tanh loses relative accuracy near 0, hence the atol.
            let forward: [(&str, Unary, Unary, f32, f32); 4] = [
                ("relu", k::relu, r::relu, 0.0, 0.0),
                ("sigmoid", k::sigmoid, r::sigmoid, 1e-6, 1e-7),
                ("tanh", k::tanh, r::tanh, 1e-6, 1e-7),
                ("exp", k::exp, r::exp, 1e-6, 0.0),
            ];
            for (name, fast, slow, rtol, atol) in forward {
                let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
                fast(&x, &mut got);
                slow(&x, &mut want);
                assert_close(name, &got, &want, rtol, atol);
            }
            let backward: [(&str, Backward, Backward); 3] = [
                ("relu_backward", k::relu_backward, r::relu_backward),
                ("sigmoid_backward", k::sigmoid_backward, r::sigmoid_backward),
                ("tanh_backward", k::tanh_backward, r::tanh_backward),
            ];
            for (name, fast, slow) in backward {
                let (mut got, mut want) = (dy.clone(), dy.clone());
                fast(&x, &dy, &mut got, acc);
                slow(&x, &dy, &mut want, acc);
                assert_close(name, &got, &want, 1e-6, 1e-6);
            }
            let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            k::leaky_relu(&x, slope, &mut got);
            r::leaky_relu(&x, slope, &mut want);
            assert_close("leaky_relu", &got, &want, 0.0, 0.0);
            let (mut got, mut want) = (dy.clone(), dy.clone());
            k::leaky_relu_backward(&x, slope, &dy, &mut got, acc);
            r::leaky_relu_backward(&x, slope, &dy, &mut want, acc);
            assert_close("leaky_relu_backward", &got, &want, 0.0, 0.0);
        });
    }

    /// The ReLU family and the max-based kernels keep NaN at every level,
    /// and give their twins' bits for every other input (infinities and
    /// signed zeros included).
    #[test]
    fn max_based_kernels_keep_nan(
        (x, dy) in (0usize..300).prop_flat_map(|n| (specials(n), values(n))),
        cols in 1usize..40,
        acc in accum(),
        slope in 0.0f32..0.5,
    ) {
        each_level(|| {
            let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            k::relu(&x, &mut got);
            r::relu(&x, &mut want);
            assert_same("relu", &got, &want);
            let (mut got, mut want) = (x.clone(), x.clone());
            k::relu_inplace(&mut got);
            r::relu_inplace(&mut want);
            assert_same("relu_inplace", &got, &want);
            let (mut got, mut want) = (dy.clone(), dy.clone());
            k::relu_backward(&x, &dy, &mut got, acc);
            r::relu_backward(&x, &dy, &mut want, acc);
            assert_same("relu_backward", &got, &want);
            let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            k::leaky_relu(&x, slope, &mut got);
            r::leaky_relu(&x, slope, &mut want);
            assert_same("leaky_relu", &got, &want);
            let (mut got, mut want) = (dy.clone(), dy.clone());
            k::leaky_relu_backward(&x, slope, &dy, &mut got, acc);
            r::leaky_relu_backward(&x, slope, &dy, &mut want, acc);
            assert_same("leaky_relu_backward", &got, &want);
            let (mut got, mut want) = (x.clone(), x.clone());
            k::clip_by_value(&mut got, 2.5);
            r::clip_by_value(&mut want, 2.5);
            assert_same("clip_by_value", &got, &want);
            assert_eq!(k::all_finite(&x), r::all_finite(&x), "all_finite of {x:?}");
            assert_eq!(k::all_finite(&dy), r::all_finite(&dy), "all_finite of finite values");

            let whole = x.len() / cols * cols;
            let (m, bias) = (&x[..whole], &dy[..cols.min(dy.len())]);
            if bias.len() == cols {
                let (mut got, mut want) = (vec![0.0; whole], vec![0.0; whole]);
                k::bias_relu(m, bias, &mut got);
                r::bias_relu(m, bias, &mut want);
                assert_same("bias_relu", &got, &want);
                let (mut got, mut want) = (m.to_vec(), m.to_vec());
                k::bias_relu_inplace(&mut got, bias);
                r::bias_relu_inplace(&mut want, bias);
                assert_same("bias_relu_inplace", &got, &want);
                let mut fused = m.to_vec();
                k::linear_epilogue(&mut fused, Some(bias), true);
                assert_same("linear_epilogue with bias", &fused, &want);
            }
            let mut fused = m.to_vec();
            k::linear_epilogue(&mut fused, None, true);
            let mut want = m.to_vec();
            r::relu_inplace(&mut want);
            assert_same("linear_epilogue", &fused, &want);
            let rows = whole / cols;
            let (mut max, mut arg) = (vec![0.0; rows], vec![0u32; rows]);
            let (mut want_max, mut want_arg) = (vec![0.0; rows], vec![0u32; rows]);
            k::row_max_argmax(m, cols, &mut max, &mut arg);
            r::row_max_argmax(m, cols, &mut want_max, &mut want_arg);
            assert_eq!(&arg, &want_arg, "row_max_argmax of {m:?}");
            assert_same("row_max", &max, &want_max);
        });
    }

    /// NaN in, NaN out, where the twin has it, for the smooth activations,
    /// the softmaxes and LayerNorm (plain and fused with ReLU).
    #[test]
    fn smooth_kernels_keep_nan((cols, x) in (1usize..40, 0usize..8).prop_flat_map(|(c, r)| (Just(c), with_nans(c * r)))) {
        each_level(|| {
            let forward: [(&str, Unary, Unary, f32, f32); 4] = [
                ("sigmoid", k::sigmoid, r::sigmoid, 1e-6, 1e-7),
                ("tanh", k::tanh, r::tanh, 1e-6, 1e-7),
                ("exp", k::exp, r::exp, 1e-6, 0.0),
                ("gelu", k::gelu, r::gelu, 1e-5, 1e-6),
            ];
            for (name, fast, slow, rtol, atol) in forward {
                let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
                fast(&x, &mut got);
                slow(&x, &mut want);
                assert_close(name, &got, &want, rtol, atol);
            }
            let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            k::softmax_rows(&x, cols, &mut got);
            r::softmax_rows(&x, cols, &mut want);
            assert_close("softmax_rows", &got, &want, 1e-5, 1e-7);
            k::log_softmax_rows(&x, cols, &mut got);
            r::log_softmax_rows(&x, cols, &mut want);
            assert_close("log_softmax_rows", &got, &want, 1e-5, 1e-5);
            let rows = x.len() / cols;
            let (gamma, beta) = (vec![1.5; cols], vec![-0.25; cols]);
            for relu in [false, true] {
                let (mut y, mut m, mut s) = (vec![0.0; x.len()], vec![0.0; rows], vec![0.0; rows]);
                let (mut y2, mut m2, mut s2) = (vec![0.0; x.len()], vec![0.0; rows], vec![0.0; rows]);
                if relu {
                    k::layer_norm_relu(&x, &gamma, &beta, 1e-5, &mut y, &mut m, &mut s);
                    r::layer_norm_relu(&x, &gamma, &beta, 1e-5, &mut y2, &mut m2, &mut s2);
                } else {
                    k::layer_norm(&x, &gamma, &beta, 1e-5, &mut y, &mut m, &mut s);
                    r::layer_norm(&x, &gamma, &beta, 1e-5, &mut y2, &mut m2, &mut s2);
                }
                for (row, (yr, wr)) in y.chunks_exact(cols).zip(y2.chunks_exact(cols)).enumerate() {
                    let nan = x[row * cols..][..cols].iter().any(|v| v.is_nan());
                    assert!(!nan || yr.iter().all(|v| v.is_nan()), "layer_norm relu {relu}: row {row} {yr:?}");
                    assert_eq!(nan, wr.iter().all(|v| v.is_nan()), "twin: row {row} {wr:?}");
                }
            }
        });
    }

    #[test]
    fn bias_epilogues((cols, x) in matrix(), seed in values(80)) {
        each_level(|| {
            let bias = &seed[..cols];
            let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            k::bias_add(&x, bias, &mut got);
            r::bias_add(&x, bias, &mut want);
            assert_close("bias_add", &got, &want, 0.0, 0.0);
            k::bias_relu(&x, bias, &mut got);
            r::bias_relu(&x, bias, &mut want);
            assert_close("bias_relu", &got, &want, 0.0, 0.0);
            let (mut got, mut want) = (x.clone(), x.clone());
            k::bias_add_inplace(&mut got, bias);
            r::bias_add_inplace(&mut want, bias);
            assert_close("bias_add_inplace", &got, &want, 0.0, 0.0);
            let (mut got, mut want) = (x.clone(), x.clone());
            k::bias_relu_inplace(&mut got, bias);
            r::bias_relu_inplace(&mut want, bias);
            assert_close("bias_relu_inplace", &got, &want, 0.0, 0.0);
        });
    }

    #[test]
    fn reductions((a, b) in pair()) {
        each_level(|| {
            let tol = 1e-5 * a.len() as f32 + 1e-5;
            assert_close("sum", &[k::sum(&a)], &[r::sum(&a)], 1e-5, tol);
            assert_close("dot", &[k::dot(&a, &b)], &[r::dot(&a, &b)], 1e-5, 8.0 * tol);
            assert_close("sum_squares", &[k::sum_squares(&a)], &[r::sum_squares(&a)], 1e-5, 8.0 * tol);
        });
    }

    #[test]
    fn row_reductions((cols, x) in matrix(), acc in accum()) {
        each_level(|| {
            let rows = x.len() / cols;
            let (mut max, mut arg) = (vec![0.0; rows], vec![0u32; rows]);
            let (mut want_max, mut want_arg) = (vec![0.0; rows], vec![0u32; rows]);
            k::row_max_argmax(&x, cols, &mut max, &mut arg);
            r::row_max_argmax(&x, cols, &mut want_max, &mut want_arg);
            assert_eq!(&arg, &want_arg);
            assert_close("row_max", &max, &want_max, 0.0, 0.0);
            let (mut got, mut want) = (vec![1.5; cols], vec![1.5; cols]);
            k::col_sums(&x, cols, &mut got, acc);
            r::col_sums(&x, cols, &mut want, acc);
            assert_close("col_sums", &got, &want, 1e-5, 1e-5 * rows as f32);
        });
    }

    #[test]
    fn softmax_family((cols, x) in matrix(), dy_seed in values(12 * 80), acc in accum()) {
        each_level(|| {
            let dy = &dy_seed[..x.len()];
            let (mut got, mut want) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            k::softmax_rows(&x, cols, &mut got);
            r::softmax_rows(&x, cols, &mut want);
            assert_close("softmax_rows", &got, &want, 1e-5, 1e-7);
            let (mut dgot, mut dwant) = (dy.to_vec(), dy.to_vec());
            k::softmax_rows_backward(&want, dy, cols, &mut dgot, acc);
            r::softmax_rows_backward(&want, dy, cols, &mut dwant, acc);
            assert_close("softmax_rows_backward", &dgot, &dwant, 1e-5, 1e-5);

            k::log_softmax_rows(&x, cols, &mut got);
            r::log_softmax_rows(&x, cols, &mut want);
            assert_close("log_softmax_rows", &got, &want, 1e-5, 1e-5);
            let (mut dgot, mut dwant) = (dy.to_vec(), dy.to_vec());
            k::log_softmax_rows_backward(&want, dy, cols, &mut dgot, acc);
            r::log_softmax_rows_backward(&want, dy, cols, &mut dwant, acc);
            assert_close("log_softmax_rows_backward", &dgot, &dwant, 1e-5, 1e-4);
        });
    }

    #[test]
    fn layer_norm_family((cols, x) in matrix(), seed in values(3 * 12 * 80), acc in accum()) {
        each_level(|| {
            let rows = x.len() / cols;
            let (gamma, beta, dy) = (&seed[..cols], &seed[cols..2 * cols], &seed[2 * cols..2 * cols + x.len()]);
            let eps = 1e-5;
            for relu in [false, true] {
                let (mut y, mut m, mut s) = (vec![0.0; x.len()], vec![0.0; rows], vec![0.0; rows]);
                let (mut y2, mut m2, mut s2) = (vec![0.0; x.len()], vec![0.0; rows], vec![0.0; rows]);
                if relu {
                    k::layer_norm_relu(&x, gamma, beta, eps, &mut y, &mut m, &mut s);
                    r::layer_norm_relu(&x, gamma, beta, eps, &mut y2, &mut m2, &mut s2);
                } else {
                    k::layer_norm(&x, gamma, beta, eps, &mut y, &mut m, &mut s);
                    r::layer_norm(&x, gamma, beta, eps, &mut y2, &mut m2, &mut s2);
                }
                // Near-constant rows have a huge rstd, so compare loosely there.
                assert_close("layer_norm mean", &m, &m2, 1e-5, 1e-5);
                assert_close("layer_norm rstd", &s, &s2, 1e-3, 1e-3);
                assert_close("layer_norm y", &y, &y2, 1e-3, 1e-3);
            }
            let (mut y, mut m, mut s) = (vec![0.0; x.len()], vec![0.0; rows], vec![0.0; rows]);
            r::layer_norm(&x, gamma, beta, eps, &mut y, &mut m, &mut s);
            let (mut dx, mut dg, mut db) = (dy.to_vec(), vec![0.5; cols], vec![0.5; cols]);
            let (mut dx2, mut dg2, mut db2) = (dy.to_vec(), vec![0.5; cols], vec![0.5; cols]);
            k::layer_norm_backward(&x, dy, gamma, &m, &s, &mut dx, &mut dg, &mut db, acc);
            r::layer_norm_backward(&x, dy, gamma, &m, &s, &mut dx2, &mut dg2, &mut db2, acc);
            assert_close("layer_norm_backward dx", &dx, &dx2, 1e-3, 1e-3);
            assert_close("layer_norm_backward dgamma", &dg, &dg2, 1e-4, 1e-3);
            assert_close("layer_norm_backward dbeta", &db, &db2, 1e-5, 1e-4);
        });
    }

    #[test]
    fn scatter_add_rows_matches((cols, src) in matrix(), targets in 1usize..6, picks in prop::collection::vec(0u32..6, 12)) {
        each_level(|| {
            let rows = src.len() / cols;
            let idx: Vec<u32> = picks[..rows].iter().map(|&i| i % targets as u32).collect();
            let (mut got, mut want) = (vec![0.25; targets * cols], vec![0.25; targets * cols]);
            k::scatter_add_rows(&src, cols, &idx, &mut got);
            r::scatter_add_rows(&src, cols, &idx, &mut want);
            assert_close("scatter_add_rows", &got, &want, 1e-6, 1e-6);
        });
    }

    #[test]
    fn adam_matches((p, g, m) in triple(), v_seed in values(300), step in 1u64..50, decoupled in any::<bool>(), wd in 0.0f32..0.1) {
        each_level(|| {
            let v: Vec<f32> = v_seed[..p.len()].iter().map(|x| x.abs()).collect();
            let hp = AdamParams::new(1e-3, 0.9, 0.999, 1e-8, wd, decoupled, step);
            let (mut p1, mut m1, mut v1) = (p.clone(), m.clone(), v.clone());
            let (mut p2, mut m2, mut v2) = (p.clone(), m.clone(), v.clone());
            k::adam_step(&mut p1, &g, &mut m1, &mut v1, &hp);
            r::adam_step(&mut p2, &g, &mut m2, &mut v2, &hp);
            assert_close("adam m", &m1, &m2, 1e-6, 1e-6);
            assert_close("adam v", &v1, &v2, 1e-6, 1e-6);
            assert_close("adam params", &p1, &p2, 1e-6, 1e-6);
        });
    }

    #[test]
    fn gemm_all_transposes(
        (m, n, kk) in (0usize..40, 0usize..40, 0usize..40),
        ta in any::<bool>(), tb in any::<bool>(),
        seed in values(3 * 40 * 40),
        alpha in -2.0f32..2.0,
        beta in prop_oneof![Just(0.0f32), Just(1.0), -1.0f32..1.0],
    ) {
        each_level(|| {
            let a = &seed[..m * kk];
            let b = &seed[m * kk..m * kk + kk * n];
            let c0 = &seed[2 * 40 * 40..2 * 40 * 40 + m * n];
            check_gemm(m, n, kk, alpha, a, ta, b, tb, beta, c0);
        });
    }
}

fn check_gemm(
    m: usize,
    n: usize,
    kk: usize,
    alpha: f32,
    a: &[f32],
    ta: bool,
    b: &[f32],
    tb: bool,
    beta: f32,
    c0: &[f32],
) {
    let av = if ta { k::View::new(a, kk, m).t() } else { k::View::new(a, m, kk) };
    let bv = if tb { k::View::new(b, n, kk).t() } else { k::View::new(b, kk, n) };
    let mut got = c0.to_vec();
    k::gemm(k::ViewMut::new(&mut got, m, n), beta, av, bv, alpha, k::Par::Seq);
    let mut want = c0.to_vec();
    r::gemm(m, n, kk, alpha, a, ta, b, tb, beta, &mut want);
    assert_close(&format!("gemm {m}x{n}x{kk} ta={ta} tb={tb}"), &got, &want, 1e-4, 1e-4 * kk as f32);
    for threads in [2, 3] {
        let mut split = c0.to_vec();
        k::gemm_threads(k::ViewMut::new(&mut split, m, n), beta, av, bv, alpha, threads);
        assert_close(
            &format!("gemm_threads({threads}) {m}x{n}x{kk} ta={ta} tb={tb}"),
            &split,
            &want,
            1e-4,
            1e-4 * kk as f32,
        );
    }
}

/// Sizes around the SIMD width and faer's blocking, as faer's own tests do.
#[test]
fn gemm_at_awkward_sizes() {
    let mut rng = 12345u32;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        (rng as f32 / u32::MAX as f32) * 2.0 - 1.0
    };
    for &size in &[1usize, 15, 16, 17, 127, 128, 129] {
        for &(ta, tb) in &[(false, false), (true, false), (false, true), (true, true)] {
            let (m, n, kk) = (size, size.max(3) - 2, size + 1);
            let a: Vec<f32> = (0..m * kk).map(|_| next()).collect();
            let b: Vec<f32> = (0..kk * n).map(|_| next()).collect();
            let c: Vec<f32> = (0..m * n).map(|_| next()).collect();
            check_gemm(m, n, kk, 0.75, &a, ta, &b, tb, 0.5, &c);
        }
    }
}

#[test]
fn gemm_with_leading_dimension_writes_only_its_window() {
    // A 2x2 product written into the top-left of a 3x4 buffer.
    let a = [1.0, 2.0, 3.0, 4.0];
    let b = [1.0, 0.0, 0.0, 1.0];
    let mut c = [9.0f32; 12];
    k::gemm(
        k::ViewMut::with_ld(&mut c, 2, 2, 4),
        0.0,
        k::View::new(&a, 2, 2),
        k::View::new(&b, 2, 2),
        1.0,
        k::Par::Seq,
    );
    assert_eq!(c, [1.0, 2.0, 9.0, 9.0, 3.0, 4.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0]);
}

#[test]
#[should_panic(expected = "gemm: 2x2 = 2x3 * 2x2")]
fn gemm_shape_mismatch_names_the_shapes() {
    let (a, b, mut c) = ([0.0; 6], [0.0; 4], [0.0; 4]);
    k::gemm(k::ViewMut::new(&mut c, 2, 2), 0.0, k::View::new(&a, 2, 3), k::View::new(&b, 2, 2), 1.0, k::Par::Seq);
}

#[test]
#[should_panic(expected = "add: slice lengths differ: [3, 2, 3]")]
fn length_mismatch_names_the_lengths() {
    k::add(&[1.0; 3], &[1.0; 2], &mut [0.0; 3]);
}

#[test]
fn gathers_pick_and_scatter_back() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut picked = [0.0; 2];
    k::gather_cols(&x, 3, &[2, 0], &mut picked);
    assert_eq!(picked, [3.0, 4.0]);
    let mut dx = [0.0; 6];
    k::scatter_add_cols(&[1.0, 2.0], 3, &[2, 0], &mut dx);
    assert_eq!(dx, [0.0, 0.0, 1.0, 2.0, 0.0, 0.0]);
    let mut rows = [0.0; 6];
    k::gather_rows(&x, 3, &[1, 1], &mut rows);
    assert_eq!(rows, [4.0, 5.0, 6.0, 4.0, 5.0, 6.0]);
}
