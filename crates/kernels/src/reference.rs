//! Scalar twins of the SIMD kernels: the same signatures, written as the
//! plainest possible loops with `std` math, for property tests to hold the
//! fast versions against.

use crate::{Accum, AdamParams};

fn put(d: &mut f32, v: f32, accum: Accum) {
    *d = if accum == Accum::Add { *d + v } else { v };
}

/// max(v, 0) as PyTorch's relu: NaN stays NaN, -0 gives +0.
fn relu_of(v: f32) -> f32 {
    if v.is_nan() || v > 0.0 { v } else { 0.0 }
}

/// The scalar twin of [`crate::add`].
pub fn add(a: &[f32], b: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = a[i] + b[i];
    }
}

/// The scalar twin of [`crate::sub`].
pub fn sub(a: &[f32], b: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = a[i] - b[i];
    }
}

/// The scalar twin of [`crate::mul`].
pub fn mul(a: &[f32], b: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = a[i] * b[i];
    }
}

/// The scalar twin of [`crate::add_assign`].
pub fn add_assign(dst: &mut [f32], x: &[f32]) {
    for i in 0..dst.len() {
        dst[i] += x[i];
    }
}

/// The scalar twin of [`crate::mul_add_assign`].
pub fn mul_add_assign(dst: &mut [f32], a: &[f32], b: &[f32]) {
    for i in 0..dst.len() {
        dst[i] += a[i] * b[i];
    }
}

/// The scalar twin of [`crate::axpy`].
pub fn axpy(alpha: f32, x: &[f32], y: &mut [f32]) {
    for i in 0..y.len() {
        y[i] += alpha * x[i];
    }
}

/// The scalar twin of [`crate::scale`].
pub fn scale(alpha: f32, x: &mut [f32]) {
    for v in x {
        *v *= alpha;
    }
}

/// The scalar twin of [`crate::scale_into`].
pub fn scale_into(alpha: f32, x: &[f32], out: &mut [f32]) {
    for i in 0..out.len() {
        out[i] = alpha * x[i];
    }
}

/// The scalar twin of [`crate::relu`].
pub fn relu(x: &[f32], out: &mut [f32]) {
    for i in 0..x.len() {
        out[i] = relu_of(x[i]);
    }
}

/// The scalar twin of [`crate::relu_backward`].
pub fn relu_backward(y: &[f32], dy: &[f32], dx: &mut [f32], accum: Accum) {
    for i in 0..y.len() {
        put(&mut dx[i], if y[i] > 0.0 || y[i].is_nan() { dy[i] } else { 0.0 }, accum);
    }
}

/// The scalar twin of [`crate::relu_inplace`].
pub fn relu_inplace(x: &mut [f32]) {
    for v in x {
        *v = relu_of(*v);
    }
}

/// The scalar twin of [`crate::leaky_relu`].
pub fn leaky_relu(x: &[f32], slope: f32, out: &mut [f32]) {
    for i in 0..x.len() {
        out[i] = if x[i] > 0.0 { x[i] } else { slope * x[i] };
    }
}

/// The scalar twin of [`crate::leaky_relu_backward`].
pub fn leaky_relu_backward(x: &[f32], slope: f32, dy: &[f32], dx: &mut [f32], accum: Accum) {
    for i in 0..x.len() {
        put(&mut dx[i], if x[i] > 0.0 { dy[i] } else { slope * dy[i] }, accum);
    }
}

/// The scalar twin of [`crate::sigmoid`].
pub fn sigmoid(x: &[f32], out: &mut [f32]) {
    for i in 0..x.len() {
        out[i] = 1.0 / (1.0 + (-x[i]).exp());
    }
}

/// The scalar twin of [`crate::sigmoid_backward`].
pub fn sigmoid_backward(y: &[f32], dy: &[f32], dx: &mut [f32], accum: Accum) {
    for i in 0..y.len() {
        put(&mut dx[i], dy[i] * y[i] * (1.0 - y[i]), accum);
    }
}

