//! The products minnow leaves to faer (larger than `small_gemm`'s limit)
//! sum their whole depth in one pass, in order, when the depth is at most
//! 512: each output is the chain `acc = fma(a[i][p], b[p][j], acc)` for p
//! = 0, 1, ..., which no cache size enters. (faer's `gemm` blocks the depth
//! by the L1 cache's geometry only beyond 512.) This is what makes a run
//! of the shipped AlphaZero presets, whose products are at most 256 deep,
//! give the same bits on machines with other caches.

use minnow_kernels::{self as k, Par, View, ViewMut};

mod common;
use common::fill;

/// `a · b` (a: m x kk, b: kk x n, either stored transposed) through
/// `minnow_kernels::gemm`, against the in-order fused chain, bit for bit.
fn check(m: usize, n: usize, kk: usize, ta: bool, tb: bool) {
    let (a, b) = (fill(m * kk, 1), fill(kk * n, 2));
    let av = if ta { View::new(&a, kk, m).t() } else { View::new(&a, m, kk) };
    let bv = if tb { View::new(&b, n, kk).t() } else { View::new(&b, kk, n) };
    let mut got = vec![f32::NAN; m * n];
    k::gemm(ViewMut::new(&mut got, m, n), 0.0, av, bv, 1.0, Par::Seq);
    for i in 0..m {
        for j in 0..n {
            let chain = (0..kk).fold(0.0f32, |acc, p| av.at(i, p).mul_add(bv.at(p, j), acc));
            let g = got[i * n + j];
            assert_eq!(g.to_bits(), chain.to_bits(), "{m}x{n}x{kk} ta={ta} tb={tb} at ({i}, {j}): {g} against {chain}");
        }
    }
}

#[test]
fn preset_shapes_sum_in_order() {
    // Backgammon (batch 256, 202 inputs, trunk 256, 156 actions) and
    // connect four (168 inputs, trunk 128): forward x · Wᵀ, input
    // gradient dy · W, weight gradient dyᵀ · x.
    for (m, n, kk) in [(256, 256, 202), (256, 256, 256), (256, 156, 256), (256, 128, 168), (256, 128, 128)] {
        check(m, n, kk, false, true);
        check(m, kk, n, false, false);
        check(n, kk, m, true, false);
    }
}

#[test]
fn depth_512_sums_in_order() {
    check(192, 160, 512, false, false);
}
