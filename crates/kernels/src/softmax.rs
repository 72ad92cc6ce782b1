//! Numerically stable row softmax and log-softmax with their backward passes.
//! Shapes: x, y, dy, dx are (rows, cols), row-major.

use crate::{Accum, math, same_len, whole_rows};

kernel! {
    /// `y[r] = exp(x[r] - max) / Σ exp(x[r] - max)`
    pub fn softmax_rows(x: &[f32], cols: usize, y: &mut [f32]);
    check {
        same_len("softmax_rows", &[x.len(), y.len()]);
        whole_rows("softmax_rows", x.len(), cols);
    }
    {
        if cols == 0 {
            return;
        }
        for (yr, xr) in y.chunks_exact_mut(cols).zip(x.chunks_exact(cols)) {
            let m = math::max(xr);
            for (o, &v) in yr.iter_mut().zip(xr) {
                *o = math::exp::<FMA>(v - m);
            }
            let inv = 1.0 / math::sum_map(yr, |v| v);
            for o in yr.iter_mut() {
                *o *= inv;
            }
        }
    }
}

kernel! {
    /// `y[r] = x[r] - max - ln Σ exp(x[r] - max)`
    pub fn log_softmax_rows(x: &[f32], cols: usize, y: &mut [f32]);
    check {
        same_len("log_softmax_rows", &[x.len(), y.len()]);
        whole_rows("log_softmax_rows", x.len(), cols);
    }
    {
        if cols == 0 {
            return;
        }
        for (yr, xr) in y.chunks_exact_mut(cols).zip(x.chunks_exact(cols)) {
            let m = math::max(xr);
            let shift = m + math::sum_map(xr, |v| math::exp::<FMA>(v - m)).ln();
            for (o, &v) in yr.iter_mut().zip(xr) {
                *o = v - shift;
            }
        }
    }
}

kernel! {
    /// From y = softmax(x): dx (+)= y * (dy - Σ dy·y), per row.
    pub fn softmax_rows_backward(y: &[f32], dy: &[f32], cols: usize, dx: &mut [f32], accum: Accum);
    check {
        same_len("softmax_rows_backward", &[y.len(), dy.len(), dx.len()]);
        whole_rows("softmax_rows_backward", y.len(), cols);
    }
    {
        if cols == 0 {
            return;
        }
        for ((dxr, yr), dyr) in dx.chunks_exact_mut(cols).zip(y.chunks_exact(cols)).zip(dy.chunks_exact(cols)) {
            let s = math::sum_zip(yr, dyr, |a, b| a * b);
            for ((d, &yv), &g) in dxr.iter_mut().zip(yr).zip(dyr) {
                let v = yv * (g - s);
                *d = if accum == Accum::Add { *d + v } else { v };
            }
        }
    }
}

kernel! {
    /// From y = log_softmax(x): dx (+)= dy - exp(y) Σ dy, per row.
    pub fn log_softmax_rows_backward(y: &[f32], dy: &[f32], cols: usize, dx: &mut [f32], accum: Accum);
    check {
        same_len("log_softmax_rows_backward", &[y.len(), dy.len(), dx.len()]);
        whole_rows("log_softmax_rows_backward", y.len(), cols);
    }
    {
        if cols == 0 {
            return;
        }
        for ((dxr, yr), dyr) in dx.chunks_exact_mut(cols).zip(y.chunks_exact(cols)).zip(dy.chunks_exact(cols)) {
            let s = math::sum_map(dyr, |v| v);
            for ((d, &yv), &g) in dxr.iter_mut().zip(yr).zip(dyr) {
                let v = g - math::exp::<FMA>(yv) * s;
                *d = if accum == Accum::Add { *d + v } else { v };
            }
        }
    }
}
