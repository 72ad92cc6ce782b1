//! LayerNorm over the last axis (PyTorch semantics, biased variance).
//! x, y, dy, dx are (rows, cols); gamma, beta, dgamma, dbeta are (cols);
//! mean and rstd are (rows) and are saved for the backward pass.

use crate::{Accum, math, same_len, whole_rows};

#[track_caller]
fn check_shapes(op: &str, x: usize, y: usize, gamma: usize, beta: usize, mean: usize, rstd: usize) {
    same_len(op, &[x, y]);
    same_len(op, &[gamma, beta]);
    let rows = whole_rows(op, x, gamma);
    same_len(op, &[rows, mean, rstd]);
}

/// Normalises one row; returns (mean, 1 / sqrt(var + eps)).
#[inline(always)]
fn normalize_row(x: &[f32], gamma: &[f32], beta: &[f32], eps: f32, y: &mut [f32], relu: bool) -> (f32, f32) {
    let n = x.len() as f32;
    let mean = math::sum_map(x, |v| v) / n;
    let var = math::sum_map(x, |v| (v - mean) * (v - mean)) / n;
    let rstd = 1.0 / (var + eps).sqrt();
    for (((o, &v), &g), &b) in y.iter_mut().zip(x).zip(gamma).zip(beta) {
        let t = (v - mean) * rstd * g + b;
        *o = if relu { math::relu(t) } else { t };
    }
    (mean, rstd)
}

macro_rules! layer_norm_forward {
    ($(#[$meta:meta])* $name:ident, relu = $relu:expr) => {
        kernel! {
            $(#[$meta])*
            pub fn $name(x: &[f32], gamma: &[f32], beta: &[f32], eps: f32, y: &mut [f32], mean: &mut [f32], rstd: &mut [f32]);
            check { check_shapes(stringify!($name), x.len(), y.len(), gamma.len(), beta.len(), mean.len(), rstd.len()) }
            {
                let cols = gamma.len();
                if cols == 0 {
                    return;
                }
                let rows = x.chunks_exact(cols).zip(y.chunks_exact_mut(cols));
                for ((xr, yr), (m, r)) in rows.zip(mean.iter_mut().zip(rstd.iter_mut())) {
                    (*m, *r) = normalize_row(xr, gamma, beta, eps, yr, $relu);
                }
            }
        }
    };
}

layer_norm_forward!(
    /// y = (x - mean) * rstd * gamma + beta
    layer_norm, relu = false
);
layer_norm_forward!(
    /// y = max(LayerNorm(x), 0), fused, NaN kept. Its backward is `relu_backward` on
    /// y followed by `layer_norm_backward`.
    layer_norm_relu, relu = true
);

kernel! {
    /// With xhat = (x - mean) * rstd and g = dy * gamma:
    /// dx (+)= rstd * (g - mean(g) - xhat * mean(g * xhat));
    /// dgamma += Σ_rows dy * xhat; dbeta += Σ_rows dy.
    pub fn layer_norm_backward(
        x: &[f32], dy: &[f32], gamma: &[f32], mean: &[f32], rstd: &[f32],
        dx: &mut [f32], dgamma: &mut [f32], dbeta: &mut [f32], accum: Accum,
    );
    check {
        check_shapes("layer_norm_backward", x.len(), dy.len(), gamma.len(), dgamma.len(), mean.len(), rstd.len());
        same_len("layer_norm_backward", &[x.len(), dx.len()]);
        same_len("layer_norm_backward", &[gamma.len(), dbeta.len()]);
    }
    {
        let cols = gamma.len();
        if cols == 0 {
            return;
        }
        let n = cols as f32;
        let rows = x.chunks_exact(cols).zip(dy.chunks_exact(cols)).zip(dx.chunks_exact_mut(cols));
        for (((xr, dyr), dxr), (&m, &r)) in rows.zip(mean.iter().zip(rstd)) {
            for (((&v, &g), dg), db) in xr.iter().zip(dyr).zip(dgamma.iter_mut()).zip(dbeta.iter_mut()) {
                *dg += g * (v - m) * r;
                *db += g;
            }
            // g·gamma summed, and g·gamma·xhat summed, over the row.
            let mean_g = math::sum_zip(dyr, gamma, |g, w| g * w) / n;
            let mean_gx = math::sum_zip3(xr, dyr, gamma, |v, g, w| g * w * (v - m)) * r / n;
            for (((d, &v), &g), &w) in dxr.iter_mut().zip(xr).zip(dyr).zip(gamma) {
                let xhat = (v - m) * r;
                let val = r * (g * w - mean_g - xhat * mean_gx);
                *d = if accum == Accum::Add { *d + val } else { val };
            }
        }
    }
}
