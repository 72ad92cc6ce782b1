//! A Linear forward with bf16 weights and activations and f32
//! accumulation, for inference (search leaves, evaluation matches):
//! y [rows, n] = x [rows, k] · Wᵀ + b, W stored [n, k] as PyTorch does.
//!
//! The weight is converted once per weight update ([`pack_bf16`]) into the
//! layout AVX-512 BF16's `vdpbf16ps` reads: blocks of 16 outputs, and in
//! each block one 16-lane vector per pair of k, lane l holding
//! (W[16b + l, 2p], W[16b + l, 2p + 1]) as two bf16 in one u32 (the even
//! element in the low half). Activations are converted at the kernel
//! input, one row of pairs per row of x, into the caller's scratch
//! ([`linear_bf16_scratch`]).
//!
//! Every path computes the same numbers, bit for bit: output (i, j) starts
//! at b[j] (or 0) and, for each pair p in order, adds the odd product
//! x[i, 2p + 1] · W[j, 2p + 1] and then the even one, each rounded to f32
//! once (a product of two bf16 is exact in f32, so this is the
//! instruction's fused multiply-add). The native path is `vdpbf16ps`
//! with a register block of outputs; the portable fallback
//! ([`crate::bf16_native`] false) runs the same sequence 16 outputs at a
//! time in plain Rust that LLVM vectorises; [`crate::reference::linear_bf16`]
//! is the scalar twin. Like the instruction, conversions treat subnormal
//! f32 inputs as zero; the instruction also flushes a subnormal partial
//! sum to zero, which the fallback does not, so the paths can differ only
//! when a partial sum falls below 2^-126 in magnitude.
//!
//! Error against the f32 product: bf16 keeps 8 significant bits, so
//! rounding an operand to nearest is off by at most u = 2^-8 relative, a
//! product by at most 2u + u², and with the k + 1 f32 additions of both
//! sides |y - y_f32| <= (2u + u² + 2 (k + 1) 2^-24) (Σ_p |x_p w_p| + |b|):
//! the error is bounded by the sum of magnitudes, not by |y|
//! (`tests/bf16.rs` asserts it; the largest error seen was 0.12 of it).

#[cfg(target_arch = "x86_64")]
mod x86;

use crate::{same_len, whole_rows};

/// Outputs per block of the packed layout (one 512-bit vector of f32).
pub(crate) const LANES: usize = 16;

/// `x` rounded to bf16 (round to nearest, ties to even), as its 16 bits.
/// NaN stays NaN (quieted: payload truncated, its top bit set), a
/// subnormal becomes zero of its sign (as the hardware conversion does),
/// a value past bf16's largest rounds to infinity.
#[inline(always)]
pub fn f32_to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return ((bits >> 16) | 0x0040) as u16;
    }
    if bits & 0x7f80_0000 == 0 {
        return ((bits >> 16) & 0x8000) as u16;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

/// The f32 a bf16 stands for (exact).
#[inline(always)]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// Two values as one pair: `lo` in the low half.
#[inline(always)]
pub(crate) fn pair(lo: f32, hi: f32) -> u32 {
    u32::from(f32_to_bf16(lo)) | (u32::from(f32_to_bf16(hi)) << 16)
}

/// The u32s [`pack_bf16`] writes for an [n, k] weight: whole blocks of 16
/// outputs times pairs of k (padding is zero).
pub fn packed_bf16_len(n: usize, k: usize) -> usize {
    n.div_ceil(LANES) * k.div_ceil(2) * LANES
}

/// The u32s of scratch [`linear_bf16`] needs for `rows` rows of `k`
/// inputs: one row of bf16 pairs per row of x.
pub fn linear_bf16_scratch(rows: usize, k: usize) -> usize {
    rows * k.div_ceil(2)
}

/// Packs W [n, k] (row-major f32) into `dst` (`packed_bf16_len(n, k)`
/// long) in the layout of the module doc; outputs past n and the odd k's
/// missing partner are zero.
#[track_caller]
pub fn pack_bf16(w: &[f32], n: usize, k: usize, dst: &mut [u32]) {
    same_len("pack_bf16", &[w.len(), n * k]);
    same_len("pack_bf16", &[dst.len(), packed_bf16_len(n, k)]);
    let kp = k.div_ceil(2);
    for (b, block) in dst.chunks_exact_mut(kp * LANES).enumerate() {
        for (p, lanes) in block.chunks_exact_mut(LANES).enumerate() {
            for (l, d) in lanes.iter_mut().enumerate() {
                let j = b * LANES + l;
                let at = |q: usize| if j < n && q < k { w[j * k + q] } else { 0.0 };
                *d = pair(at(2 * p), at(2 * p + 1));
            }
        }
    }
}

/// A weight packed by [`pack_bf16`], with its shape.
#[derive(Clone, Copy, Debug)]
pub struct PackedBf16<'a> {
    data: &'a [u32],
    outputs: usize,
    inputs: usize,
}

