//! minnow's small GEMM kernels against the naive f64 loop in `reference`,
//! at every SIMD level, in all three layouts, with padded leading
//! dimensions; and `gemm`'s dispatch on the shapes the workloads use.
//!
//! Padding is filled with NaN in A and B (so a kernel that reads past a
//! row's end poisons its result) and with a sentinel in C (so one that
//! writes past it is caught); with beta = 0 the destination starts as NaN,
//! which must never be read.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_kernels::{self as k, View, ViewMut, reference as r, small_gemm};
use proptest::prelude::*;

mod common;
use common::fill;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const SENTINEL: f32 = 7777.0;

#[derive(Clone, Copy, Debug)]
enum Op {
    /// A · B
    Nn,
    /// Aᵀ · B, A stored k x m
    Tn,
    /// A · Bᵀ, B stored n x k
    Nt,
}

/// `rows x cols` values stored with leading dimension `ld`; `pad` fills the
/// gaps.
fn padded(dense: &[f32], rows: usize, cols: usize, ld: usize, pad: f32) -> Vec<f32> {
    let mut out = vec![pad; rows.saturating_sub(1) * ld + if rows > 0 { cols } else { 0 }];
    for i in 0..rows {
        out[i * ld..i * ld + cols].copy_from_slice(&dense[i * cols..(i + 1) * cols]);
    }
    out
}

#[derive(Clone, Debug)]
struct Case {
    op: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    beta: f32,
    /// Extra floats per row beyond the width, for A, B and C.
    pads: [usize; 3],
    seed: u64,
}

