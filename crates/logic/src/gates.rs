//! The 16 two-input gates, their real-valued relaxations, and the
//! multilinear form that makes a soft gate cheap.
//!
//! Every relaxation is `op_i(a, b) = c0 + c1 a + c2 b + c3 ab`, so a gate
//! with probabilities p = softmax(logits) computes
//! `y = Σ_i p_i op_i(a, b) = C0 + C1 a + C2 b + C3 ab` with `C = pᵀ M`
//! (M is [`COEFFS`]): the 16 probabilities fold into 4 coefficients once
//! per step. Backward, with S = (Σg, Σga, Σgb, Σgab) accumulated over every
//! place the gate's logits are used:
//! dL/dC = S, dL/dp_i = (M S)_i, dL/dlogit_i = p_i ((M S)_i - Σ_k p_k (M S)_k).
//!
//! The op index is the truth table: `op_i(a, b)` on bits is bit
//! `3 - (2a + b)` of i (so 1 = AND, 6 = XOR, 8 = NOR, 14 = NAND).

/// Number of gate ops (and of logits per gate).
pub const OPS: usize = 16;

/// The pass-through op `A`, whose logit starts high.
pub const PASS_A: u8 = 3;
/// The pass-through op `B`.
pub const PASS_B: u8 = 5;

/// Names of the ops, by index.
pub const OP_NAMES: [&str; OPS] = [
    "FALSE",
    "AND",
    "A_AND_NOT_B",
    "A",
    "NOT_A_AND_B",
    "B",
    "XOR",
    "OR",
    "NOR",
    "XNOR",
    "NOT_B",
    "A_OR_NOT_B",
    "NOT_A",
    "NOT_A_OR_B",
    "NAND",
    "TRUE",
];

/// `(c0, c1, c2, c3)` of each op's relaxation `c0 + c1 a + c2 b + c3 ab`.
pub const COEFFS: [[f32; 4]; OPS] = [
    [0.0, 0.0, 0.0, 0.0],   // FALSE
    [0.0, 0.0, 0.0, 1.0],   // ab
    [0.0, 1.0, 0.0, -1.0],  // a - ab
    [0.0, 1.0, 0.0, 0.0],   // a
    [0.0, 0.0, 1.0, -1.0],  // b - ab
    [0.0, 0.0, 1.0, 0.0],   // b
    [0.0, 1.0, 1.0, -2.0],  // a + b - 2ab
    [0.0, 1.0, 1.0, -1.0],  // a + b - ab
    [1.0, -1.0, -1.0, 1.0], // 1 - (a + b - ab)
    [1.0, -1.0, -1.0, 2.0], // 1 - (a + b - 2ab)
    [1.0, 0.0, -1.0, 0.0],  // 1 - b
    [1.0, 0.0, -1.0, 1.0],  // 1 - b + ab
    [1.0, -1.0, 0.0, 0.0],  // 1 - a
    [1.0, -1.0, 0.0, 1.0],  // 1 - a + ab
    [1.0, 0.0, 0.0, -1.0],  // 1 - ab
    [1.0, 0.0, 0.0, 0.0],   // TRUE
];

/// The relaxation of op `op` exactly as the reference table writes it (the
/// naive 16-term form the multilinear one is tested against).
pub fn relaxation(op: usize, a: f64, b: f64) -> f64 {
    match op {
        0 => 0.0,
        1 => a * b,
        2 => a - a * b,
        3 => a,
        4 => b - a * b,
        5 => b,
        6 => a + b - 2.0 * a * b,
        7 => a + b - a * b,
        8 => 1.0 - (a + b - a * b),
        9 => 1.0 - (a + b - 2.0 * a * b),
        10 => 1.0 - b,
        11 => 1.0 - b + a * b,
        12 => 1.0 - a,
        13 => 1.0 - a + a * b,
        14 => 1.0 - a * b,
        15 => 1.0,
        _ => panic!("relaxation: op {op} is not in 0..16"),
    }
}

/// d op / d a and d op / d b of the relaxation, from the table (naive).
pub fn relaxation_grad(op: usize, a: f64, b: f64) -> (f64, f64) {
    let [_, c1, c2, c3] = COEFFS[op].map(f64::from);
    (c1 + c3 * b, c2 + c3 * a)
}

/// The op on one pair of bits.
#[inline]
pub fn op_bit(op: u8, a: bool, b: bool) -> bool {
    (op >> (3 - (2 * a as u8 + b as u8))) & 1 == 1
}