/// The scalar twin of [`crate::tanh`].
pub fn tanh(x: &[f32], out: &mut [f32]) {
    for i in 0..x.len() {
        out[i] = x[i].tanh();
    }
}

/// The scalar twin of [`crate::tanh_backward`].
pub fn tanh_backward(y: &[f32], dy: &[f32], dx: &mut [f32], accum: Accum) {
    for i in 0..y.len() {
        put(&mut dx[i], dy[i] * (1.0 - y[i] * y[i]), accum);
    }
}

/// The scalar twin of [`crate::exp`].
pub fn exp(x: &[f32], out: &mut [f32]) {
    for i in 0..x.len() {
        out[i] = x[i].exp();
    }
}

/// The scalar twin of [`crate::bias_add`].
pub fn bias_add(x: &[f32], bias: &[f32], out: &mut [f32]) {
    for i in 0..x.len() {
        out[i] = x[i] + bias[i % bias.len()];
    }
}

/// The scalar twin of [`crate::bias_relu`].
pub fn bias_relu(x: &[f32], bias: &[f32], out: &mut [f32]) {
    for i in 0..x.len() {
        out[i] = relu_of(x[i] + bias[i % bias.len()]);
    }
}

/// The scalar twin of [`crate::bias_add_inplace`].
pub fn bias_add_inplace(x: &mut [f32], bias: &[f32]) {
    for i in 0..x.len() {
        x[i] += bias[i % bias.len()];
    }
}

/// The scalar twin of [`crate::bias_relu_inplace`].
pub fn bias_relu_inplace(x: &mut [f32], bias: &[f32]) {
    for i in 0..x.len() {
        x[i] = relu_of(x[i] + bias[i % bias.len()]);
    }
}

/// The scalar twin of [`crate::sum`].
pub fn sum(x: &[f32]) -> f32 {
    x.iter().map(|&v| v as f64).sum::<f64>() as f32
}

/// The scalar twin of [`crate::dot`].
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum::<f64>() as f32
}

/// The scalar twin of [`crate::sum_squares`].
pub fn sum_squares(x: &[f32]) -> f32 {
    x.iter().map(|&v| v as f64 * v as f64).sum::<f64>() as f32
}

/// The scalar twin of [`crate::row_max_argmax`].
pub fn row_max_argmax(x: &[f32], cols: usize, max: &mut [f32], argmax: &mut [u32]) {
    for r in 0..max.len() {
        let row = &x[r * cols..(r + 1) * cols];
        // The first NaN, else the first largest number.
        let mut at = row.iter().position(|v| v.is_nan()).unwrap_or(0);
        if !row[at].is_nan() {
            for j in 1..cols {
                if row[j] > row[at] {
                    at = j;
                }
            }
        }
        max[r] = row[at];
        argmax[r] = at as u32;
    }
}

/// The scalar twin of [`crate::all_finite`].
pub fn all_finite(x: &[f32]) -> bool {
    x.iter().all(|v| v.is_finite())
}

/// The scalar twin of [`crate::col_sums`].
pub fn col_sums(x: &[f32], cols: usize, out: &mut [f32], accum: Accum) {
    for j in 0..cols {
        let mut s = 0.0f64;
        for r in 0..x.len() / cols {
            s += x[r * cols + j] as f64;
        }
        put(&mut out[j], s as f32, accum);
    }
}

/// The scalar twin of [`crate::softmax_rows`].
pub fn softmax_rows(x: &[f32], cols: usize, y: &mut [f32]) {
    for (yr, xr) in y.chunks_mut(cols).zip(x.chunks(cols)) {
        let m = xr.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let total: f64 = xr.iter().map(|&v| ((v - m) as f64).exp()).sum();
        for j in 0..cols {
            yr[j] = (((xr[j] - m) as f64).exp() / total) as f32;
        }
    }
}

