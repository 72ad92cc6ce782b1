//! Reductions. Sums use 32 independent accumulators (two AVX-512 registers),
//! so results differ from a left-to-right sum by rounding only.

use crate::{Accum, math, same_len, whole_rows};

kernel! {
    /// Σ x
    pub fn sum(x: &[f32]) -> f32;
    check {}
    { math::sum_map(x, |v| v) }
}

kernel! {
    /// Σ a·b
    pub fn dot(a: &[f32], b: &[f32]) -> f32;
    check { same_len("dot", &[a.len(), b.len()]) }
    { math::sum_zip(a, b, |x, y| x * y) }
}

kernel! {
    /// Σ x², for gradient-norm clipping.
    pub fn sum_squares(x: &[f32]) -> f32;
    check {}
    { math::sum_map(x, |v| v * v) }
}

kernel! {
    /// Per row of `cols`: the largest value and its first index. A NaN
    /// counts as larger than any number (PyTorch's `max`): a row holding
    /// one reports its first NaN.
    pub fn row_max_argmax(x: &[f32], cols: usize, max: &mut [f32], argmax: &mut [u32]);
    check {
        let rows = whole_rows("row_max_argmax", x.len(), cols);
        same_len("row_max_argmax", &[rows, max.len(), argmax.len()]);
    }
    {
        if cols == 0 {
            return;
        }
        for ((row, m), a) in x.chunks_exact(cols).zip(max.iter_mut()).zip(argmax.iter_mut()) {
            let (mut best, mut at) = (row[0], 0);
            for (j, &v) in row.iter().enumerate().skip(1) {
                if v > best || (v.is_nan() && !best.is_nan()) {
                    best = v;
                    at = j;
                }
            }
            *m = best;
            *a = at as u32;
        }
    }
}

kernel! {
    /// Whether every element is finite (no NaN, no infinity): one read
    /// pass summing `x * 0`, which is ±0 for a number and NaN for NaN or
    /// ±infinity. The guard an optimiser step runs before it writes.
    pub fn all_finite(x: &[f32]) -> bool;
    check {}
    { math::sum_map(x, |v| v * 0.0) == 0.0 }
}

kernel! {
    /// Column sums of a row-major `rows x cols` matrix: `out[j] (+)= Σ_r x[r, j]`.
    /// The bias gradient and the backward of a broadcast add. It is memory
    /// bound, so it streams whole rows (four at a time) into `out`, which
    /// stays in L1, rather than striding down columns.
    pub fn col_sums(x: &[f32], cols: usize, out: &mut [f32], accum: Accum);
    check {
        whole_rows("col_sums", x.len(), cols);
        same_len("col_sums", &[cols, out.len()]);
    }
    {
        if accum == Accum::Replace {
            out.fill(0.0);
        }
        if cols == 0 {
            return;
        }
        let quads = x.chunks_exact(4 * cols);
        let rest = quads.remainder();
        for quad in quads {
            let (r0, r) = quad.split_at(cols);
            let (r1, r) = r.split_at(cols);
            let (r2, r3) = r.split_at(cols);
            for ((((o, &a), &b), &c), &d) in out.iter_mut().zip(r0).zip(r1).zip(r2).zip(r3) {
                *o += (a + b) + (c + d);
            }
        }
        for row in rest.chunks_exact(cols) {
            for (o, &v) in out.iter_mut().zip(row) {
                *o += v;
            }
        }
    }
}