impl<'a> PackedBf16<'a> {
    /// Panics unless `data` is `packed_bf16_len(outputs, inputs)` long.
    #[track_caller]
    pub fn new(data: &'a [u32], outputs: usize, inputs: usize) -> Self {
        same_len("PackedBf16::new", &[data.len(), packed_bf16_len(outputs, inputs)]);
        Self { data, outputs, inputs }
    }

    /// The packed pairs.
    pub fn data(&self) -> &'a [u32] {
        self.data
    }

    /// n, the rows of W.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// k, the columns of W.
    pub fn inputs(&self) -> usize {
        self.inputs
    }
}

/// Panics unless the operands of a bf16 Linear agree; returns the rows.
#[track_caller]
pub(crate) fn check(
    op: &str,
    y: &[f32],
    x: &[f32],
    w: &PackedBf16<'_>,
    bias: Option<&[f32]>,
    scratch: &[u32],
) -> usize {
    let (n, k) = (w.outputs, w.inputs);
    let rows = whole_rows(op, x.len(), k);
    same_len(op, &[y.len(), rows * n]);
    if let Some(b) = bias {
        same_len(op, &[b.len(), n]);
    }
    assert!(
        scratch.len() >= linear_bf16_scratch(rows, k),
        "{op}: scratch of {} u32s for {rows} x {k} inputs, needs {}",
        scratch.len(),
        linear_bf16_scratch(rows, k)
    );
    rows
}

/// y [rows, n] = x [rows, k] · Wᵀ + b, then max(·, 0) (NaN kept) if `relu`, with W
/// and x rounded to bf16 and f32 accumulation (module doc). `scratch`
/// holds at least `linear_bf16_scratch(rows, k)` u32s; it is overwritten.
/// One dispatch per call; allocates nothing.
///
/// Panics if the lengths disagree with `w`'s shape.
#[track_caller]
pub fn linear_bf16(y: &mut [f32], x: &[f32], w: PackedBf16<'_>, bias: Option<&[f32]>, relu: bool, scratch: &mut [u32]) {
    let rows = check("linear_bf16", y, x, &w, bias, scratch);
    if rows == 0 || w.outputs == 0 {
        return;
    }
    let scratch = &mut scratch[..linear_bf16_scratch(rows, w.inputs)];
    #[cfg(target_arch = "x86_64")]
    if crate::bf16_native() {
        // SAFETY: `bf16_native` reports true only when the CPU has AVX-512
        // F/VL/BW/DQ, FMA and BF16; the lengths were checked above.
        unsafe { x86::linear(y, x, &w, bias, relu, scratch) };
        return;
    }
    convert_rows(x, w.inputs, scratch);
    portable(y, scratch, w.data, w.outputs, w.inputs, bias, relu);
}

/// max(a, 0) as the native path computes it: +0 for -0, NaN kept.
#[inline(always)]
pub(crate) fn relu_of(a: f32) -> f32 {
    crate::math::relu(a)
}

/// x [rows, k] as rows of bf16 pairs (`k.div_ceil(2)` each, the odd k's
/// partner zero).
fn convert_rows(x: &[f32], k: usize, pairs: &mut [u32]) {
    let kp = k.div_ceil(2);
    for (xr, pr) in x.chunks_exact(k).zip(pairs.chunks_exact_mut(kp)) {
        for (p, d) in pr.iter_mut().enumerate() {
            *d = pair(xr[2 * p], if 2 * p + 1 < k { xr[2 * p + 1] } else { 0.0 });
        }
    }
}

kernel! {
    /// The portable fallback of [`linear_bf16`] on converted activations:
    /// 16 outputs at a time, the same additions in the same order.
    fn portable(y: &mut [f32], pairs: &[u32], w: &[u32], n: usize, k: usize, bias: Option<&[f32]>, relu: bool);
    check {}
    {
        let kp = k.div_ceil(2);
        let rows = y.len() / n;
        for i in 0..rows {
            let xr = &pairs[i * kp..(i + 1) * kp];
            let yr = &mut y[i * n..(i + 1) * n];
            for (b, block) in w.chunks_exact(kp * LANES).enumerate() {
                let j0 = b * LANES;
                let width = LANES.min(n - j0);
                let mut acc = [0.0f32; LANES];
                if let Some(bias) = bias {
                    acc[..width].copy_from_slice(&bias[j0..j0 + width]);
                }
                for (&xp, lanes) in xr.iter().zip(block.chunks_exact(LANES)) {
                    let (xe, xo) = (f32::from_bits(xp << 16), f32::from_bits(xp & 0xffff_0000));
                    for (a, &wp) in acc.iter_mut().zip(lanes) {
                        let (we, wo) = (f32::from_bits(wp << 16), f32::from_bits(wp & 0xffff_0000));
                        *a += xo * wo;
                        *a += xe * we;
                    }
                }
                for (o, &a) in yr[j0..j0 + width].iter_mut().zip(&acc) {
                    *o = if relu { relu_of(a) } else { a };
                }
            }
        }
    }
}
