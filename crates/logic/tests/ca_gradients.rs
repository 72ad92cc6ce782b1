//! The CA engine against a naive f64 implementation written straight from
//! the spec (per cell, per kernel and channel, 16-term gates): the loss
//! must agree, and the engine's gradients must match central differences
//! of the naive loss.

use minnow_logic::gates::{OPS, relaxation};
use minnow_logic::{Boundary, LogicCa, LogicCaConfig, Rollout, SoftRollout};
use rand::{Rng, SeedableRng};

fn small_config(boundary: Boundary) -> LogicCaConfig {
    LogicCaConfig {
        height: 5,
        width: 4,
        channels: 2,
        kernels: 2,
        perception: vec![8, 4, 2],
        update: vec![8, 4, 2],
        boundary,
        pass_logit: 10.0,
    }
}

/// A model with random logits (so every gradient is visible) and random
/// 0/1 start grids.
fn setup(config: &LogicCaConfig, grids: usize, seed: u64) -> (LogicCa, Vec<f32>, Vec<f32>) {
    let mut ca = LogicCa::new(config, seed).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed + 100);
    // Peaked logits (one op per gate well ahead), so signals survive the
    // depth and every wiring or ordering mistake shows in the loss.
    for id in ca.layers().to_vec() {
        for row in ca.params_mut().value_mut(id).chunks_exact_mut(OPS) {
            for v in row.iter_mut() {
                *v = rng.random_range(-1.0..1.0);
            }
            row[rng.random_range(0..OPS)] += 3.0;
        }
    }
    let cells = config.height * config.width;
    let s0 = (0..grids * config.channels * cells).map(|_| rng.random::<bool>() as u8 as f32).collect();
    let target = (0..cells).map(|_| rng.random::<bool>() as u8 as f32).collect();
    (ca, s0, target)
}

fn softmax(l: &[f64]) -> Vec<f64> {
    let m = l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = l.iter().map(|v| (v - m).exp()).collect();
    let t: f64 = e.iter().sum();
    e.iter().map(|v| v / t).collect()
}

fn gate(logits: &[f64], a: f64, b: f64) -> f64 {
    let p = softmax(logits);
    (0..OPS).map(|i| p[i] * relaxation(i, a, b)).sum()
}

/// The loss of the soft CA, naively, with the flat logit values `values`.
fn naive_loss(ca: &LogicCa, values: &[f64], s0: &[f32], target: &[f32], steps: usize) -> f64 {
    let cfg = ca.config();
    let (h, w, ch, kn) = (cfg.height, cfg.width, cfg.channels, cfg.kernels);
    let cells = h * w;
    let np = cfg.perception.len();
    let layer_logits = |l: usize, row: usize| -> &[f64] {
        let start = ca.params().range(ca.layers()[l]).start;
        &values[start + row * OPS..][..OPS]
    };
    let mut loss = 0.0;
    for grid in s0.chunks_exact(ch * cells) {
        let mut state: Vec<f64> = grid.iter().map(|&v| v as f64).collect();
        for _ in 0..steps {
            let mut next = vec![0.0; ch * cells];
            for r in 0..h as isize {
                for c in 0..w as isize {
                    let read = |k: usize, dr: isize, dc: isize| -> f64 {
                        let (mut rr, mut cc) = (r + dr, c + dc);
                        if cfg.boundary == Boundary::Periodic {
                            rr = rr.rem_euclid(h as isize);
                            cc = cc.rem_euclid(w as isize);
                        } else if rr < 0 || cc < 0 || rr >= h as isize || cc >= w as isize {
                            return 0.0;
                        }
                        state[k * cells + rr as usize * w + cc as usize]
                    };
                    // perception[k][c] = outputs of kernel k on channel c
                    let mut perception = vec![vec![Vec::new(); ch]; kn];
                    for k in 0..kn {
                        for chan in 0..ch {
                            let mut x: Vec<f64> = (0..9).map(|d| read(chan, d / 3 - 1, d % 3 - 1)).collect();
                            for l in 0..np {
                                let wiring = &ca.wirings()[l];
                                let width = cfg.perception[l];
                                x = (0..width)
                                    .map(|j| {
                                        let logits = layer_logits(l, k * width + j);
                                        gate(logits, x[wiring.a[j] as usize], x[wiring.b[j] as usize])
                                    })
                                    .collect();
                            }
                            perception[k][chan] = x;
                        }
                    }
                    let s_n = *cfg.perception.last().unwrap();
                    let mut x: Vec<f64> = (0..ch).map(|chan| read(chan, 0, 0)).collect();
                    for i in 0..ch * s_n * kn {
                        let (chan, s, k) = (i / (s_n * kn), (i / kn) % s_n, i % kn);
                        x.push(perception[k][chan][s]);
                    }
                    for (u, &width) in cfg.update.iter().enumerate() {
                        let wiring = &ca.wirings()[np + u];
                        x = (0..width)
                            .map(|j| gate(layer_logits(np + u, j), x[wiring.a[j] as usize], x[wiring.b[j] as usize]))
                            .collect();
                    }
                    for chan in 0..ch {
                        next[chan * cells + r as usize * w + c as usize] = x[chan];
                    }
                }
            }
            state = next;
        }
        for i in 0..cells {
            loss += (state[i] - target[i] as f64).powi(2);
        }
    }
    loss
}

