//! The tape-free inference copies of a `PolicyValueNet` against its tape
//! forward: the f32 copy bit for bit, the bf16 copy within the error
//! bound asserted on docs/ANCHORS.md's 283K network; refreshes that follow
//! the weights, no allocation in the steady state.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_kernels as k;
use minnow_nn::{Forward, Params, PolicyValueInference, PolicyValueNet, PolicyValueNetConfig, Tape};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The `az_forward` benchmark's network: 198 inputs, 4 residual blocks of
/// width 140, 676 policy logits.
const CONFIG: PolicyValueNetConfig = PolicyValueNetConfig { inputs: 198, width: 140, blocks: 4, policy: 676 };

/// The az-backgammon preset's network: 202 inputs, 2 blocks of width 256
/// (whole cache lines), 156 policy logits.
const BACKGAMMON: PolicyValueNetConfig = PolicyValueNetConfig { inputs: 202, width: 256, blocks: 2, policy: 156 };

fn network(seed: u64) -> (PolicyValueNet, Params) {
    network_of(CONFIG, seed)
}

fn network_of(config: PolicyValueNetConfig, seed: u64) -> (PolicyValueNet, Params) {
    let mut params = Params::new();
    let net = config.init(&mut params, "az", &mut Pcg64Mcg::seed_from_u64(seed)).unwrap();
    (net, params)
}

/// Observations like the games': values in [0, 1), a third of them 0.
fn observations(rows: usize, seed: u64) -> Vec<f32> {
    observations_of(CONFIG.inputs, rows, seed)
}

fn observations_of(inputs: usize, rows: usize, seed: u64) -> Vec<f32> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..rows * inputs).map(|_| if rng.random::<f32>() < 0.33 { 0.0 } else { rng.random::<f32>() }).collect()
}

/// The tape's forward in inference mode on one thread: logits and values.
fn f32_forward(net: &PolicyValueNet, params: &Params, x: &[f32], rows: usize) -> (Vec<f32>, Vec<f32>) {
    let mut tape = Tape::new();
    let mut g = tape.inference(params);
    let input = g.input(&[rows, net.stem.inputs], x).unwrap();
    let (l, v) = net.forward(&mut g, input).unwrap();
    (g.value(l).to_vec(), g.value(v).to_vec())
}

/// The largest |bf16 - f32| over the logits and over the values.
fn errors(
    bf16: &mut PolicyValueInference,
    net: &PolicyValueNet,
    params: &Params,
    rows: usize,
    seed: u64,
) -> (f32, f32) {
    let x = observations(rows, seed);
    let (want_l, want_v) = f32_forward(net, params, &x, rows);
    let (mut l, mut v) = (vec![0.0; rows * CONFIG.policy], vec![0.0; rows]);
    bf16.forward(&x, &mut l, &mut v);
    let worst = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    (worst(&l, &want_l), worst(&v, &want_v))
}

/// Logits and values of the bf16 forward stay within 0.05 of the f32
/// forward's, at every path of the kernel.
///
/// Why 0.05: each Linear's error is at most about 2^-7 of Σ |x_p w_p|
/// (bf16 keeps 8 significant bits, u = 2^-8 per operand; f32
/// accumulation adds k 2^-24). With PyTorch's init and LayerNorm keeping
/// the trunk's activations of order 1, a logit's Σ |x w| over the 140
/// features is about 3-4, so one layer can add up to about 0.03, and the
/// trunk's ten Linears (stem, 4 x 2 in the blocks, the head) pass their
/// errors on mostly uncorrelated, partly damped by the LayerNorms. The
/// largest error measured here was 0.021 on the logits and 0.004 on the
/// values (printed); 0.05 leaves room for other seeds without hiding a
/// real fault (a wrongly packed weight or a lost pair of k gives errors
/// of order 1).
#[test]
fn the_bf16_forward_stays_within_the_bound_of_the_f32_forward() {
    let (net, params) = network(2);
    let mut bf16 = PolicyValueInference::bf16(&net, &params).unwrap();
    let (mut logits, mut values) = (0.0f32, 0.0f32);
    for level in k::supported_levels() {
        for (i, rows) in [1, 8, 17, 64].into_iter().enumerate() {
            let (l, v) = k::with_level(level, || errors(&mut bf16, &net, &params, rows, 10 + i as u64));
            assert!(l <= 0.05 && v <= 0.05, "{level:?} batch {rows}: logits off by {l}, values by {v}");
            assert!(l > 0.0, "{level:?} batch {rows}: bf16 rounding changed nothing; is the bf16 path running?");
            (logits, values) = (logits.max(l), values.max(v));
        }
    }
    println!("largest error: logits {logits}, values {values}");
}

/// Every SIMD level gives the same bits (the kernel's paths agree).
#[test]
fn every_level_gives_the_same_outputs() {
    let (net, params) = network(3);
    let mut bf16 = PolicyValueInference::bf16(&net, &params).unwrap();
    let x = observations(9, 4);
    let mut outputs = vec![];
    for level in k::supported_levels() {
        let (mut l, mut v) = (vec![0.0; 9 * CONFIG.policy], vec![0.0; 9]);
        k::with_level(level, || bf16.forward(&x, &mut l, &mut v));
        outputs.push((level, l, v));
    }
    let (first, l0, v0) = &outputs[0];
    for (level, l, v) in &outputs[1..] {
        assert!(l == l0 && v == v0, "{level:?} differs from {first:?}");
    }
}

