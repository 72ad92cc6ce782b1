//! Branch-free scalar math that LLVM can vectorise inside kernel loops.

/// a * b + c, fused where the target has FMA.
#[inline(always)]
pub(crate) fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// e^x to about 2 ulp (Cephes `expf`), for x in [-87.3, 88.7]; inputs
/// outside are clamped, so results stay finite and normal.
#[inline(always)]
pub(crate) fn exp<const FMA: bool>(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.3, 88.7);
    let shifted = madd::<FMA>(x, LOG2E, ROUND);
    let n = shifted - ROUND;
    let r = madd::<FMA>(-n, LN2_LO, madd::<FMA>(-n, LN2_HI, x));
    let mut p = 1.987_569_1e-4_f32;
    p = madd::<FMA>(p, r, 1.398_199_9e-3);
    p = madd::<FMA>(p, r, 8.333_452e-3);
    p = madd::<FMA>(p, r, 4.166_579_6e-2);
    p = madd::<FMA>(p, r, 1.666_666_5e-1);
    p = madd::<FMA>(p, r, 0.5);
    let er = madd::<FMA>(p, r * r, r) + 1.0;
    // n as an integer without a float-to-int cast (which blocks
    // vectorisation): the low mantissa bits of `shifted` hold it.
    let n_int = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    let scale = f32::from_bits(n_int.wrapping_add(127) << 23);
    er * scale
}

/// Lanes of the accumulator arrays below: two AVX-512 registers, so LLVM
/// keeps independent partial results and vectorises the reduction.
pub(crate) const LANES: usize = 32;

/// Folds the lanes pairwise (32 -> 16 -> ... -> 1), so every level is one
/// vector operation instead of a chain of scalar ones.
#[inline(always)]
fn fold_lanes(mut acc: [f32; LANES], op: impl Fn(f32, f32) -> f32) -> f32 {
    let mut width = LANES / 2;
    while width > 0 {
        for i in 0..width {
            acc[i] = op(acc[i], acc[i + width]);
        }
        width /= 2;
    }
    acc[0]
}

/// The last partial chunk, padded with `fill` to a whole one, and how many
/// of its lanes are real: tails then run vectorised, masked by a select.
#[inline(always)]
fn padded(rest: &[f32], fill: f32) -> ([f32; LANES], usize) {
    let mut chunk = [fill; LANES];
    chunk[..rest.len()].copy_from_slice(rest);
    (chunk, rest.len())
}

/// Σ f(x[i]) with vectorised partial sums.
#[inline(always)]
pub(crate) fn sum_map(x: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut acc = [0.0f32; LANES];
    let chunks = x.chunks_exact(LANES);
    let (tail, real) = padded(chunks.remainder(), 0.0);
    for c in chunks {
        for i in 0..LANES {
            acc[i] += f(c[i]);
        }
    }
    for i in 0..LANES {
        acc[i] += if i < real { f(tail[i]) } else { 0.0 };
    }
    fold_lanes(acc, |a, b| a + b)
}

/// Σ f(a[i], b[i]) with vectorised partial sums.
#[inline(always)]
pub(crate) fn sum_zip(a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let ((ta, real), (tb, _)) = (padded(ca.remainder(), 0.0), padded(cb.remainder(), 0.0));
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += f(x[i], y[i]);
        }
    }
    for i in 0..LANES {
        acc[i] += if i < real { f(ta[i], tb[i]) } else { 0.0 };
    }
    fold_lanes(acc, |a, b| a + b)
}

/// Σ f(a[i], b[i], c[i]) with vectorised partial sums.
#[inline(always)]
pub(crate) fn sum_zip3(a: &[f32], b: &[f32], c: &[f32], f: impl Fn(f32, f32, f32) -> f32) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (ca, cb, cc) = (a.chunks_exact(LANES), b.chunks_exact(LANES), c.chunks_exact(LANES));
    let (ra, rb, rc) = (ca.remainder(), cb.remainder(), cc.remainder());
    let tail: f32 = (0..ra.len()).map(|i| f(ra[i], rb[i], rc[i])).sum();
    for ((x, y), z) in ca.zip(cb).zip(cc) {
        for i in 0..LANES {
            acc[i] += f(x[i], y[i], z[i]);
        }
    }
    fold_lanes(acc, |a, b| a + b) + tail
}

/// max(x, 0) as PyTorch's relu computes it: NaN stays NaN, and every
/// number (-0 included) gives what `if x > 0 { x } else { 0 }` gives.
/// One compare and a select, as cheap as `max` (which returns 0 for NaN).
#[inline(always)]
pub(crate) fn relu(x: f32) -> f32 {
    if x <= 0.0 { 0.0 } else { x }
}

/// The largest element (-inf for an empty slice; NaNs are skipped: the
/// softmaxes that use it turn a NaN into NaNs through `exp` anyway).
#[inline(always)]
pub(crate) fn max(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; LANES];
    let chunks = x.chunks_exact(LANES);
    let (tail, _) = padded(chunks.remainder(), f32::NEG_INFINITY);
    for c in chunks.chain(std::iter::once(&tail[..])) {
        for i in 0..LANES {
            acc[i] = if c[i] > acc[i] { c[i] } else { acc[i] };
        }
    }
    fold_lanes(acc, f32::max)
}

/// tanh(x) = sign(x) (1 - e) / (1 + e) with e = e^(-2|x|): never overflows.
#[inline(always)]
pub(crate) fn tanh<const FMA: bool>(x: f32) -> f32 {
    let e = exp::<FMA>(-2.0 * x.abs());
    ((1.0 - e) / (1.0 + e)).copysign(x)
}

/// 1 / (1 + e^-x), stable for large |x| because `exp` clamps.
#[inline(always)]
pub(crate) fn sigmoid<const FMA: bool>(x: f32) -> f32 {
    1.0 / (1.0 + exp::<FMA>(-x))
}

#[cfg(test)]
mod tests {
    #[test]
    fn exp_matches_std_across_the_range() {
        let mut worst = 0.0f32;
        let mut x = -87.0f32;
        while x < 88.0 {
            let (got, want) = (super::exp::<false>(x), x.exp());
            worst = worst.max(((got - want) / want).abs());
            x += 0.0137;
        }
        assert!(worst < 3e-7, "worst relative error {worst}");
    }

    #[test]
    fn tanh_and_sigmoid_saturate_cleanly() {
        use super::{sigmoid, tanh};
        assert_eq!(tanh::<false>(50.0), 1.0);
        assert_eq!(tanh::<false>(-50.0), -1.0);
        assert!(sigmoid::<false>(-200.0) >= 0.0 && sigmoid::<false>(-200.0) < 1e-30);
        assert_eq!(sigmoid::<false>(200.0), 1.0);
        assert!((tanh::<false>(0.5) - 0.5f32.tanh()).abs() < 1e-7);
    }
}