/// Which inputs an op depends on, `(a, b)`: false for an input no
/// change of which changes the output (a pass-through, a constant).
pub fn reads(op: u8) -> (bool, bool) {
    let a = (0..4).any(|i| op_bit(op, i & 1 == 1, i & 2 == 2) != op_bit(op, i & 1 == 0, i & 2 == 2));
    let b = (0..4).any(|i| op_bit(op, i & 1 == 1, i & 2 == 2) != op_bit(op, i & 1 == 1, i & 2 == 0));
    (a, b)
}

/// The op on 64 pairs of bits at once.
#[inline(always)]
pub fn op_word(op: u8, a: u64, b: u64) -> u64 {
    match op & 15 {
        0 => 0,
        1 => a & b,
        2 => a & !b,
        3 => a,
        4 => !a & b,
        5 => b,
        6 => a ^ b,
        7 => a | b,
        8 => !(a | b),
        9 => !(a ^ b),
        10 => !b,
        11 => a | !b,
        12 => !a,
        13 => !a | b,
        14 => !(a & b),
        _ => !0,
    }
}

/// The op that reads its inputs swapped: `swap(op)(a, b) = op(b, a)`.
pub fn swap_inputs(op: u8) -> u8 {
    let bit = |a: bool, b: bool| op_bit(op, b, a) as u8;
    table(bit)
}

/// The op with input A negated: `op(!a, b)`.
pub fn negate_a(op: u8) -> u8 {
    table(|a, b| op_bit(op, !a, b) as u8)
}

/// The op with input B negated: `op(a, !b)`.
pub fn negate_b(op: u8) -> u8 {
    table(|a, b| op_bit(op, a, !b) as u8)
}

/// The op with its output negated.
pub fn negate_output(op: u8) -> u8 {
    15 - op
}

/// The op index of a truth table given as a function of two bits.
fn table(f: impl Fn(bool, bool) -> u8) -> u8 {
    (f(false, false) << 3) | (f(false, true) << 2) | (f(true, false) << 1) | f(true, true)
}

/// Softmax of one gate's 16 logits into `probs`, then the 4 folded
/// coefficients `pᵀ M`.
#[inline]
pub fn fold(logits: &[f32], probs: &mut [f32]) -> [f32; 4] {
    assert!(
        logits.len() == OPS && probs.len() == OPS,
        "gates::fold: expected 16 logits and 16 probabilities, found {} and {}",
        logits.len(),
        probs.len()
    );
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for (p, &l) in probs.iter_mut().zip(logits) {
        *p = (l - max).exp();
        total += *p;
    }
    let inv = 1.0 / total;
    let mut c = [0.0f32; 4];
    for (p, m) in probs.iter_mut().zip(&COEFFS) {
        *p *= inv;
        for j in 0..4 {
            c[j] += *p * m[j];
        }
    }
    c
}

/// Writes dL/dlogits of one gate from its probabilities and the four
/// accumulated sums S = (Σg, Σga, Σgb, Σgab).
#[inline]
pub fn logit_grads(probs: &[f32], sums: [f32; 4], dlogits: &mut [f32]) {
    assert!(
        probs.len() == OPS && dlogits.len() == OPS,
        "gates::logit_grads: expected 16 probabilities and 16 gradients, found {} and {}",
        probs.len(),
        dlogits.len()
    );
    let mut dp = [0.0f32; OPS];
    let mut mean = 0.0;
    for i in 0..OPS {
        let m = COEFFS[i];
        dp[i] = m[0] * sums[0] + m[1] * sums[1] + m[2] * sums[2] + m[3] * sums[3];
        mean += probs[i] * dp[i];
    }
    for i in 0..OPS {
        dlogits[i] = probs[i] * (dp[i] - mean);
    }
}

