//! The multilinear gate-layer kernels against the naive 16-term twins, and
//! the gate layer as a custom op on the tape against finite differences.

use minnow_autodiff::{Params, Tape};
use minnow_logic::gates::{self, OPS};
use minnow_logic::layer::{BLOCK, Gate, fold_all, gate_backward, gate_forward};
use minnow_logic::{GateLayer, Wiring, reference};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

struct Case {
    lanes: usize,
    rows: usize,
    gates: Vec<Gate>,
    logits: Vec<f32>,
    x: Vec<f32>,
    dout: Vec<f32>,
}

fn case(seed: u64, lanes: usize, rows: usize, n_gates: usize, params: usize) -> Case {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let gates = (0..n_gates)
        .map(|_| Gate {
            a: rng.random_range(0..rows as u32),
            // Sometimes the same row twice.
            b: rng.random_range(0..rows as u32),
            param: rng.random_range(0..params as u32),
        })
        .collect();
    Case {
        lanes,
        rows,
        gates,
        logits: (0..params * OPS).map(|_| rng.random_range(-3.0..3.0)).collect(),
        x: (0..rows * lanes).map(|_| rng.random_range(0.0..1.0)).collect(),
        dout: (0..n_gates * lanes).map(|_| rng.random_range(-1.0..1.0)).collect(),
    }
}

fn check_against_naive(c: &Case) {
    let params = c.logits.len() / OPS;
    let mut probs = vec![0.0; c.logits.len()];
    let mut coeffs = vec![[0.0; 4]; params];
    fold_all(&c.logits, &mut probs, &mut coeffs);
    let naive_probs = reference::softmax_rows(&c.logits);
    let x64: Vec<f64> = c.x.iter().map(|&v| v as f64).collect();
    let dout64: Vec<f64> = c.dout.iter().map(|&v| v as f64).collect();

    let mut out = vec![0.0f32; c.gates.len() * c.lanes];
    gate_forward(&mut out, &c.x, c.lanes, &c.gates, &coeffs);
    let mut naive_out = vec![0.0f64; out.len()];
    reference::gate_forward(&mut naive_out, &x64, c.lanes, &c.gates, &naive_probs);
    for (i, (&a, &b)) in out.iter().zip(&naive_out).enumerate() {
        assert!((a as f64 - b).abs() < 1e-5, "forward [{i}]: {a} vs {b}");
    }

    let mut dx = vec![0.0f32; c.rows * c.lanes];
    let mut sums = vec![[0.0f32; 4]; params];
    gate_backward(&mut dx, &mut sums, &c.x, &c.dout, c.lanes, &c.gates, &coeffs);
    let mut dlogits = vec![0.0f32; c.logits.len()];
    for p in 0..params {
        gates::logit_grads(&probs[p * OPS..(p + 1) * OPS], sums[p], &mut dlogits[p * OPS..(p + 1) * OPS]);
    }
    let mut naive_dx = vec![0.0f64; dx.len()];
    let mut naive_dlogits = vec![0.0f64; dlogits.len()];
    reference::gate_backward(&mut naive_dx, &mut naive_dlogits, &x64, &dout64, c.lanes, &c.gates, &naive_probs);
    for (i, (&a, &b)) in dx.iter().zip(&naive_dx).enumerate() {
        assert!((a as f64 - b).abs() < 1e-4 * (1.0 + b.abs()), "dx [{i}]: {a} vs {b}");
    }
    for (i, (&a, &b)) in dlogits.iter().zip(&naive_dlogits).enumerate() {
        assert!((a as f64 - b).abs() < 1e-4 * (1.0 + b.abs()), "dlogits [{i}]: {a} vs {b}");
    }
}