/// The scalar twin of [`crate::log_softmax_rows`].
pub fn log_softmax_rows(x: &[f32], cols: usize, y: &mut [f32]) {
    for (yr, xr) in y.chunks_mut(cols).zip(x.chunks(cols)) {
        let m = xr.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let total: f64 = xr.iter().map(|&v| ((v - m) as f64).exp()).sum();
        for j in 0..cols {
            yr[j] = ((xr[j] - m) as f64 - total.ln()) as f32;
        }
    }
}

/// The scalar twin of [`crate::softmax_rows_backward`].
pub fn softmax_rows_backward(y: &[f32], dy: &[f32], cols: usize, dx: &mut [f32], accum: Accum) {
    for r in 0..y.len() / cols {
        let row = r * cols..(r + 1) * cols;
        let s: f32 = y[row.clone()].iter().zip(&dy[row.clone()]).map(|(a, b)| a * b).sum();
        for i in row {
            put(&mut dx[i], y[i] * (dy[i] - s), accum);
        }
    }
}

/// The scalar twin of [`crate::log_softmax_rows_backward`].
pub fn log_softmax_rows_backward(y: &[f32], dy: &[f32], cols: usize, dx: &mut [f32], accum: Accum) {
    for r in 0..y.len() / cols {
        let row = r * cols..(r + 1) * cols;
        let s: f32 = dy[row.clone()].iter().sum();
        for i in row {
            put(&mut dx[i], dy[i] - y[i].exp() * s, accum);
        }
    }
}

/// The scalar twin of [`crate::layer_norm`].
pub fn layer_norm(x: &[f32], gamma: &[f32], beta: &[f32], eps: f32, y: &mut [f32], mean: &mut [f32], rstd: &mut [f32]) {
    let cols = gamma.len();
    for r in 0..mean.len() {
        let xr = &x[r * cols..(r + 1) * cols];
        let m = xr.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
        let var = xr.iter().map(|&v| (v as f64 - m).powi(2)).sum::<f64>() / cols as f64;
        let rs = 1.0 / (var + eps as f64).sqrt();
        for j in 0..cols {
            y[r * cols + j] = ((xr[j] as f64 - m) * rs) as f32 * gamma[j] + beta[j];
        }
        mean[r] = m as f32;
        rstd[r] = rs as f32;
    }
}

/// The scalar twin of [`crate::layer_norm_relu`].
pub fn layer_norm_relu(
    x: &[f32],
    gamma: &[f32],
    beta: &[f32],
    eps: f32,
    y: &mut [f32],
    mean: &mut [f32],
    rstd: &mut [f32],
) {
    layer_norm(x, gamma, beta, eps, y, mean, rstd);
    relu_inplace(y);
}

/// The scalar twin of [`crate::layer_norm_backward`].
pub fn layer_norm_backward(
    x: &[f32],
    dy: &[f32],
    gamma: &[f32],
    mean: &[f32],
    rstd: &[f32],
    dx: &mut [f32],
    dgamma: &mut [f32],
    dbeta: &mut [f32],
    accum: Accum,
) {
    let cols = gamma.len();
    for r in 0..mean.len() {
        let base = r * cols;
        let xhat: Vec<f64> = (0..cols).map(|j| (x[base + j] - mean[r]) as f64 * rstd[r] as f64).collect();
        let g: Vec<f64> = (0..cols).map(|j| dy[base + j] as f64 * gamma[j] as f64).collect();
        let mean_g = g.iter().sum::<f64>() / cols as f64;
        let mean_gx = g.iter().zip(&xhat).map(|(a, b)| a * b).sum::<f64>() / cols as f64;
        for j in 0..cols {
            dgamma[j] += (dy[base + j] as f64 * xhat[j]) as f32;
            dbeta[j] += dy[base + j];
            let v = rstd[r] as f64 * (g[j] - mean_g - xhat[j] * mean_gx);
            put(&mut dx[base + j], v as f32, accum);
        }
    }
}

