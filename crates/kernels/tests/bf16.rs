//! The bf16 Linear forward: its conversion, every path (native
//! `vdpbf16ps` where the CPU has it, the portable fallback at every SIMD
//! level) bit for bit against the scalar twin at sizes around the vector
//! width, its error against the f32 product within the stated bound, and
//! no allocation.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_kernels::{self as k, Level, PackedBf16, reference as r};
use proptest::prelude::*;

mod common;
use common::fill;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn packed(w: &[f32], n: usize, kk: usize) -> Vec<u32> {
    let mut p = vec![0; k::packed_bf16_len(n, kk)];
    k::pack_bf16(w, n, kk, &mut p);
    p
}

/// Every way a call can run on this machine: the native path if the CPU
/// has it, and the fallback at each SIMD level.
fn paths() -> Vec<(Level, bool)> {
    k::supported_levels().into_iter().map(|l| (l, k::with_level(l, k::bf16_native))).collect()
}

#[test]
fn conversion_rounds_to_nearest_even_and_keeps_nan() {
    let h = |bits: u32| k::f32_to_bf16(f32::from_bits(bits));
    assert_eq!(h(0x3f80_0000), 0x3f80); // 1
    assert_eq!(h(0x3f80_7fff), 0x3f80); // below the half: down
    assert_eq!(h(0x3f80_8000), 0x3f80); // tie, even stays
    assert_eq!(h(0x3f81_8000), 0x3f82); // tie, odd rounds up to even
    assert_eq!(h(0x3f80_8001), 0x3f81); // above the half: up
    assert_eq!(h(0xbf81_8000), 0xbf82); // sign kept
    assert_eq!(h(0x7f7f_ffff), 0x7f80); // past bf16's largest: infinity
    assert_eq!(h(0x7f80_0000), 0x7f80); // infinity
    assert_eq!(h(0x0000_0001), 0x0000); // subnormal: zero of its sign
    assert_eq!(h(0x8040_0000), 0x8000);
    for nan in [0x7f80_0001, 0x7fc0_0000, 0xff80_ffff, 0x7fff_ffff] {
        let out = k::bf16_to_f32(h(nan));
        assert!(out.is_nan(), "{nan:#x} became {out}");
        assert_eq!(out.to_bits() >> 31, nan >> 31, "{nan:#x}: sign");
    }
}

/// Through an identity weight, y is x rounded to bf16: the activations'
/// conversion at the kernel input (vector or scalar) matches
/// `f32_to_bf16` on ties, subnormals and signed zeros. (Non-finite
/// inputs would spread to every output through 0 * inf; the next test.)
#[test]
fn activations_convert_like_the_scalar_conversion_on_every_path() {
    let special = [
        1.0,
        f32::from_bits(0x3f80_8000),
        f32::from_bits(0x3f81_8000),
        f32::from_bits(0xbf80_8001),
        f32::from_bits(0x0000_0003),
        f32::from_bits(0x8070_0000),
        f32::from_bits(0x7f7f_0000),
        -0.0,
        3.3e-20,
    ];
    for kk in [1, 15, 16, 17, 31, 32, 33, 40] {
        let x: Vec<f32> = (0..kk).map(|i| special[i % special.len()] * if i % 3 == 0 { 1.0 } else { -1.0 }).collect();
        let eye: Vec<f32> = (0..kk * kk).map(|i| if i / kk == i % kk { 1.0 } else { 0.0 }).collect();
        let w = packed(&eye, kk, kk);
        let mut scratch = vec![0; k::linear_bf16_scratch(1, kk)];
        for (level, native) in paths() {
            let mut y = vec![0.0; kk];
            k::with_level(level, || k::linear_bf16(&mut y, &x, PackedBf16::new(&w, kk, kk), None, false, &mut scratch));
            for (j, (&got, &v)) in y.iter().zip(&x).enumerate() {
                let want = k::bf16_to_f32(k::f32_to_bf16(v));
                // 0 + (-0) is +0: a signed zero input comes out +0.
                let want = if want == 0.0 { 0.0 } else { want };
                assert_eq!(got.to_bits(), want.to_bits(), "{level:?} native {native}, k {kk}, {j}: {v}");
            }
        }
    }
}

