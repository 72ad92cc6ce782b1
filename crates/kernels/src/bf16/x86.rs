//! The native path of [`super::linear_bf16`]: `vcvtne2ps2bf16` converts
//! the activations, `vdpbf16ps` runs a register block of up to 4 rows x 8
//! vectors (128 outputs) over all of k.
//!
//! Raw pointers stand for the operands inside the block; every pointer it
//! dereferences is a pair (i, p) of the converted rows, a vector (b, p) of
//! the packed weight, or an output (i, j) in range, as the shapes checked
//! by `linear_bf16` guarantee.

use super::{LANES, PackedBf16};
use crate::small_gemm::even_parts;
use std::arch::x86_64::*;

/// Rows of y per register block.
const MR_MAX: usize = 4;

/// The widest block, in vectors of 16 outputs, for `mr` rows: mr * nv
/// accumulators plus nv weight vectors and one broadcast fit the 32
/// registers, and one row still has 8 independent accumulators to cover
/// the instruction's latency.
fn nv_max(mr: usize) -> usize {
    [8, 6, 5, 4][mr - 1]
}

/// One register block: y[0..MR, 0..width] = x pairs [0..MR, 0..kp] ·
/// packed vectors [0..NV, 0..kp] (+ bias), ReLU'd if asked.
#[derive(Clone, Copy)]
struct Block {
    kp: usize,
    /// Row r's pairs start at `x + r * kp`.
    x: *const u32,
    /// Vector v of pair p starts at `w + (v * kp + p) * 16`.
    w: *const u32,
    /// Outputs 0..width of the block, or null.
    bias: *const f32,
    /// Row r's outputs start at `y + r * ldy`.
    y: *mut f32,
    ldy: usize,
    /// Outputs inside y: (NV - 1) * 16 < width <= NV * 16.
    width: usize,
    relu: bool,
}

/// The first `n` lanes (n <= 16).
#[inline(always)]
fn mask(n: usize) -> __mmask16 {
    if n >= 16 { 0xffff } else { ((1u32 << n) - 1) as __mmask16 }
}

/// # Safety
/// The CPU has AVX-512F and AVX-512 BF16; every element the block names
/// is valid (module doc).
#[inline(always)]
unsafe fn block<const MR: usize, const NV: usize>(b: &Block) {
    let last = mask(b.width - (NV - 1) * LANES);
    let lanes = |v: usize| if v + 1 < NV { 0xffff } else { last };
    // SAFETY: the caller vouches for every pointer; the last vector's
    // bias and outputs are masked to the lanes inside y.
    unsafe {
        let mut acc = [[_mm512_setzero_ps(); NV]; MR];
        if !b.bias.is_null() {
            for v in 0..NV {
                let init = _mm512_maskz_loadu_ps(lanes(v), b.bias.add(v * LANES));
                for r in 0..MR {
                    acc[r][v] = init;
                }
            }
        }
        for p in 0..b.kp {
            let mut wv = [_mm512_setzero_si512(); NV];
            for v in 0..NV {
                wv[v] = _mm512_loadu_si512(b.w.add((v * b.kp + p) * LANES).cast());
            }
            for r in 0..MR {
                let xv = _mm512_set1_epi32(*b.x.add(r * b.kp + p) as i32);
                for v in 0..NV {
                    acc[r][v] = _mm512_dpbf16_ps(acc[r][v], bh(xv), bh(wv[v]));
                }
            }
        }
        let zero = _mm512_setzero_ps();
        for r in 0..MR {
            for v in 0..NV {
                let out = if b.relu {
                    // ReLU keeping NaN: lanes not <= 0 (numbers above 0,
                    // and NaN) pass, the rest become +0; `vmaxps(a, 0)`
                    // would turn NaN into 0.
                    _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(acc[r][v], zero, _CMP_NLE_UQ), acc[r][v])
                } else {
                    acc[r][v]
                };
                _mm512_mask_storeu_ps(b.y.add(r * b.ldy + v * LANES), lanes(v), out);
            }
        }
    }
}

