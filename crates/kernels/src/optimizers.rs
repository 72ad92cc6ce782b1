//! Fused updates for SGD, RMSprop and AdaGrad, and clipping by value: each
//! one pass over flat parameter memory, with PyTorch's element-wise
//! formulas (`torch.optim.SGD`, `RMSprop`, `Adagrad`, `clip_grad_value_`).
//!
//! A state buffer an update does not use (the momentum buffer without
//! momentum, the gradient average when not centered) may be empty.

use crate::same_len;

/// Hyperparameters of one SGD step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SgdParams {
    /// Learning rate.
    pub lr: f32,
    /// Momentum factor mu (0: none).
    pub momentum: f32,
    /// Dampening of the gradient in the momentum update.
    pub dampening: f32,
    /// L2 penalty added to the gradient.
    pub weight_decay: f32,
    /// Nesterov momentum.
    pub nesterov: bool,
    /// The momentum buffer holds nothing yet: this step sets it to the
    /// gradient (PyTorch's `buf = clone(grad)`) instead of decaying it.
    pub first_step: bool,
}

kernel! {
    /// PyTorch's SGD, element-wise: g += wd * p; then with momentum
    /// b = g on the first step, else b = mu * b + (1 - dampening) * g, and
    /// g = g + mu * b (Nesterov) or g = b; finally p -= lr * g.
    /// `momentum_buf` is unused (and may be empty) when momentum is 0.
    pub fn sgd_step(params: &mut [f32], grads: &[f32], momentum_buf: &mut [f32], hp: &SgdParams);
    check {
        if hp.momentum == 0.0 {
            same_len("sgd_step", &[params.len(), grads.len()]);
        } else {
            same_len("sgd_step", &[params.len(), grads.len(), momentum_buf.len()]);
        }
    }
    {
        let (lr, wd) = (hp.lr, hp.weight_decay);
        if hp.momentum == 0.0 {
            for (p, &g) in params.iter_mut().zip(grads) {
                let g = g + wd * *p;
                *p -= lr * g;
            }
            return;
        }
        let (mu, keep) = (hp.momentum, 1.0 - hp.dampening);
        // Loop-invariant flags: LLVM unswitches the loop or selects per lane.
        let (first, nesterov) = (hp.first_step, hp.nesterov);
        for ((p, &g), b) in params.iter_mut().zip(grads).zip(momentum_buf.iter_mut()) {
            let g = g + wd * *p;
            let buf = if first { g } else { mu * *b + keep * g };
            *b = buf;
            let d = if nesterov { g + mu * buf } else { buf };
            *p -= lr * d;
        }
    }
}

/// Hyperparameters of one RMSprop step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmsPropParams {
    /// Learning rate.
    pub lr: f32,
    /// Smoothing constant of the squared-gradient average.
    pub alpha: f32,
    /// Added to the denominator.
    pub eps: f32,
    /// L2 penalty added to the gradient.
    pub weight_decay: f32,
    /// Momentum factor (0: none).
    pub momentum: f32,
    /// Normalise by an estimate of the variance rather than the raw second moment.
    pub centered: bool,
}

kernel! {
    /// PyTorch's RMSprop, element-wise: g += wd * p;
    /// s = alpha s + (1 - alpha) g²; centered: a = alpha a + (1 - alpha) g,
    /// d = sqrt(s - a²) + eps, else d = sqrt(s) + eps; with momentum
    /// b = mu b + g / d, p -= lr b, else p -= lr g / d.
    /// `grad_avg` is unused unless centered, `momentum_buf` unless
    /// momentum > 0; either may then be empty.
    ///
    /// One deviation: s - a² is clamped at 0 before the square root, so f32
    /// rounding (s and a² agree to the last bit once the gradient has been
    /// steady for long) gives sqrt(0) where PyTorch gives NaN.
    pub fn rmsprop_step(
        params: &mut [f32],
        grads: &[f32],
        square_avg: &mut [f32],
        grad_avg: &mut [f32],
        momentum_buf: &mut [f32],
        hp: &RmsPropParams,
    );
    check {
        same_len("rmsprop_step", &[params.len(), grads.len(), square_avg.len()]);
        if hp.centered {
            same_len("rmsprop_step grad_avg", &[params.len(), grad_avg.len()]);
        }
        if hp.momentum > 0.0 {
            same_len("rmsprop_step momentum_buf", &[params.len(), momentum_buf.len()]);
        }
    }
    {
        match (hp.centered, hp.momentum > 0.0) {
            (false, false) => rmsprop_pass::<false, false>(params, grads, square_avg, grad_avg, momentum_buf, hp),
            (false, true) => rmsprop_pass::<false, true>(params, grads, square_avg, grad_avg, momentum_buf, hp),
            (true, false) => rmsprop_pass::<true, false>(params, grads, square_avg, grad_avg, momentum_buf, hp),
            (true, true) => rmsprop_pass::<true, true>(params, grads, square_avg, grad_avg, momentum_buf, hp),
        }
    }
}