/// NaN in x or W stays NaN in y on every path, through the ReLU too (and
/// infinity times a nonzero weight stays infinite).
#[test]
fn non_finite_values_propagate() {
    let (n, kk) = (17, 33);
    let mut w = fill(n * kk, 5);
    w[3 * kk + 4] = f32::NAN;
    let p = packed(&w, n, kk);
    let mut x = fill(2 * kk, 6);
    x[kk + 7] = f32::INFINITY;
    let mut scratch = vec![0; k::linear_bf16_scratch(2, kk)];
    for (level, native) in paths() {
        for relu in [false, true] {
            let mut y = vec![0.0; 2 * n];
            k::with_level(level, || k::linear_bf16(&mut y, &x, PackedBf16::new(&p, n, kk), None, relu, &mut scratch));
            assert!(y[3].is_nan() && y[n + 3].is_nan(), "{level:?} native {native} relu {relu}: {y:?}");
            assert!(y[..n].iter().enumerate().all(|(j, v)| j == 3 || v.is_finite()), "{level:?} native {native}");
            if relu {
                assert!(y[n..].iter().all(|v| v.is_nan() || *v == f32::INFINITY || *v == 0.0), "{level:?}: {y:?}");
            } else {
                assert!(y[n..].iter().all(|v| !v.is_finite()), "{level:?} native {native}: {y:?}");
            }
        }
    }
}