/// The scalar twin of [`crate::scatter_add_rows`].
pub fn scatter_add_rows(src: &[f32], cols: usize, idx: &[u32], dst: &mut [f32]) {
    for (i, &row) in idx.iter().enumerate() {
        for j in 0..cols {
            dst[row as usize * cols + j] += src[i * cols + j];
        }
    }
}

/// The scalar twin of [`crate::adam_step`].
pub fn adam_step(params: &mut [f32], grads: &[f32], m: &mut [f32], v: &mut [f32], hp: &AdamParams) {
    for i in 0..params.len() {
        let mut g = grads[i];
        if hp.decoupled {
            params[i] *= 1.0 - hp.lr * hp.weight_decay;
        } else {
            g += hp.weight_decay * params[i];
        }
        m[i] = hp.beta1 * m[i] + (1.0 - hp.beta1) * g;
        v[i] = hp.beta2 * v[i] + (1.0 - hp.beta2) * g * g;
        let m_hat = m[i] / hp.bias_correction1;
        let v_hat = v[i] / hp.bias_correction2;
        params[i] -= hp.lr * m_hat / (v_hat.sqrt() + hp.eps);
    }
}

/// dst = alpha * op(a) * op(b) + beta * dst with op given by the transpose
/// flags, for row-major contiguous operands: the naive triple loop in f64.
pub fn gemm(
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a: &[f32],
    a_transposed: bool,
    b: &[f32],
    b_transposed: bool,
    beta: f32,
    dst: &mut [f32],
) {
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f64;
            for p in 0..k {
                let av = if a_transposed { a[p * m + i] } else { a[i * k + p] };
                let bv = if b_transposed { b[j * k + p] } else { b[p * n + j] };
                s += av as f64 * bv as f64;
            }
            let old = if beta == 0.0 { 0.0 } else { beta as f64 * dst[i * n + j] as f64 };
            dst[i * n + j] = (alpha as f64 * s + old) as f32;
        }
    }
}

/// The scalar twin of [`crate::sgd_step`].
pub fn sgd_step(params: &mut [f32], grads: &[f32], momentum_buf: &mut [f32], hp: &crate::SgdParams) {
    for i in 0..params.len() {
        let mut g = grads[i] + hp.weight_decay * params[i];
        if hp.momentum != 0.0 {
            if hp.first_step {
                momentum_buf[i] = g;
            } else {
                momentum_buf[i] = hp.momentum * momentum_buf[i] + (1.0 - hp.dampening) * g;
            }
            if hp.nesterov {
                g += hp.momentum * momentum_buf[i];
            } else {
                g = momentum_buf[i];
            }
        }
        params[i] -= hp.lr * g;
    }
}

/// The scalar twin of [`crate::rmsprop_step`].
pub fn rmsprop_step(
    params: &mut [f32],
    grads: &[f32],
    square_avg: &mut [f32],
    grad_avg: &mut [f32],
    momentum_buf: &mut [f32],
    hp: &crate::RmsPropParams,
) {
    for i in 0..params.len() {
        let g = grads[i] + hp.weight_decay * params[i];
        square_avg[i] = hp.alpha * square_avg[i] + (1.0 - hp.alpha) * g * g;
        let avg = if hp.centered {
            grad_avg[i] = hp.alpha * grad_avg[i] + (1.0 - hp.alpha) * g;
            let var = square_avg[i] - grad_avg[i] * grad_avg[i];
            if var < 0.0 { 0.0 } else { var.sqrt() }
        } else {
            square_avg[i].sqrt()
        };
        let denom = avg + hp.eps;
        if hp.momentum > 0.0 {
            momentum_buf[i] = hp.momentum * momentum_buf[i] + g / denom;
            params[i] -= hp.lr * momentum_buf[i];
        } else {
            params[i] -= hp.lr * (g / denom);
        }
    }
}