impl Case {
    /// Runs `run` on the case's operands and checks the result against
    /// `reference::gemm` (and that C's padding is untouched).
    fn check(&self, what: &str, run: impl Fn(ViewMut<'_>, f32, View<'_>, View<'_>, f32)) {
        let Case { op, m, n, k, alpha, beta, pads, seed } = *self;
        // Stored shapes: A as (m x k) or (k x m), B as (k x n) or (n x k).
        let (a_rows, a_cols) = if matches!(op, Op::Tn) { (k, m) } else { (m, k) };
        let (b_rows, b_cols) = if matches!(op, Op::Nt) { (n, k) } else { (k, n) };
        let a = fill(a_rows * a_cols, seed);
        let b = fill(b_rows * b_cols, seed ^ 0xB);
        let c0 = if beta == 0.0 { vec![f32::NAN; m * n] } else { fill(m * n, seed ^ 0xC) };
        let (lda, ldb, ldc) = (a_cols + pads[0], b_cols + pads[1], n + pads[2]);
        let a_store = padded(&a, a_rows, a_cols, lda, f32::NAN);
        let b_store = padded(&b, b_rows, b_cols, ldb, f32::NAN);
        let mut c_store = padded(&c0, m, n, ldc, SENTINEL);
        let av = View::with_ld(&a_store, a_rows, a_cols, lda);
        let bv = View::with_ld(&b_store, b_rows, b_cols, ldb);
        let (av, bv) = match op {
            Op::Nn => (av, bv),
            Op::Tn => (av.t(), bv),
            Op::Nt => (av, bv.t()),
        };
        run(ViewMut::with_ld(&mut c_store, m, n, ldc), beta, av, bv, alpha);
        let mut want = c0.clone();
        let (ta, tb) = (matches!(op, Op::Tn), matches!(op, Op::Nt));
        r::gemm(m, n, k, alpha, &a, ta, &b, tb, beta, &mut want);
        let atol = 1e-5 * k.max(1) as f32;
        for i in 0..m {
            for j in 0..ld_range(ldc, n, i, m) {
                let got = c_store[i * ldc + j];
                if j >= n {
                    assert_eq!(got, SENTINEL, "{what} {self:?}: wrote C padding ({i}, {j})");
                    continue;
                }
                let w = want[i * n + j];
                assert!((got - w).abs() <= atol + 1e-4 * w.abs(), "{what} {self:?}: C[{i}, {j}] = {got}, want {w}");
            }
        }
    }
}

/// Columns of row `i` present in a padded store (the last row has no pad).
fn ld_range(ld: usize, n: usize, i: usize, m: usize) -> usize {
    if i + 1 == m { n } else { ld }
}

fn small(dst: ViewMut<'_>, beta: f32, a: View<'_>, b: View<'_>, alpha: f32) {
    small_gemm::gemm(dst, beta, a, b, alpha)
}

fn dispatched(dst: ViewMut<'_>, beta: f32, a: View<'_>, b: View<'_>, alpha: f32) {
    k::gemm(dst, beta, a, b, alpha, k::Par::Seq)
}

fn each_level(check: impl Fn()) {
    for level in k::supported_levels() {
        k::with_level(level, &check);
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![Just(Op::Nn), Just(Op::Tn), Just(Op::Nt)]
}

fn scalar(min: f32, max: f32) -> impl Strategy<Value = f32> {
    prop_oneof![Just(0.0f32), Just(1.0f32), min..max]
}

/// A dimension: anything in 0..70, weighted towards the listed shapes' and
/// the vector widths' neighbourhoods.
fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..70, prop::sample::select(vec![0, 1, 4, 6, 7, 8, 9, 15, 16, 17, 32, 33, 63, 64, 65]),]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn small_kernels_match_reference(
        op in op(),
        (m, n, kk) in (dim(), dim(), dim()),
        alpha in prop_oneof![Just(1.0f32), -2.0f32..2.0],
        beta in scalar(-1.5, 1.5),
        pads in prop::array::uniform3(prop_oneof![Just(0usize), 1usize..20]),
        seed in any::<u64>(),
    ) {
        let case = Case { op, m, n, k: kk, alpha, beta, pads, seed };
        each_level(|| case.check("small_gemm", small));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Longer rows: k past the packed path's chunk of k (144), n past one
    /// column panel, and the matrix-vector case m = 1 with B beyond L1.
    #[test]
    fn larger_shapes_match_reference(
        op in op(),
        (m, n, kk) in (prop_oneof![Just(1usize), 0usize..40], 0usize..200, 0usize..320),
        alpha in prop_oneof![Just(1.0f32), -2.0f32..2.0],
        beta in scalar(-1.5, 1.5),
        pads in prop::array::uniform3(prop_oneof![Just(0usize), 1usize..20]),
        seed in any::<u64>(),
    ) {
        let case = Case { op, m, n, k: kk, alpha, beta, pads, seed };
        each_level(|| case.check("small_gemm", small));
    }
}

/// The shapes the DQN and AlphaZero workloads run, through `gemm`'s
/// dispatch and through the small kernels directly, at every level.
#[test]
fn workload_shapes() {
    let shapes = [
        (Op::Nt, 64, 64, 6),
        (Op::Nt, 32, 64, 4),
        (Op::Nt, 1, 198, 140),
        (Op::Nt, 8, 140, 140),
        (Op::Nt, 1, 140, 140),
        (Op::Nt, 1, 140, 676),
        (Op::Nt, 8, 140, 676),
        (Op::Nt, 1, 140, 1),
        (Op::Nt, 64, 140, 140),
        (Op::Nt, 32, 16, 64),
        (Op::Nt, 32, 64, 64),
        (Op::Nt, 64, 144, 128),
        (Op::Tn, 64, 32, 16),
        (Op::Tn, 64, 32, 64),
        (Op::Tn, 4, 32, 64),
        (Op::Tn, 6, 64, 64),
        (Op::Nn, 32, 4, 64),
        (Op::Nn, 32, 64, 64),
        (Op::Nn, 64, 6, 64),
        (Op::Nn, 129, 130, 131),
        (Op::Nt, 129, 300, 131),
        (Op::Nt, 40, 300, 70),
    ];
    let mut seed = 1;
    for (op, m, kk, n) in shapes {
        for (alpha, beta) in [(1.0, 0.0), (1.0, 1.0), (-0.75, 0.5)] {
            for pads in [[0, 0, 0], [3, 5, 7]] {
                seed += 1;
                let case = Case { op, m, n, k: kk, alpha, beta, pads, seed };
                each_level(|| {
                    case.check("small_gemm", small);
                    case.check("gemm", dispatched);
                });
            }
        }
    }
}

#[test]
fn layouts_are_classified() {
    let x = vec![0.0f32; 64];
    let a = View::new(&x, 4, 8);
    let b = View::new(&x, 8, 4);
    assert_eq!(small_gemm::layout(&a, &b), Some(small_gemm::Layout::Nn));
    assert_eq!(small_gemm::layout(&b.t(), &b), Some(small_gemm::Layout::Tn));
    assert_eq!(small_gemm::layout(&a, &a.t()), Some(small_gemm::Layout::Nt));
    assert_eq!(small_gemm::layout(&b.t(), &a.t()), None);
}

#[test]
#[should_panic(expected = "small_gemm")]
fn unsupported_layout_panics() {
    let x = vec![0.0f32; 64];
    let mut y = vec![0.0f32; 16];
    let (a, b) = (View::new(&x, 8, 4), View::new(&x, 4, 8));
    small_gemm::gemm(ViewMut::new(&mut y, 4, 4), 0.0, a.t(), b.t(), 1.0);
}

#[test]
fn small_gemm_allocates_nothing() {
    let (m, kk, n) = (32, 64, 64);
    let x = fill(m * kk, 1);
    let w = fill(n * kk, 2);
    let dy = fill(m * n, 3);
    let mut y = vec![0.0f32; m * n];
    let mut dw = vec![0.0f32; n * kk];
    let mut dx = vec![0.0f32; m * kk];
    let levels = k::supported_levels();
    let mut step = || {
        for &level in &levels {
            k::with_level(level, || {
                // Forward x · Wᵀ (packed NT and, at batch 1, the dot form),
                // then dyᵀ · x (TN) and dy · W (NN).
                let wv = View::new(&w, n, kk);
                k::gemm(ViewMut::new(&mut y, m, n), 0.0, View::new(&x, m, kk), wv.t(), 1.0, k::Par::Seq);
                small_gemm::gemm(ViewMut::new(&mut y[..n], 1, n), 1.0, View::new(&x[..kk], 1, kk), wv.t(), 0.5);
                k::gemm(
                    ViewMut::new(&mut dw, n, kk),
                    1.0,
                    View::new(&dy, m, n).t(),
                    View::new(&x, m, kk),
                    1.0,
                    k::Par::Seq,
                );
                small_gemm::gemm(ViewMut::new(&mut dx, m, kk), 0.0, View::new(&dy, m, n), wv, 1.0);
            });
        }
    };
    step(); // warm-up: CPU detection
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..5 {
            step();
        }
    });
    assert_eq!(on_thread.allocations, 0, "small GEMM allocated {} bytes", on_thread.bytes);
}
