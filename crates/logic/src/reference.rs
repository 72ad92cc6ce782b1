//! Scalar twins of the gate-layer kernels written the naive way: each soft
//! gate as the 16-term sum `Σ_i p_i op_i(a, b)` of the reference table, in
//! f64, and its gradients by the chain rule through the softmax. Tests hold
//! the multilinear kernels to these.

use crate::gates::{self, OPS, relaxation, relaxation_grad};
use crate::layer::Gate;

/// Softmax of each gate's logits, in f64.
pub fn softmax_rows(logits: &[f32]) -> Vec<[f64; OPS]> {
    logits
        .chunks_exact(OPS)
        .map(|l| {
            let max = l.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
            let e: Vec<f64> = l.iter().map(|&v| (v as f64 - max).exp()).collect();
            let total: f64 = e.iter().sum();
            std::array::from_fn(|i| e[i] / total)
        })
        .collect()
}

/// `out[i][l] = Σ_k p_k op_k(x[a][l], x[b][l])`.
pub fn gate_forward(out: &mut [f64], x: &[f64], lanes: usize, gates: &[Gate], probs: &[[f64; OPS]]) {
    for (i, gate) in gates.iter().enumerate() {
        let p = &probs[gate.param as usize];
        for l in 0..lanes {
            let a = x[gate.a as usize * lanes + l];
            let b = x[gate.b as usize * lanes + l];
            out[i * lanes + l] = (0..OPS).map(|k| p[k] * relaxation(k, a, b)).sum();
        }
    }
}

/// Adds dL/dx into `dx` and dL/dlogits into `dlogits` (`[params, 16]`).
pub fn gate_backward(
    dx: &mut [f64],
    dlogits: &mut [f64],
    x: &[f64],
    dout: &[f64],
    lanes: usize,
    gates: &[Gate],
    probs: &[[f64; OPS]],
) {
    for (i, gate) in gates.iter().enumerate() {
        let p = &probs[gate.param as usize];
        for l in 0..lanes {
            let g = dout[i * lanes + l];
            let a = x[gate.a as usize * lanes + l];
            let b = x[gate.b as usize * lanes + l];
            for k in 0..OPS {
                let (da, db) = relaxation_grad(k, a, b);
                dx[gate.a as usize * lanes + l] += g * p[k] * da;
                dx[gate.b as usize * lanes + l] += g * p[k] * db;
                // d p_k / d logit_j = p_k (δ_kj - p_j)
                for j in 0..OPS {
                    let dp = p[k] * ((k == j) as u8 as f64 - p[j]);
                    dlogits[gate.param as usize * OPS + j] += g * dp * relaxation(k, a, b);
                }
            }
        }
    }
}

/// The hard op of each gate.
pub fn argmax_ops(logits: &[f32]) -> Vec<u8> {
    logits.chunks_exact(OPS).map(gates::argmax).collect()
}