/// The scalar twin of [`crate::adagrad_step`].
pub fn adagrad_step(params: &mut [f32], grads: &[f32], sum: &mut [f32], hp: &crate::AdaGradParams) {
    for i in 0..params.len() {
        let g = grads[i] + hp.weight_decay * params[i];
        sum[i] += g * g;
        params[i] -= hp.lr * (g / (sum[i].sqrt() + hp.eps));
    }
}

/// The scalar twin of [`crate::clip_by_value`].
pub fn clip_by_value(x: &mut [f32], limit: f32) {
    for v in x.iter_mut() {
        *v = v.clamp(-limit, limit);
    }
}

/// erfc(z) for z ≥ 0 in f64: 1 - (Taylor series of erf) below 3, the
/// Laplace continued fraction above.
fn gelu_erfc(z: f64) -> f64 {
    if z < 3.0 {
        let (mut term, mut sum, mut n) = (z, z, 0.0f64);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -z * z / n;
            sum += term / (2.0 * n + 1.0);
        }
        1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum
    } else {
        let mut k = z;
        for i in (1..=80).rev() {
            k = z + (i as f64 / 2.0) / k;
        }
        (-z * z).exp() / (std::f64::consts::PI.sqrt() * k)
    }
}

/// Φ(x), the standard normal CDF, in f64.
fn gelu_cdf(x: f64) -> f64 {
    let tail = 0.5 * gelu_erfc(x.abs() / std::f64::consts::SQRT_2);
    if x < 0.0 { tail } else { 1.0 - tail }
}

/// The scalar twin of [`crate::gelu`].
pub fn gelu(x: &[f32], out: &mut [f32]) {
    for i in 0..x.len() {
        let v = x[i] as f64;
        out[i] = (v * gelu_cdf(v)) as f32;
    }
}

/// The scalar twin of [`crate::gelu_backward`].
pub fn gelu_backward(x: &[f32], dy: &[f32], dx: &mut [f32], accum: Accum) {
    for i in 0..x.len() {
        let v = x[i] as f64;
        let density = (-0.5 * v * v).exp() / (2.0 * std::f64::consts::PI).sqrt();
        put(&mut dx[i], (dy[i] as f64 * (gelu_cdf(v) + v * density)) as f32, accum);
    }
}

/// The scalar twin of [`crate::linear_bf16`]: every operand rounded to
/// bf16 with [`crate::f32_to_bf16`], then per output, from the bias, each
/// pair of k adds its odd product and then its even one in f32 (each
/// product is exact, so this is the instruction's fused multiply-add).
pub fn linear_bf16(
    y: &mut [f32],
    x: &[f32],
    w: crate::PackedBf16<'_>,
    bias: Option<&[f32]>,
    relu: bool,
    scratch: &mut [u32],
) {
    let (n, k) = (w.outputs(), w.inputs());
    let _ = scratch;
    let (kp, rows) = (k.div_ceil(2), x.len() / k.max(1));
    let round = |v: f32| crate::bf16_to_f32(crate::f32_to_bf16(v));
    let weight = |j: usize, q: usize| {
        let pair = w.data()[((j / 16) * kp + q / 2) * 16 + j % 16];
        crate::bf16_to_f32(if q.is_multiple_of(2) { pair as u16 } else { (pair >> 16) as u16 })
    };
    for i in 0..rows {
        for j in 0..n {
            let mut acc = bias.map_or(0.0, |b| b[j]);
            for p in 0..kp {
                let (e, o) = (2 * p, 2 * p + 1);
                let xo = if o < k { round(x[i * k + o]) } else { 0.0 };
                acc += xo * weight(j, o);
                acc += round(x[i * k + e]) * weight(j, e);
            }
            y[i * n + j] = if relu { relu_of(acc) } else { acc };
        }
    }
}
