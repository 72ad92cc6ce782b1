//! `gemm_threads` gives the same bits as one `gemm` call for any number of
//! threads: its row bands use the kernel chosen for the whole product, even
//! where a band alone would pick another one (the NT dot form instead of
//! the packed kernel, or minnow's kernels instead of faer).

use minnow_kernels::{self as k, Par, View, ViewMut};
use proptest::prelude::*;

mod common;
use common::fill;

/// Asserts that 2, 3 and 4 threads give what one call gives, bit for bit.
fn check(m: usize, n: usize, kk: usize, ta: bool, tb: bool, beta: f32) {
    let (a, b, c0) = (fill(m * kk, 1), fill(kk * n, 2), fill(m * n, 3));
    let av = if ta { View::new(&a, kk, m).t() } else { View::new(&a, m, kk) };
    let bv = if tb { View::new(&b, n, kk).t() } else { View::new(&b, kk, n) };
    let mut one = c0.clone();
    k::gemm(ViewMut::new(&mut one, m, n), beta, av, bv, 0.75, Par::Seq);
    for threads in [2, 3, 4] {
        let mut split = c0.clone();
        k::gemm_threads(ViewMut::new(&mut split, m, n), beta, av, bv, 0.75, threads);
        let same = one.iter().zip(&split).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "{m}x{n}x{kk} ta={ta} tb={tb} beta={beta} on {threads} threads differs from one call");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_shape((m, n, kk) in (2usize..80, 1usize..70, 1usize..140), ta in any::<bool>(), tb in any::<bool>(),
                 beta in prop_oneof![Just(0.0f32), Just(1.0), Just(0.5)]) {
        check(m, n, kk, ta, tb, beta);
    }
}

#[test]
fn where_a_band_alone_would_route_elsewhere() {
    // NT 16 x 32 x 100 packs (k <= 8 m); a band of 8 rows would take the dot form.
    check(16, 32, 100, false, true, 1.0);
    // 64 x 144 x 130 is over the small kernels' volume; half of it is not.
    for (ta, tb) in [(false, false), (true, false), (false, true)] {
        check(64, 144, 130, ta, tb, 0.0);
    }
    // Small products faer computes (both operands transposed) run whole.
    for m in [25, 33, 65] {
        check(m, 31, 7, true, true, 1.0);
    }
    // The workloads' layers at training batches, and larger faer products.
    check(256, 140, 168, false, true, 0.0);
    check(64, 128, 144, false, true, 0.0);
    check(128, 144, 64, true, false, 1.0);
    check(64, 676, 140, false, true, 0.0);
    check(512, 140, 198, false, true, 0.0);
    check(140, 198, 512, true, false, 1.0);
    check(512, 198, 140, false, false, 1.0);
}