fn check(config: &LogicCaConfig, grids: usize, steps: usize, lanes: usize, rollout: Rollout) {
    let (mut ca, s0, target) = setup(config, grids, 5);
    let mut engine = SoftRollout::new(&ca, lanes, rollout).unwrap();
    let loss = engine.loss_and_grads(&mut ca, &s0, &target, steps).unwrap();
    let mut values: Vec<f64> = ca.params().values().iter().map(|&v| v as f64).collect();
    let naive = naive_loss(&ca, &values, &s0, &target, steps);
    // Tight enough to see a wrong perception order, which moves the loss
    // of these peaked circuits by about 1e-3.
    assert!((loss as f64 - naive).abs() <= 1e-5 * naive.max(1.0), "loss: engine {loss}, naive {naive}");
    let grads = ca.params().grads().to_vec();
    let h = 1e-4;
    let mut worst = 0.0f64;
    let mut checked = 0;
    for id in ca.layers().to_vec() {
        for i in ca.params().range(id).step_by(5) {
            let original = values[i];
            values[i] = original + h;
            let plus = naive_loss(&ca, &values, &s0, &target, steps);
            values[i] = original - h;
            let minus = naive_loss(&ca, &values, &s0, &target, steps);
            values[i] = original;
            let numeric = (plus - minus) / (2.0 * h);
            let analytic = grads[i] as f64;
            let err = (analytic - numeric).abs() / (2e-5 + 2e-3 * numeric.abs().max(analytic.abs()));
            assert!(
                err < 1.0,
                "{}[{}]: analytic {analytic}, numeric {numeric}",
                ca.params().name(id),
                i - ca.params().range(id).start
            );
            worst = worst.max(err);
            checked += 1;
        }
    }
    assert!(checked > 100, "checked {checked} logits");
    let big = grads.iter().filter(|g| g.abs() > 1e-4).count();
    assert!(big >= 10, "only {big} gradients above 1e-4: the check would be vacuous");
}

#[test]
fn engine_gradients_match_finite_differences_of_the_naive_ca() {
    check(&small_config(Boundary::Zero), 2, 3, 16, Rollout::Recompute);
}

#[test]
fn stored_rollout_and_wider_tiles_agree() {
    check(&small_config(Boundary::Zero), 1, 2, 32, Rollout::Store);
}

#[test]
fn periodic_boundary_gradients_match() {
    check(&small_config(Boundary::Periodic), 1, 2, 16, Rollout::Recompute);
}

#[test]
fn store_and_recompute_give_identical_gradients() {
    let config = LogicCaConfig { height: 7, width: 9, ..small_config(Boundary::Zero) };
    let (mut ca, s0, target) = setup(&config, 2, 9);
    let mut run = |rollout, lanes| {
        let mut engine = SoftRollout::new(&ca, lanes, rollout).unwrap();
        let loss = engine.loss_and_grads(&mut ca, &s0, &target, 4).unwrap();
        (loss, ca.params().grads().to_vec())
    };
    let (l1, g1) = run(Rollout::Recompute, 16);
    let (l2, g2) = run(Rollout::Store, 16);
    assert_eq!(l1, l2);
    assert_eq!(g1, g2);
    let (l3, g3) = run(Rollout::Recompute, 64);
    assert!((l1 - l3).abs() <= 1e-5 * l1.abs());
    for (a, b) in g1.iter().zip(&g3) {
        assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "{a} vs {b}");
    }
}

#[test]
fn bad_rollout_inputs_are_errors() {
    let config = small_config(Boundary::Zero);
    let (mut ca, s0, target) = setup(&config, 1, 1);
    assert!(SoftRollout::new(&ca, 24, Rollout::Recompute).is_err());
    let mut engine = SoftRollout::new(&ca, 16, Rollout::Recompute).unwrap();
    assert!(engine.loss_and_grads(&mut ca, &s0, &target, 0).is_err());
    assert!(engine.loss_and_grads(&mut ca, &s0[1..], &target, 1).is_err());
    assert!(engine.loss_and_grads(&mut ca, &s0, &target[1..], 1).is_err());
}

#[test]
fn every_simd_level_gives_the_same_gradients() {
    let config = small_config(Boundary::Zero);
    let (mut ca, s0, target) = setup(&config, 2, 4);
    let mut results = Vec::new();
    for level in minnow_kernels::supported_levels() {
        minnow_kernels::with_level(level, || {
            let mut engine = SoftRollout::new(&ca, 16, Rollout::Recompute).unwrap();
            let loss = engine.loss_and_grads(&mut ca, &s0, &target, 3).unwrap();
            results.push((level, loss, ca.params().grads().to_vec()));
        });
    }
    let (_, l0, g0) = &results[0];
    for (level, l, g) in &results[1..] {
        assert!((l - l0).abs() <= 1e-5 * l0.abs(), "{level:?}: loss {l} vs {l0}");
        for (a, b) in g.iter().zip(g0) {
            assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{level:?}: {a} vs {b}");
        }
    }
}