/// Every path bit for bit against the twin, which also checks the packed
/// layout against W itself (the twin reads it through index arithmetic,
/// the error test below against the unpacked f32 W).
#[test]
fn every_path_equals_the_scalar_twin_bit_for_bit() {
    let rows_set = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64];
    let shapes =
        [(1, 1), (15, 17), (16, 16), (17, 15), (31, 33), (32, 32), (33, 31), (129, 140), (140, 198), (676, 140)];
    for (si, &(n, kk)) in shapes.iter().enumerate() {
        let w = fill(n * kk, si as u64 + 1);
        let bias = fill(n, si as u64 + 100);
        let p = packed(&w, n, kk);
        for (ri, &rows) in rows_set.iter().enumerate() {
            if n * kk > 20_000 && ![1, 8, 17, 64].contains(&rows) {
                continue;
            }
            let x = fill(rows * kk, (si * 100 + ri) as u64 + 7);
            let mut scratch = vec![u32::MAX; k::linear_bf16_scratch(rows, kk) + 3];
            for (with_bias, relu) in [(true, false), (false, true), (true, true)] {
                let b = with_bias.then_some(&bias[..]);
                let mut want = vec![f32::NAN; rows * n];
                r::linear_bf16(&mut want, &x, PackedBf16::new(&p, n, kk), b, relu, &mut scratch);
                for (level, native) in paths() {
                    let mut y = vec![f32::NAN; rows * n];
                    k::with_level(level, || {
                        k::linear_bf16(&mut y, &x, PackedBf16::new(&p, n, kk), b, relu, &mut scratch)
                    });
                    for (i, (g, e)) in y.iter().zip(&want).enumerate() {
                        assert_eq!(
                            g.to_bits(),
                            e.to_bits(),
                            "{level:?} native {native}: {rows}x{n}x{kk} bias {with_bias} relu {relu}, y[{i}] {g} vs {e}"
                        );
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random shapes (rows up to 70, n and k up to 80), every path against
    /// the twin bit for bit, with W scaled so the products span several
    /// binades.
    #[test]
    fn random_shapes_match_the_twin(
        (rows, n, kk) in (1usize..=70, 1usize..=80, 1usize..=80),
        seed in any::<u64>(),
        scale in -8i32..8,
        relu in any::<bool>(),
        with_bias in any::<bool>(),
    ) {
        let s = 2f32.powi(scale);
        let w: Vec<f32> = fill(n * kk, seed).iter().map(|v| v * s).collect();
        let x = fill(rows * kk, seed ^ 0x55);
        let bias = fill(n, seed ^ 0xaa);
        let p = packed(&w, n, kk);
        let b = with_bias.then_some(&bias[..]);
        let mut scratch = vec![0; k::linear_bf16_scratch(rows, kk)];
        let mut want = vec![0.0; rows * n];
        r::linear_bf16(&mut want, &x, PackedBf16::new(&p, n, kk), b, relu, &mut scratch);
        for (level, native) in paths() {
            let mut y = vec![f32::NAN; rows * n];
            k::with_level(level, || k::linear_bf16(&mut y, &x, PackedBf16::new(&p, n, kk), b, relu, &mut scratch));
            let same = y.iter().zip(&want).all(|(g, e)| g.to_bits() == e.to_bits());
            prop_assert!(same, "{:?} native {}: {}x{}x{}", level, native, rows, n, kk);
        }
    }
}

/// The error bound of the module doc, asserted per output: with u = 2^-8
/// (bf16 keeps 8 significant bits, so rounding to nearest is off by at
/// most 2^-8 relative) each product x̃ w̃ = x w (1 + δ), |δ| <= 2u + u²,
/// and each of the k + 1 f32 additions (ours and the f32 product's
/// own) adds at most 2^-24 of the running magnitude:
/// |y - y_f32| <= (2u + u² + 2 (k + 1) 2^-24) (Σ_p |x_p w_p| + |b|).
/// The largest ratio seen over these shapes is printed (0.12 of the
/// bound: rounding errors of opposite signs partly cancel).
#[test]
fn the_error_against_the_f32_product_stays_within_the_bound() {
    let u = 2f64.powi(-8);
    let mut worst = 0.0f64;
    for (si, &(rows, n, kk)) in
        [(1, 140, 198), (8, 140, 140), (64, 676, 140), (17, 33, 1000), (3, 17, 4096)].iter().enumerate()
    {
        let w = fill(n * kk, si as u64 + 11);
        let bias = fill(n, si as u64 + 12);
        let x: Vec<f32> = fill(rows * kk, si as u64 + 13).iter().map(|v| 4.0 * v).collect();
        let p = packed(&w, n, kk);
        let mut scratch = vec![0; k::linear_bf16_scratch(rows, kk)];
        let mut y = vec![0.0; rows * n];
        k::linear_bf16(&mut y, &x, PackedBf16::new(&p, n, kk), Some(&bias), false, &mut scratch);
        let bound = 2.0 * u + u * u + 2.0 * (kk as f64 + 1.0) * 2f64.powi(-24);
        for i in 0..rows {
            for j in 0..n {
                let (mut exact, mut mag) = (bias[j] as f64, bias[j].abs() as f64);
                for q in 0..kk {
                    let t = x[i * kk + q] as f64 * w[j * kk + q] as f64;
                    exact += t;
                    mag += t.abs();
                }
                let err = (y[i * n + j] as f64 - exact).abs();
                assert!(err <= bound * mag, "{rows}x{n}x{kk} y[{i},{j}]: error {err:e} > {bound:e} * {mag:e}");
                worst = worst.max(err / (bound * mag));
            }
        }
    }
    println!("largest error / bound: {worst:.3}; paths (level, native): {:?}", paths());
}

#[test]
fn linear_bf16_allocates_nothing() {
    let (rows, n, kk) = (64, 140, 198);
    let (w, x, bias) = (fill(n * kk, 1), fill(rows * kk, 2), fill(n, 3));
    let mut p = vec![0; k::packed_bf16_len(n, kk)];
    let mut scratch = vec![0; k::linear_bf16_scratch(rows, kk)];
    let mut y = vec![0.0; rows * n];
    for (level, _) in paths() {
        let (_, on_thread, _) = count_allocations(|| {
            k::with_level(level, || {
                k::pack_bf16(&w, n, kk, &mut p);
                k::linear_bf16(&mut y, &x, PackedBf16::new(&p, n, kk), Some(&bias), true, &mut scratch);
                k::linear_bf16(&mut y[..n], &x[..kk], PackedBf16::new(&p, n, kk), None, false, &mut scratch);
            })
        });
        assert_eq!(on_thread.allocations, 0, "{level:?}");
    }
}
