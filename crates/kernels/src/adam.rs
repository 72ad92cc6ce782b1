//! The fused Adam / AdamW update: one pass over flat parameter memory.

use crate::same_len;

/// Hyperparameters of one Adam step, with the bias corrections for step `t`
/// already folded in by [`AdamParams::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamParams {
    /// Learning rate.
    pub lr: f32,
    /// Decay of the first moment.
    pub beta1: f32,
    /// Decay of the second moment.
    pub beta2: f32,
    /// Added to the denominator.
    pub eps: f32,
    /// Weight decay (L2 or decoupled, see `decoupled`).
    pub weight_decay: f32,
    /// AdamW (decay the weights directly) rather than Adam (add decay to the gradient).
    pub decoupled: bool,
    /// 1 - beta1^t
    pub bias_correction1: f32,
    /// 1 - beta2^t
    pub bias_correction2: f32,
}

impl AdamParams {
    /// Parameters for step `t` (counted from 1), as PyTorch computes them.
    pub fn new(lr: f32, beta1: f32, beta2: f32, eps: f32, weight_decay: f32, decoupled: bool, t: u64) -> Self {
        let t = t.min(i32::MAX as u64) as i32;
        Self {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            decoupled,
            bias_correction1: 1.0 - beta1.powi(t),
            bias_correction2: 1.0 - beta2.powi(t),
        }
    }
}

kernel! {
    /// PyTorch's Adam/AdamW, element-wise:
    /// g += wd * p (Adam) or p *= 1 - lr * wd (AdamW);
    /// m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g²;
    /// p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps).
    pub fn adam_step(params: &mut [f32], grads: &[f32], m: &mut [f32], v: &mut [f32], hp: &AdamParams);
    check { same_len("adam_step", &[params.len(), grads.len(), m.len(), v.len()]) }
    {
        let step = hp.lr / hp.bias_correction1;
        let inv_sqrt_bc2 = 1.0 / hp.bias_correction2.sqrt();
        let (coupled_wd, decay) = if hp.decoupled {
            (0.0, 1.0 - hp.lr * hp.weight_decay)
        } else {
            (hp.weight_decay, 1.0)
        };
        let (b1, b2) = (hp.beta1, hp.beta2);
        for (((p, &g), mi), vi) in params.iter_mut().zip(grads).zip(m.iter_mut()).zip(v.iter_mut()) {
            let g = g + coupled_wd * *p;
            *mi = b1 * *mi + (1.0 - b1) * g;
            *vi = b2 * *vi + (1.0 - b2) * g * g;
            let denom = vi.sqrt() * inv_sqrt_bc2 + hp.eps;
            *p = *p * decay - step * *mi / denom;
        }
    }
}