/// The hard op of a gate: the largest logit, ties to the lowest index
/// (NaN logits lose to every number).
pub fn argmax(logits: &[f32]) -> u8 {
    let mut best = 0;
    for (i, &l) in logits.iter().enumerate().skip(1) {
        if l > logits[best] || logits[best].is_nan() && !l.is_nan() {
            best = i;
        }
    }
    best as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_op_reads_exactly_the_inputs_named_in_it() {
        let reads_of = |name: &str| reads(OP_NAMES.iter().position(|n| *n == name).unwrap() as u8);
        assert_eq!(reads_of("FALSE"), (false, false));
        assert_eq!(reads_of("TRUE"), (false, false));
        assert_eq!(reads_of("A"), (true, false));
        assert_eq!(reads_of("NOT_B"), (false, true));
        for op in 0..OPS as u8 {
            let (a, b) = reads(op);
            // Swapping the inputs swaps what is read.
            assert_eq!(reads(swap_inputs(op)), (b, a), "{}", OP_NAMES[op as usize]);
        }
        let both = (0..OPS as u8).filter(|&op| reads(op) == (true, true)).count();
        assert_eq!(both, 10, "16 ops less 2 constants and 4 that read one input");
    }

    #[test]
    fn coefficients_match_the_relaxation_table() {
        let points = [0.0, 1.0, 0.25, 0.7, -0.3, 1.6];
        for op in 0..OPS {
            for &a in &points {
                for &b in &points {
                    let [c0, c1, c2, c3] = COEFFS[op].map(f64::from);
                    let multilinear = c0 + c1 * a + c2 * b + c3 * a * b;
                    assert!(
                        (multilinear - relaxation(op, a, b)).abs() < 1e-12,
                        "op {op} ({}) at ({a}, {b})",
                        OP_NAMES[op]
                    );
                }
            }
        }
    }

    #[test]
    fn relaxations_are_the_boolean_ops_on_bits() {
        for op in 0..OPS as u8 {
            for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
                let soft = relaxation(op as usize, a as u8 as f64, b as u8 as f64);
                assert_eq!(soft, op_bit(op, a, b) as u8 as f64, "op {op}");
                let word = op_word(op, if a { !0 } else { 0 }, if b { !0 } else { 0 });
                assert_eq!(word, if op_bit(op, a, b) { !0 } else { 0 }, "op {op}");
            }
        }
        assert_eq!(op_word(6, 0b1100, 0b1010) & 0xf, 0b0110);
    }

    #[test]
    fn folded_gate_equals_the_16_term_sum() {
        let logits: Vec<f32> = (0..16).map(|i| ((i * 7) % 5) as f32 * 0.6 - 1.0).collect();
        let mut probs = [0.0; 16];
        let c = fold(&logits, &mut probs);
        assert!((probs.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        for (a, b) in [(0.2, 0.9), (1.0, 0.0), (0.5, 0.5)] {
            let naive: f64 = (0..16).map(|i| probs[i] as f64 * relaxation(i, a as f64, b as f64)).sum();
            let folded = c[0] + c[1] * a + c[2] * b + c[3] * a * b;
            assert!((naive - folded as f64).abs() < 1e-6);
        }
    }

    #[test]
    fn logit_gradient_matches_the_softmax_jacobian() {
        let logits: Vec<f32> = (0..16).map(|i| (i as f32 * 0.37).sin() * 2.0).collect();
        let mut probs = [0.0; 16];
        fold(&logits, &mut probs);
        // L = Σ_uses g * y(a, b) for a few uses.
        let uses = [(0.3f64, 0.8f64, 1.5f64), (0.9, 0.1, -0.7), (0.5, 0.5, 0.2)];
        let mut sums = [0.0f32; 4];
        for &(a, b, g) in &uses {
            sums[0] += g as f32;
            sums[1] += (g * a) as f32;
            sums[2] += (g * b) as f32;
            sums[3] += (g * a * b) as f32;
        }
        let mut d = [0.0; 16];
        logit_grads(&probs, sums, &mut d);
        for k in 0..16 {
            // d p_i / d l_k = p_i (δ_ik - p_k)
            let expected: f64 = uses
                .iter()
                .map(|&(a, b, g)| {
                    (0..16)
                        .map(|i| {
                            let dpi = probs[i] as f64 * ((i == k) as u8 as f64 - probs[k] as f64);
                            g * dpi * relaxation(i, a, b)
                        })
                        .sum::<f64>()
                })
                .sum();
            assert!((d[k] as f64 - expected).abs() < 1e-5, "logit {k}: {} vs {expected}", d[k]);
        }
    }

    #[test]
    fn truth_table_transforms() {
        for op in 0..16u8 {
            for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
                assert_eq!(op_bit(swap_inputs(op), a, b), op_bit(op, b, a));
                assert_eq!(op_bit(negate_a(op), a, b), op_bit(op, !a, b));
                assert_eq!(op_bit(negate_b(op), a, b), op_bit(op, a, !b));
                assert_eq!(op_bit(negate_output(op), a, b), !op_bit(op, a, b));
            }
        }
    }

    #[test]
    fn argmax_breaks_ties_low() {
        let mut l = [0.0f32; 16];
        assert_eq!(argmax(&l), 0);
        l[3] = 10.0;
        l[9] = 10.0;
        assert_eq!(argmax(&l), 3);
        l[0] = f32::NAN;
        assert_eq!(argmax(&l), 3);
    }
}
