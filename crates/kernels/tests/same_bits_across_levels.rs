//! A run must give the same numbers on every machine it runs on, and the
//! machines differ in SIMD width: every f32 kernel gives the same bits at
//! AVX2 as at AVX-512 (the scalar level differs: it has no fused
//! multiply-add). On a CPU without AVX-512 there is nothing to compare, and
//! the test says so.

use minnow_kernels::{self as k, Accum, AdamParams, Level};
use proptest::prelude::*;

fn values(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(-8.0f32..8.0, len)
}

/// Runs `f` at AVX2 and at AVX-512 and asserts that both give the same
/// bits; returns false (having compared nothing) when the CPU lacks
/// AVX-512.
fn same_bits(what: &str, f: impl Fn() -> Vec<f32>) -> bool {
    if !k::supported_levels().contains(&Level::Avx512) {
        return false;
    }
    let narrow = k::with_level(Level::Avx2, &f);
    let wide = k::with_level(Level::Avx512, &f);
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&narrow), bits(&wide), "{what}: AVX2 {narrow:?} against AVX-512 {wide:?}");
    true
}

/// `dst = alpha * a · b + beta * dst` with `a` (m x k) and `b` (k x n) read
/// through the layout the flags say, on [`k::gemm`]'s dispatch (small
/// kernels or faer, as a real call would go).
#[allow(clippy::too_many_arguments)]
fn product(m: usize, n: usize, kk: usize, ta: bool, tb: bool, seed: &[f32], alpha: f32, beta: f32) -> Vec<f32> {
    let (a, rest) = seed.split_at(m * kk);
    let (b, c) = rest.split_at(kk * n);
    let av = if ta { k::View::new(a, kk, m).t() } else { k::View::new(a, m, kk) };
    let bv = if tb { k::View::new(b, n, kk).t() } else { k::View::new(b, kk, n) };
    let mut dst = c[..m * n].to_vec();
    k::gemm(k::ViewMut::new(&mut dst, m, n), beta, av, bv, alpha, k::Par::Seq);
    dst
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gemm_in_every_layout(
        (m, n, kk) in (1usize..70, 1usize..70, 1usize..70),
        ta in any::<bool>(), tb in any::<bool>(),
        seed in values(3 * 70 * 70),
        alpha in prop_oneof![Just(1.0f32), -2.0f32..2.0],
        beta in prop_oneof![Just(0.0f32), Just(1.0), -1.0f32..1.0],
    ) {
        same_bits(&format!("gemm {m}x{n}x{kk} ta={ta} tb={tb}"), || product(m, n, kk, ta, tb, &seed, alpha, beta));
    }

    #[test]
    fn reductions_and_rows(rows in 1usize..12, cols in 1usize..150, seed in values(4 * 12 * 150), acc in any::<bool>()) {
        let acc = if acc { Accum::Add } else { Accum::Replace };
        let len = rows * cols;
        let (x, rest) = seed.split_at(len);
        let (dy, rest) = rest.split_at(len);
        let (gamma, beta) = (&rest[..cols], &rest[cols..2 * cols]);
        same_bits("sum, dot, sum_squares", || vec![k::sum(x), k::dot(x, dy), k::sum_squares(x)]);
        same_bits("col_sums", || {
            let mut out = gamma.to_vec();
            k::col_sums(x, cols, &mut out, acc);
            out
        });
        same_bits("softmax_rows and backward", || {
            let mut y = vec![0.0; len];
            k::softmax_rows(x, cols, &mut y);
            let mut dx = dy.to_vec();
            k::softmax_rows_backward(&y, dy, cols, &mut dx, acc);
            [y, dx].concat()
        });
        same_bits("log_softmax_rows and backward", || {
            let mut y = vec![0.0; len];
            k::log_softmax_rows(x, cols, &mut y);
            let mut dx = dy.to_vec();
            k::log_softmax_rows_backward(&y, dy, cols, &mut dx, acc);
            [y, dx].concat()
        });
        same_bits("layer_norm and backward", || {
            let (mut y, mut mean, mut rstd) = (vec![0.0; len], vec![0.0; rows], vec![0.0; rows]);
            k::layer_norm(x, gamma, beta, 1e-5, &mut y, &mut mean, &mut rstd);
            let mut relu = vec![0.0; len];
            k::layer_norm_relu(x, gamma, beta, 1e-5, &mut relu, &mut mean, &mut rstd);
            let (mut dx, mut dg, mut db) = (dy.to_vec(), vec![0.5; cols], vec![0.5; cols]);
            k::layer_norm_backward(x, dy, gamma, &mean, &rstd, &mut dx, &mut dg, &mut db, acc);
            [y, relu, mean, rstd, dx, dg, db].concat()
        });
        same_bits("exp, tanh, sigmoid and backwards", || {
            let mut out = Vec::new();
            for f in [k::exp, k::tanh, k::sigmoid] {
                let mut y = vec![0.0; len];
                f(x, &mut y);
                out.extend(y);
            }
            for f in [k::tanh_backward, k::sigmoid_backward] {
                let mut dx = dy.to_vec();
                f(x, dy, &mut dx, acc);
                out.extend(dx);
            }
            out
        });
    }

    #[test]
    fn adam(seed in values(4 * 300), len in 0usize..300, step in 1u64..50, decoupled in any::<bool>()) {
        let (p, rest) = seed.split_at(len);
        let (g, rest) = rest.split_at(len);
        let (m, v) = (&rest[..len], &rest[len..2 * len]);
        let v: Vec<f32> = v.iter().map(|x| x.abs()).collect();
        let hp = AdamParams::new(1e-3, 0.9, 0.999, 1e-8, 0.01, decoupled, step);
        same_bits("adam_step", || {
            let (mut p, mut m, mut v) = (p.to_vec(), m.to_vec(), v.clone());
            k::adam_step(&mut p, g, &mut m, &mut v, &hp);
            [p, m, v].concat()
        });
    }
}

/// The shapes of the defining workloads' layers (the AlphaZero net at
/// batch 1, 8 and 64, the DQN nets' training products), forward and both
/// gradients, where a difference would change a whole run.
#[test]
fn workload_products() {
    let seed: Vec<f32> = (0..3 * 676 * 256u64).map(|i| ((i * 7919 % 2003) as f32 / 1001.0) - 1.0).collect();
    let mut compared = false;
    for (m, n, kk) in
        [(1, 140, 198), (8, 140, 140), (64, 676, 140), (1, 1, 140), (32, 64, 4), (64, 144, 128), (256, 140, 168)]
    {
        // Forward x · Wᵀ, input gradient dy · W, weight gradient dyᵀ · x.
        compared |= same_bits("forward", || product(m, n, kk, false, true, &seed, 1.0, 0.0));
        compared |= same_bits("input gradient", || product(m, kk, n, false, false, &seed, 1.0, 1.0));
        compared |= same_bits("weight gradient", || product(n, kk, m, true, false, &seed, 1.0, 1.0));
    }
    if !compared {
        eprintln!("this CPU has no AVX-512: AVX2 was not compared against it");
    }
}
