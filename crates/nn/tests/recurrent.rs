//! RNN, LSTM and GRU layers against PyTorch's equations computed by hand
//! (plain f64 loops over small fixed weights), their parameter layout,
//! shapes, gradients through time, and errors.

use minnow_autodiff::Result;
use minnow_autodiff::gradcheck::check_gradients;
use minnow_nn::{Forward, Graph, GruConfig, LstmConfig, Module, Params, RecurrentWeights, RnnConfig, Tape, Var};
use rand::SeedableRng;

const BATCH: usize = 2;
const STEPS: usize = 3;
const INPUTS: usize = 3;
const HIDDEN: usize = 2;

fn rng() -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(5)
}

/// Small fixed values in about [-0.6, 0.6], different for each `salt`.
fn fixed(n: usize, salt: usize) -> Vec<f64> {
    (0..n).map(|i| (((i * 7 + salt * 13) % 17) as f64 - 8.0) * 0.075).collect()
}

/// The input x [B, T, I] of every test.
fn input() -> Vec<f64> {
    fixed(BATCH * STEPS * INPUTS, 5).iter().map(|v| 2.0 * v).collect()
}

/// Weights as f64 in PyTorch's layout, written into the layer's parameters.
struct Weights {
    w_ih: Vec<f64>,
    w_hh: Vec<f64>,
    b_ih: Vec<f64>,
    b_hh: Vec<f64>,
}

impl Weights {
    fn set(w: &RecurrentWeights, params: &mut Params) -> Self {
        let gates = params.shape(w.w_ih).dims()[0];
        let this = Self {
            w_ih: fixed(gates * INPUTS, 1),
            w_hh: fixed(gates * HIDDEN, 2),
            b_ih: fixed(gates, 3),
            b_hh: fixed(gates, 4),
        };
        for (id, v) in [(w.w_ih, &this.w_ih), (w.w_hh, &this.w_hh), (w.b_ih, &this.b_ih), (w.b_hh, &this.b_hh)] {
            params.value_mut(id).iter_mut().zip(v.iter()).for_each(|(p, &v)| *p = v as f32);
        }
        this
    }