#[test]
fn kernels_match_the_16_term_formula_around_the_block_width() {
    // Every compiled path (AVX-512, AVX2+FMA, baseline) this CPU can run.
    for level in minnow_kernels::supported_levels() {
        minnow_kernels::with_level(level, || {
            for (seed, lanes) in [(1, BLOCK), (2, 2 * BLOCK), (3, 3 * BLOCK), (4, 8 * BLOCK)] {
                check_against_naive(&case(seed, lanes, 13, 17, 5));
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn kernels_match_the_naive_twin(seed in 0u64..1000, blocks in 1usize..5, rows in 1usize..20, n_gates in 1usize..20, params in 1usize..6) {
        check_against_naive(&case(seed, blocks * BLOCK, rows, n_gates, params));
    }
}

#[test]
fn hard_coefficients_compute_the_boolean_op() {
    let lanes = BLOCK;
    // Rows 0 and 1 hold all four input pairs (repeated).
    let x: Vec<f32> = (0..2 * lanes).map(|i| if i < lanes { (i % 2) as f32 } else { ((i / 2) % 2) as f32 }).collect();
    let gates: Vec<Gate> = (0..OPS as u32).map(|op| Gate { a: 0, b: 1, param: op }).collect();
    let mut out = vec![0.0; OPS * lanes];
    gate_forward(&mut out, &x, lanes, &gates, &gates::COEFFS);
    for op in 0..OPS {
        for l in 0..lanes {
            let (a, b) = (x[l] == 1.0, x[lanes + l] == 1.0);
            assert_eq!(out[op * lanes + l], gates::op_bit(op as u8, a, b) as u8 as f32, "op {op}");
        }
    }
}

/// Two stacked gate layers on the tape, loss = mse against a target; the
/// gradient of every logit against central differences of the tape's own
/// inference pass.
#[test]
fn gate_layers_on_the_tape_match_finite_differences() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    let (inputs, hidden, outputs, lanes) = (6, 5, 3, 2 * BLOCK);
    let w1 = Wiring::random(minnow_logic::LayerName::new("l", 0), inputs, hidden, &mut rng).unwrap();
    let w2 = Wiring::unique(minnow_logic::LayerName::new("l", 1), hidden, outputs, &mut rng).unwrap();
    let (l1, l2) = (GateLayer::new(inputs, &w1).unwrap(), GateLayer::new(hidden, &w2).unwrap());
    let mut params = Params::new();
    let mut init = |v: &mut [f32]| v.iter_mut().for_each(|v| *v = rng.random_range(-2.0..2.0));
    let p1 = params.add("l1", &[hidden, OPS], &mut init).unwrap();
    let p2 = params.add("l2", &[outputs, OPS], &mut init).unwrap();
    let x: Vec<f32> = (0..inputs * lanes).map(|i| ((i * 7919) % 13) as f32 / 12.0).collect();
    let target: Vec<f32> = (0..outputs * lanes).map(|i| (i % 2) as f32).collect();
    let mut tape = Tape::new();
    let (op1, op2) = (tape.register(Box::new(l1)), tape.register(Box::new(l2)));

    params.zero_grads();
    {
        let mut g = tape.graph(&mut params);
        let xv = g.input(&[inputs, lanes], &x).unwrap();
        let (a, b) = (g.param(p1), g.param(p2));
        let h = g.custom(op1, &[xv, a]).unwrap();
        let y = g.custom(op2, &[h, b]).unwrap();
        let loss = g.mse(y, &target, None).unwrap();
        g.backward(loss).unwrap();
    }
    let analytic = params.grads().to_vec();
    let mut eval = |params: &Params| -> f64 {
        let mut g = tape.inference(params);
        let xv = g.input(&[inputs, lanes], &x).unwrap();
        let (a, b) = (g.param(p1), g.param(p2));
        let h = g.custom(op1, &[xv, a]).unwrap();
        let y = g.custom(op2, &[h, b]).unwrap();
        let loss = g.mse(y, &target, None).unwrap();
        g.scalar(loss) as f64
    };
    let h = 1e-2;
    let mut checked = 0;
    for id in [p1, p2] {
        for i in params.range(id) {
            let original = params.values()[i];
            params.values_mut()[i] = original + h;
            let plus = eval(&params);
            params.values_mut()[i] = original - h;
            let minus = eval(&params);
            params.values_mut()[i] = original;
            let numeric = (plus - minus) / (2.0 * h as f64);
            let err = (analytic[i] as f64 - numeric).abs();
            assert!(
                err < 2e-4 + 2e-2 * numeric.abs(),
                "{}: analytic {} numeric {numeric}",
                params.name(id),
                analytic[i]
            );
            checked += 1;
        }
    }
    assert_eq!(checked, (hidden + outputs) * OPS);
    assert!(analytic.iter().any(|g| g.abs() > 1e-3));
}

#[test]
fn gate_layer_rejects_wiring_out_of_range_and_bad_shapes() {
    let wiring = Wiring { a: vec![0, 5], b: vec![1, 2] };
    assert!(GateLayer::new(5, &wiring).is_err());
    let layer = GateLayer::new(6, &wiring).unwrap();
    let mut params = Params::new();
    let p = params.add("l", &[2, OPS], |_| {}).unwrap();
    let mut tape = Tape::new();
    let op = tape.register(Box::new(layer));
    let mut g = tape.graph(&mut params);
    let x = g.input(&[6, 10], &[0.0; 60]).unwrap(); // 10 lanes: not a multiple of 16
    let w = g.param(p);
    assert!(g.custom(op, &[x, w]).is_err());
}