/// A refresh follows the weights: after an update the bf16 forward is
/// within the bound of the new f32 forward, not the old one.
#[test]
fn refresh_follows_the_weights() {
    let (net, mut params) = network(5);
    let mut bf16 = PolicyValueInference::bf16(&net, &params).unwrap();
    let before = errors(&mut bf16, &net, &params, 8, 6);
    for v in params.values_mut() {
        *v = -*v * 1.5;
    }
    let stale = errors(&mut bf16, &net, &params, 8, 6);
    assert!(stale.0 > 0.5, "the stale copy should disagree with the new weights: {stale:?}");
    bf16.refresh(&params).unwrap();
    let after = errors(&mut bf16, &net, &params, 8, 6);
    assert!(after.0 <= 0.1 && after.1 <= 0.1, "before {before:?}, after {after:?}");
}

#[test]
fn a_store_of_another_network_is_refused() {
    let (net, _) = network(1);
    let mut other = Params::new();
    let small = PolicyValueNetConfig { inputs: 198, width: 64, blocks: 4, policy: 676 };
    small.init(&mut other, "az", &mut Pcg64Mcg::seed_from_u64(1)).unwrap();
    for copy in [PolicyValueInference::f32(&net, &other), PolicyValueInference::bf16(&net, &other)] {
        let err = copy.unwrap_err().to_string();
        assert!(err.contains("PolicyValueInference") && err.contains("needs"), "{err}");
    }
}

#[test]
fn refresh_and_forward_allocate_nothing_after_warm_up() {
    let (net, params) = network(7);
    let x = observations(64, 8);
    let (mut l, mut v) = (vec![0.0; 64 * CONFIG.policy], vec![0.0; 64]);
    for mut copy in
        [PolicyValueInference::f32(&net, &params).unwrap(), PolicyValueInference::bf16(&net, &params).unwrap()]
    {
        copy.forward(&x, &mut l, &mut v);
        let (_, on_thread, _) = count_allocations(|| {
            copy.refresh(&params).unwrap();
            for rows in [1, 8, 64, 3] {
                let r = rows * CONFIG.inputs;
                copy.forward(&x[..r], &mut l[..rows * CONFIG.policy], &mut v[..rows]);
            }
        });
        assert_eq!(on_thread.allocations, 0, "bf16: {}", copy.is_bf16());
    }
}

/// The f32 copy gives the tape forward's outputs bit for bit, at every
/// SIMD level, batch size and kernel route: on the benchmark network
/// (every weight row 198 or 140 floats, so padded) and on the
/// backgammon preset's (hidden rows already whole cache lines), and
/// again after a refresh to new weights.
#[test]
fn the_f32_copy_gives_the_tape_forward_bit_for_bit() {
    for (config, seed) in [(CONFIG, 11), (BACKGAMMON, 12)] {
        let (net, mut params) = network_of(config, seed);
        let mut copy = PolicyValueInference::f32(&net, &params).unwrap();
        assert!(!copy.is_bf16());
        for round in 0..2 {
            for level in k::supported_levels() {
                for rows in [1, 3, 8, 17, 64] {
                    let x = observations_of(config.inputs, rows, seed + rows as u64);
                    let (want_l, want_v) = k::with_level(level, || f32_forward(&net, &params, &x, rows));
                    let (mut l, mut v) = (vec![0.0; rows * config.policy], vec![0.0; rows]);
                    k::with_level(level, || copy.forward(&x, &mut l, &mut v));
                    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits());
                    assert!(
                        same(&l, &want_l) && same(&v, &want_v),
                        "{config:?}, round {round}, {level:?}, batch {rows}: the f32 copy differs from the tape"
                    );
                }
            }
            for v in params.values_mut() {
                *v = -*v * 1.5;
            }
            copy.refresh(&params).unwrap();
        }
    }
}

/// A NaN in an observation comes out NaN in that row's logits and value,
/// from the tape and from the f32 copy alike (their ReLUs keep NaN); the
/// other rows are unchanged, bit for bit.
#[test]
fn a_nan_observation_stays_nan_in_its_row() {
    let (net, params) = network(13);
    let mut copy = PolicyValueInference::f32(&net, &params).unwrap();
    let (rows, p) = (3, CONFIG.policy);
    let mut x = observations(rows, 5);
    x[CONFIG.inputs + 7] = f32::NAN;
    let (want_l, want_v) = f32_forward(&net, &params, &x, rows);
    let (mut l, mut v) = (vec![0.0; rows * p], vec![0.0; rows]);
    copy.forward(&x, &mut l, &mut v);
    for (logits, values) in [(&want_l, &want_v), (&l, &v)] {
        assert!(logits[p..2 * p].iter().all(|q| q.is_nan()) && values[1].is_nan());
        assert!(logits[..p].iter().chain(&logits[2 * p..]).all(|q| q.is_finite()));
    }
    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(s, t)| s.to_bits() == t.to_bits());
    assert!(same(&l[..p], &want_l[..p]) && same(&l[2 * p..], &want_l[2 * p..]));
    assert!(v[0].to_bits() == want_v[0].to_bits() && v[2].to_bits() == want_v[2].to_bits());
}