    /// Row `r` of W_ih x + b_ih and of W_hh h + b_hh.
    fn gates(&self, r: usize, x: &[f64], h: &[f64]) -> (f64, f64) {
        let gi = self.b_ih[r] + (0..INPUTS).map(|k| self.w_ih[r * INPUTS + k] * x[k]).sum::<f64>();
        let gh = self.b_hh[r] + (0..HIDDEN).map(|k| self.w_hh[r * HIDDEN + k] * h[k]).sum::<f64>();
        (gi, gh)
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// torch.nn.RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh).
fn rnn_step(w: &Weights, x: &[f64], h: &[f64], _: &mut [f64]) -> Vec<f64> {
    (0..HIDDEN)
        .map(|j| {
            let (gi, gh) = w.gates(j, x, h);
            (gi + gh).tanh()
        })
        .collect()
}

/// torch.nn.LSTM, gates i, f, g, o in blocks of H rows.
fn lstm_step(w: &Weights, x: &[f64], h: &[f64], c: &mut [f64]) -> Vec<f64> {
    let pre = |gate: usize, j: usize| {
        let (gi, gh) = w.gates(gate * HIDDEN + j, x, h);
        gi + gh
    };
    let mut h_next = vec![0.0; HIDDEN];
    for j in 0..HIDDEN {
        let (i, f) = (sigmoid(pre(0, j)), sigmoid(pre(1, j)));
        let (g, o) = (pre(2, j).tanh(), sigmoid(pre(3, j)));
        c[j] = f * c[j] + i * g;
        h_next[j] = o * c[j].tanh();
    }
    h_next
}

/// torch.nn.GRU, gates r, z, n: n = tanh(W_in x + b_in + r (W_hn h + b_hn)),
/// h' = (1 - z) n + z h.
fn gru_step(w: &Weights, x: &[f64], h: &[f64], _: &mut [f64]) -> Vec<f64> {
    (0..HIDDEN)
        .map(|j| {
            let (ri, rh) = w.gates(j, x, h);
            let (zi, zh) = w.gates(HIDDEN + j, x, h);
            let (ni, nh) = w.gates(2 * HIDDEN + j, x, h);
            let (r, z) = (sigmoid(ri + rh), sigmoid(zi + zh));
            let n = (ni + r * nh).tanh();
            (1.0 - z) * n + z * h[j]
        })
        .collect()
}

type Step = fn(&Weights, &[f64], &[f64], &mut [f64]) -> Vec<f64>;

/// Every hidden state [B, T, H] by hand, from zero state.
fn by_hand(w: &Weights, step: Step) -> Vec<f64> {
    let x = input();
    let mut out = Vec::new();
    for b in 0..BATCH {
        let (mut h, mut c) = (vec![0.0; HIDDEN], vec![0.0; HIDDEN]);
        for t in 0..STEPS {
            let at = (b * STEPS + t) * INPUTS;
            h = step(w, &x[at..at + INPUTS], &h, &mut c);
            out.extend_from_slice(&h);
        }
    }
    out
}

/// The layer's last and all hidden states on `input()`.
fn by_layer(params: &Params, forward: impl Fn(&mut Graph<'_>, Var, bool) -> Var) -> (Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = input().iter().map(|&v| v as f32).collect();
    let mut tape = Tape::new();
    let mut g = tape.inference(params);
    let xv = g.input(&[BATCH, STEPS, INPUTS], &x).unwrap();
    let last = forward(&mut g, xv, false);
    assert_eq!(g.shape(last).dims(), &[BATCH, HIDDEN]);
    let last = g.value(last).to_vec();
    let all = forward(&mut g, xv, true);
    assert_eq!(g.shape(all).dims(), &[BATCH, STEPS, HIDDEN]);
    (last, g.value(all).to_vec())
}

fn assert_close(name: &str, found: &[f32], expected: &[f64]) {
    assert_eq!(found.len(), expected.len(), "{name}");
    for (i, (&f, &e)) in found.iter().zip(expected).enumerate() {
        assert!((f as f64 - e).abs() < 1e-5, "{name}[{i}]: layer {f}, by hand {e}");
    }
}

fn check_against_hand(
    name: &str,
    params: &Params,
    w: &Weights,
    step: Step,
    forward: impl Fn(&mut Graph<'_>, Var, bool) -> Var,
) {
    let expected = by_hand(w, step);
    let (last, all) = by_layer(params, forward);
    assert_close(name, &all, &expected);
    let last_expected: Vec<f64> = (0..BATCH)
        .flat_map(|b| expected[(b * STEPS + STEPS - 1) * HIDDEN..(b * STEPS + STEPS) * HIDDEN].to_vec())
        .collect();
    assert_close(name, &last, &last_expected);
}

#[test]
fn lstm_steps_match_pytorchs_equations() {
    let mut params = Params::new();
    let lstm = LstmConfig::new(INPUTS, HIDDEN).init(&mut params, "lstm", &mut rng()).unwrap();
    let w = Weights::set(&lstm.weights, &mut params);
    check_against_hand("lstm", &params, &w, lstm_step, |g, x, all| {
        if all { lstm.forward_sequence(g, x) } else { lstm.forward(g, x) }.unwrap()
    });
}

#[test]
fn gru_steps_match_pytorchs_equations() {
    let mut params = Params::new();
    let gru = GruConfig::new(INPUTS, HIDDEN).init(&mut params, "gru", &mut rng()).unwrap();
    let w = Weights::set(&gru.weights, &mut params);
    check_against_hand("gru", &params, &w, gru_step, |g, x, all| {
        if all { gru.forward_sequence(g, x) } else { gru.forward(g, x) }.unwrap()
    });
}

#[test]
fn rnn_steps_match_pytorchs_equations() {
    let mut params = Params::new();
    let rnn = RnnConfig::new(INPUTS, HIDDEN).init(&mut params, "rnn", &mut rng()).unwrap();
    let w = Weights::set(&rnn.weights, &mut params);
    check_against_hand("rnn", &params, &w, rnn_step, |g, x, all| {
        if all { rnn.forward_sequence(g, x) } else { rnn.forward(g, x) }.unwrap()
    });
}

#[test]
fn parameters_have_pytorchs_names_shapes_and_init() {
    let (inputs, hidden) = (5, 16);
    for (gates, prefix) in [(1, "rnn"), (4, "lstm"), (3, "gru")] {
        let mut params = Params::new();
        let ids = match gates {
            1 => RnnConfig::new(inputs, hidden).init(&mut params, prefix, &mut rng()).unwrap().param_ids(),
            4 => LstmConfig::new(inputs, hidden).init(&mut params, prefix, &mut rng()).unwrap().param_ids(),
            _ => GruConfig::new(inputs, hidden).init(&mut params, prefix, &mut rng()).unwrap().param_ids(),
        };
        let layout: Vec<(String, Vec<usize>)> =
            ids.iter().map(|&id| (params.name(id).to_string(), params.shape(id).dims().to_vec())).collect();
        let g = gates * hidden;
        let expected = [
            (format!("{prefix}.weight_ih_l0"), vec![g, inputs]),
            (format!("{prefix}.weight_hh_l0"), vec![g, hidden]),
            (format!("{prefix}.bias_ih_l0"), vec![g]),
            (format!("{prefix}.bias_hh_l0"), vec![g]),
        ];
        assert_eq!(layout, expected);
        // U(-1/√H, 1/√H) = U(-0.25, 0.25), spread over most of the range.
        let values = params.values();
        assert!(values.iter().all(|v| v.abs() <= 0.25));
        assert!(values.iter().any(|&v| v > 0.2) && values.iter().any(|&v| v < -0.2));
    }
}

type ForwardSequence = dyn Fn(&mut Graph<'_>, Var) -> Result<Var>;

/// The unrolled layers' parameter gradients (backward through time)
/// against finite differences, with batch 3 over 5 steps.
#[test]
fn gradients_through_time_match_finite_differences() {
    let (batch, steps, inputs, hidden) = (3, 5, 4, 3);
    let x: Vec<f32> = fixed(batch * steps * inputs, 9).iter().map(|&v| 2.0 * v as f32).collect();
    let r: Vec<f32> = fixed(batch * steps * hidden, 11).iter().map(|&v| v as f32).collect();
    for name in ["rnn", "lstm", "gru"] {
        let mut params = Params::new();
        let forward_sequence: Box<ForwardSequence> = match name {
            "rnn" => {
                let l = RnnConfig::new(inputs, hidden).init(&mut params, name, &mut rng()).unwrap();
                Box::new(move |g, x| l.forward_sequence(g, x))
            }
            "lstm" => {
                let l = LstmConfig::new(inputs, hidden).init(&mut params, name, &mut rng()).unwrap();
                Box::new(move |g, x| l.forward_sequence(g, x))
            }
            _ => {
                let l = GruConfig::new(inputs, hidden).init(&mut params, name, &mut rng()).unwrap();
                Box::new(move |g, x| l.forward_sequence(g, x))
            }
        };
        // Larger weights than the init, so every gate matters.
        params.values_mut().iter_mut().for_each(|v| *v *= 3.0);
        let report = check_gradients(&mut params, 1e-2, 64, 1e-4, 2e-3, |g| {
            let xv = g.input(&[batch, steps, inputs], &x)?;
            let hs = forward_sequence(g, xv)?;
            let rv = g.input(&[batch, steps, hidden], &r)?;
            let weighted = g.mul(hs, rv)?;
            g.sum(weighted)
        })
        .unwrap();
        assert!(report.passed(), "{name}: {report:?}");
    }
}

#[test]
fn bad_configs_and_inputs_are_errors() {
    let mut params = Params::new();
    let err = LstmConfig::new(4, 0).init(&mut params, "lstm", &mut rng()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid configuration: lstm: Lstm needs inputs and hidden size > 0, found inputs 4 and hidden 0"
    );
    assert!(GruConfig::new(0, 3).init(&mut params, "gru", &mut rng()).is_err());
    assert!(params.is_empty(), "a failed init adds nothing");

    let lstm = LstmConfig::new(4, 3).init(&mut params, "lstm", &mut rng()).unwrap();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let wide = g.input(&[2, 3, 5], &[0.0; 30]).unwrap();
    assert_eq!(
        lstm.forward(&mut g, wide).unwrap_err().to_string(),
        "Lstm: shapes [2, 3, 4] and [2, 3, 5] do not match"
    );
    let flat = g.input(&[2, 12], &[0.0; 24]).unwrap();
    assert_eq!(
        lstm.forward_sequence(&mut g, flat).unwrap_err().to_string(),
        "Lstm: expected a rank-3 tensor, found shape [2, 12]"
    );
    let empty = g.input(&[2, 0, 4], &[]).unwrap();
    assert_eq!(
        lstm.forward(&mut g, empty).unwrap_err().to_string(),
        "data: Lstm: input [2, 0, 4] has no rows or no time steps"
    );
}

#[test]
fn one_step_and_long_sequences() {
    let mut params = Params::new();
    let gru = GruConfig::new(2, 3).init(&mut params, "gru", &mut rng()).unwrap();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    for steps in [1, 70] {
        let x: Vec<f32> = (0..4 * steps).map(|i| (i % 5) as f32 * 0.1).collect();
        let xv = g.input(&[2, steps, 2], &x).unwrap();
        let all = gru.forward_sequence(&mut g, xv).unwrap();
        let last = gru.forward(&mut g, xv).unwrap();
        assert_eq!(g.shape(all).dims(), &[2, steps, 3]);
        let step = g.time_step(all, steps - 1).unwrap();
        assert_eq!(g.value(step), g.value(last));
    }
}