/// One RMSprop variant; the unused buffers are never touched, so they may
/// be empty. Inlined into each SIMD copy of `rmsprop_step`.
#[inline(always)]
fn rmsprop_pass<const CENTERED: bool, const MOMENTUM: bool>(
    params: &mut [f32],
    grads: &[f32],
    square_avg: &mut [f32],
    grad_avg: &mut [f32],
    momentum_buf: &mut [f32],
    hp: &RmsPropParams,
) {
    let n = params.len();
    // Re-slicing to `n` lets LLVM drop the bounds checks in the loop.
    let (grads, square_avg) = (&grads[..n], &mut square_avg[..n]);
    let grad_avg = if CENTERED { &mut grad_avg[..n] } else { &mut grad_avg[..0] };
    let momentum_buf = if MOMENTUM { &mut momentum_buf[..n] } else { &mut momentum_buf[..0] };
    let (lr, alpha, eps, wd, mu) = (hp.lr, hp.alpha, hp.eps, hp.weight_decay, hp.momentum);
    let rest = 1.0 - alpha;
    for i in 0..n {
        let g = grads[i] + wd * params[i];
        let s = alpha * square_avg[i] + rest * g * g;
        square_avg[i] = s;
        let denom = if CENTERED {
            let a = alpha * grad_avg[i] + rest * g;
            grad_avg[i] = a;
            let var = s - a * a;
            // `if`, not `max`: a NaN must stay NaN.
            (if var < 0.0 { 0.0 } else { var }).sqrt() + eps
        } else {
            s.sqrt() + eps
        };
        if MOMENTUM {
            let b = mu * momentum_buf[i] + g / denom;
            momentum_buf[i] = b;
            params[i] -= lr * b;
        } else {
            params[i] -= lr * (g / denom);
        }
    }
}

/// Hyperparameters of one AdaGrad step, with the learning-rate decay for
/// step `t` already folded in by [`AdaGradParams::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaGradParams {
    /// lr / (1 + (t - 1) * lr_decay)
    pub lr: f32,
    /// Added to the denominator.
    pub eps: f32,
    /// L2 penalty added to the gradient.
    pub weight_decay: f32,
}

impl AdaGradParams {
    /// Parameters for step `t` (counted from 1), as PyTorch computes them
    /// (the decayed rate in f64, as Python does).
    pub fn new(lr: f32, lr_decay: f32, eps: f32, weight_decay: f32, t: u64) -> Self {
        let decayed = lr as f64 / (1.0 + t.saturating_sub(1) as f64 * lr_decay as f64);
        Self { lr: decayed as f32, eps, weight_decay }
    }
}

kernel! {
    /// PyTorch's AdaGrad, element-wise: g += wd * p; s += g²;
    /// p -= lr * g / (sqrt(s) + eps).
    pub fn adagrad_step(params: &mut [f32], grads: &[f32], sum: &mut [f32], hp: &AdaGradParams);
    check { same_len("adagrad_step", &[params.len(), grads.len(), sum.len()]) }
    {
        let (lr, eps, wd) = (hp.lr, hp.eps, hp.weight_decay);
        for ((p, &g), s) in params.iter_mut().zip(grads).zip(sum.iter_mut()) {
            let g = g + wd * *p;
            *s += g * g;
            *p -= lr * (g / (s.sqrt() + eps));
        }
    }
}

kernel! {
    /// x = clamp(x, -limit, limit), element-wise; NaN stays NaN (as
    /// `torch.clamp`). Panics unless `limit` is >= 0 (infinity clips nothing).
    pub fn clip_by_value(x: &mut [f32], limit: f32);
    check {
        assert!(limit >= 0.0, "clip_by_value: limit must be >= 0, found {limit}");
    }
    {
        for v in x.iter_mut() {
            let low = if *v < -limit { -limit } else { *v };
            *v = if low > limit { limit } else { low };
        }
    }
}