/// 32 packed bf16 as the instruction's operand type (same bits).
#[inline(always)]
fn bh(v: __m512i) -> __m512bh {
    // SAFETY: both are 512 bits of plain data, every bit pattern valid.
    unsafe { std::mem::transmute::<__m512i, __m512bh>(v) }
}

/// Calls the `block` instance for `mr` rows and `nv` vectors.
macro_rules! block_table {
    ($mr:expr, $nv:expr, $blk:expr; $($mrs:literal => [$($nvs:literal)*]),*) => {
        match ($mr, $nv) {
            $($(($mrs, $nvs) => block::<$mrs, $nvs>($blk),)*)*
            _ => unreachable!("linear_bf16: no {} x {} block", $mr, $nv),
        }
    };
}

/// x [rows, k] as rows of bf16 pairs, 32 values per conversion; lanes
/// past k load as zero, so the odd k's partner is zero.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512 BF16; `pairs` holds
/// `rows * k.div_ceil(2)` u32s and x `rows * k` floats.
#[inline(always)]
unsafe fn convert_rows(x: &[f32], k: usize, pairs: &mut [u32]) {
    let kp = k.div_ceil(2);
    for (xr, pr) in x.chunks_exact(k).zip(pairs.chunks_exact_mut(kp)) {
        for c in (0..k).step_by(2 * LANES) {
            // SAFETY: the loads are masked to x's row (c < k), the store
            // to the row's pairs (c / 2 < kp).
            unsafe {
                let lo = _mm512_maskz_loadu_ps(mask(k - c), xr.as_ptr().add(c));
                let hi = _mm512_maskz_loadu_ps(mask(k.saturating_sub(c + LANES)), xr.as_ptr().wrapping_add(c + LANES));
                let converted: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
                _mm512_mask_storeu_epi32(pr.as_mut_ptr().add(c / 2).cast(), mask(kp - c / 2), converted);
            }
        }
    }
}

/// # Safety
/// The CPU has AVX-512F/VL/BW/DQ, FMA and AVX-512 BF16; the lengths agree
/// as `linear_bf16` checked, `scratch` holds exactly the converted rows,
/// and `w` has at least one output.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,avx512bf16")]
pub(super) unsafe fn linear(
    y: &mut [f32],
    x: &[f32],
    w: &PackedBf16<'_>,
    bias: Option<&[f32]>,
    relu: bool,
    scratch: &mut [u32],
) {
    let (n, k) = (w.outputs(), w.inputs());
    let (kp, rows) = (k.div_ceil(2), y.len() / n);
    // SAFETY: the caller vouches for the CPU and the lengths.
    unsafe { convert_rows(x, k, scratch) };
    for (i0, mr) in even_parts(rows, MR_MAX) {
        for (v0, nv) in even_parts(n.div_ceil(LANES), nv_max(mr)) {
            let j0 = v0 * LANES;
            // SAFETY: rows i0..i0 + mr and outputs j0..j0 + width are in
            // range; the packed weight holds every vector v0..v0 + nv.
            unsafe {
                let blk = Block {
                    kp,
                    x: scratch.as_ptr().add(i0 * kp),
                    w: w.data().as_ptr().add(v0 * kp * LANES),
                    bias: bias.map_or(std::ptr::null(), |b| b.as_ptr().add(j0)),
                    y: y.as_mut_ptr().add(i0 * n + j0),
                    ldy: n,
                    width: (nv * LANES).min(n - j0),
                    relu,
                };
                block_table!(mr, nv, &blk;
                    1 => [1 2 3 4 5 6 7 8],
                    2 => [1 2 3 4 5 6],
                    3 => [1 2 3 4 5],
                    4 => [1 2 3 4])
            }
        }
    }
}
