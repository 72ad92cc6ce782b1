//! Prioritized replay: importance weights, beta annealing, priorities from
//! TD errors, sampling proportions and bad input.

use minnow_rl::{PrioritizedConfig, PrioritizedReplay, ReplayConfig, Transition};
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn per(capacity: usize, alpha: f32, beta_start: f32, beta_steps: u64, eps: f32) -> PrioritizedReplay {
    let config = PrioritizedConfig {
        alpha,
        beta_start,
        beta_steps,
        eps,
        ..PrioritizedConfig::new(ReplayConfig::new(capacity, 1, 2))
    };
    config.build().unwrap()
}

fn push(per: &mut PrioritizedReplay, i: u32) -> usize {
    per.push(&Transition::one_step(&[i as f32], i % 2, i as f32, &[i as f32 + 1.0], false, 0.99)).unwrap()
}

fn close(a: f32, b: f64) -> bool {
    (a as f64 - b).abs() < 1e-6
}

/// Priorities 1, 2, 4, 2 (alpha 1, eps 0.5): total 9, N 4.
fn hand_example(beta_start: f32) -> PrioritizedReplay {
    let mut r = per(4, 1.0, beta_start, 1000, 0.5);
    for i in 0..4 {
        push(&mut r, i);
    }
    r.update_priorities(&[0, 1, 2, 3], &[0.5, 1.5, 3.5, -1.5]).unwrap();
    assert_eq!([r.priority(0), r.priority(1), r.priority(2), r.priority(3)], [1.0, 2.0, 4.0, 2.0]);
    r
}

/// (N P(i))^-beta for the hand example at beta 0.5: (4/9)^-0.5 = 1.5,
/// (8/9)^-0.5 = 1.0607, (16/9)^-0.5 = 0.75.
const RAW_WEIGHTS: [f64; 4] = [1.5, 1.0606601717798212, 0.75, 1.0606601717798212];

#[test]
fn importance_weights_on_a_hand_computed_example() {
    let r = hand_example(0.5);
    let mut batch = r.batch(4);
    let mut rng = Pcg64::seed_from_u64(1);
    let mut saw_full_range = false;
    for _ in 0..200 {
        r.sample_into(4, 0, &mut rng, &mut batch).unwrap();
        let max = batch.indices().iter().map(|&i| RAW_WEIGHTS[i as usize]).fold(0.0, f64::max);
        for (k, &slot) in batch.indices().iter().enumerate() {
            let expected = RAW_WEIGHTS[slot as usize] / max;
            let w = batch.weights()[k];
            assert!(close(w, expected), "slot {slot}: weight {w}, expected {expected}");
            // The transitions come along with their weights.
            assert_eq!(batch.obs()[k], slot as f32);
        }
        // With slot 0 in the batch the weights are 1, 0.7071, 0.5.
        if batch.indices().contains(&0) && batch.indices().contains(&2) {
            saw_full_range = true;
            let mut w = batch.weights().to_vec();
            w.sort_by(f32::total_cmp);
            assert!(close(w[0], 0.5) && close(w[3], 1.0), "{w:?}");
        }
    }
    assert!(saw_full_range);
}

#[test]
fn importance_weights_follow_beta() {
    let r = hand_example(0.5);
    let mut batch = r.batch(4);
    let mut rng = Pcg64::seed_from_u64(2);
    for (step, beta) in [(0, 0.5), (500, 0.75), (1000, 1.0), (5000, 1.0)] {
        for _ in 0..20 {
            r.sample_into(4, step, &mut rng, &mut batch).unwrap();
            let p = |k: usize| r.priority(batch.indices()[k] as usize) as f64;
            let min_p = (0..4).map(p).fold(f64::INFINITY, f64::min);
            for k in 0..4 {
                // (N P(i))^-beta / max = (p_i / min p)^-beta.
                assert!(close(batch.weights()[k], (p(k) / min_p).powf(-beta)), "step {step}");
            }
        }
    }
    // At beta = 1 the weights are exactly min p / p.
    r.sample_into(4, 1000, &mut rng, &mut batch).unwrap();
    let min_p = batch.indices().iter().map(|&i| r.priority(i as usize)).fold(f32::INFINITY, f32::min);
    for (k, &i) in batch.indices().iter().enumerate() {
        assert_eq!(batch.weights()[k], min_p / r.priority(i as usize));
    }
}

#[test]
fn weights_are_normalised_by_the_batch_maximum() {
    // A batch that misses slot 0 scales by its own largest weight.
    let r = hand_example(1.0);
    let mut batch = r.batch(3);
    let mut rng = Pcg64::seed_from_u64(7);
    for _ in 0..50 {
        r.sample_into(3, 0, &mut rng, &mut batch).unwrap();
        let max = batch.weights().iter().copied().fold(0.0, f32::max);
        assert_eq!(max, 1.0);
        let min_p = batch.indices().iter().map(|&i| r.priority(i as usize)).fold(f32::INFINITY, f32::min);
        for (k, &i) in batch.indices().iter().enumerate() {
            assert!(close(batch.weights()[k], (min_p / r.priority(i as usize)) as f64));
        }
    }
}

#[test]
fn beta_anneals_linearly_to_one() {
    let config =
        PrioritizedConfig { beta_start: 0.4, beta_steps: 1000, ..PrioritizedConfig::new(ReplayConfig::new(8, 1, 2)) };
    let replay = config.build().unwrap();
    let expected = [(0, 0.4), (250, 0.55), (500, 0.7), (999, 0.9994), (1000, 1.0), (10_000, 1.0), (u64::MAX, 1.0)];
    for (step, beta) in expected {
        assert!(close(replay.beta_at(step), beta), "beta at {step}: {}", replay.beta_at(step));
        // As the hand-written line computed it before it was a schedule, bit for bit.
        let progress = (step as f64 / 1000.0).min(1.0);
        assert_eq!(replay.beta_at(step), (0.4f32 as f64 + (1.0 - 0.4f32 as f64) * progress) as f32);
    }
    let at_once = PrioritizedConfig { beta_steps: 0, ..config }.build().unwrap();
    assert_eq!(at_once.beta_at(0), 1.0);
}

#[test]
fn new_transitions_get_the_max_priority() {
    let mut r = per(8, 0.5, 0.4, 100, 1e-6);
    assert_eq!(r.max_priority(), 1.0);
    let a = push(&mut r, 0);
    assert_eq!(r.priority(a), 1.0);
    // |delta| = 8.999999: p = (8.999999 + 1e-6)^0.5 = 3.
    r.update_priorities(&[a as u32], &[-8.999999]).unwrap();
    assert!(close(r.priority(a), 3.0));
    assert!(close(r.max_priority(), 3.0));
    let b = push(&mut r, 1);
    assert_eq!(r.priority(b), r.max_priority());
    // A lower priority never lowers the maximum.
    r.update_priorities(&[a as u32, b as u32], &[0.0, 0.0]).unwrap();
    assert!(close(r.priority(a), 1e-3));
    assert!(close(r.max_priority(), 3.0));
    let c = push(&mut r, 2);
    assert!(close(r.priority(c), 3.0));
}

#[test]
fn sampling_frequencies_follow_priorities_to_the_alpha() {
    let mut r = per(5, 0.5, 1.0, 0, 1e-6);
    for i in 0..5 {
        push(&mut r, i);
    }
    // |delta| + eps = 1, 4, 9, 16, 25; p = 1, 2, 3, 4, 5.
    r.update_priorities(&[0, 1, 2, 3, 4], &[1.0 - 1e-6, 4.0 - 1e-6, 9.0 - 1e-6, 16.0 - 1e-6, 25.0 - 1e-6]).unwrap();
    let mut batch = r.batch(5);
    let mut rng = Pcg64::seed_from_u64(11);
    let mut counts = [0u64; 5];
    for _ in 0..30_000 {
        r.sample_into(5, 0, &mut rng, &mut batch).unwrap();
        for &i in batch.indices() {
            counts[i as usize] += 1;
        }
    }
    let n = counts.iter().sum::<u64>() as f64;
    for (i, &c) in counts.iter().enumerate() {
        let (f, p) = (c as f64 / n, (i + 1) as f64 / 15.0);
        assert!((f - p).abs() < 0.005, "slot {i}: frequency {f}, probability {p}");
    }
}

#[test]
fn empty_slots_are_never_sampled() {
    let mut r = per(100, 0.6, 0.4, 100, 1e-6);
    for i in 0..3 {
        push(&mut r, i);
    }
    let mut batch = r.batch(3);
    let mut rng = Pcg64::seed_from_u64(12);
    for _ in 0..1000 {
        r.sample_into(3, 0, &mut rng, &mut batch).unwrap();
        assert!(batch.indices().iter().all(|&i| i < 3), "{:?}", batch.indices());
    }
}

#[test]
fn bad_updates_are_refused_and_change_nothing() {
    let mut r = hand_example(0.5);
    let before: Vec<f32> = (0..4).map(|i| r.priority(i)).collect();
    let errors = [
        (r.update_priorities(&[0, 1], &[1.0]).unwrap_err(), "update_priorities: td_errors has 1 values, expected 2"),
        (
            r.update_priorities(&[0, 4], &[1.0, 1.0]).unwrap_err(),
            "update_priorities: index 4 is out of range, expected < 4 (stored transitions)",
        ),
        (
            r.update_priorities(&[0, 1], &[1.0, f32::INFINITY]).unwrap_err(),
            "update_priorities: TD error is inf, expected a finite value",
        ),
    ];
    for (err, message) in errors {
        assert_eq!(err.to_string(), message);
    }
    let after: Vec<f32> = (0..4).map(|i| r.priority(i)).collect();
    assert_eq!(before, after);
}

#[test]
fn config_errors_name_the_field() {
    let base = PrioritizedConfig::new(ReplayConfig::new(8, 1, 2));
    let cases = [
        (PrioritizedConfig { alpha: 1.5, ..base }, "PrioritizedConfig.alpha: expected a value in [0, 1], found 1.5"),
        (
            PrioritizedConfig { beta_start: -0.1, ..base },
            "PrioritizedConfig.beta_start: expected a value in [0, 1], found -0.1",
        ),
        (PrioritizedConfig { eps: 0.0, ..base }, "PrioritizedConfig.eps: expected a finite value > 0, found 0"),
        (
            PrioritizedConfig { replay: ReplayConfig::new(0, 1, 2), ..base },
            "ReplayConfig.capacity: expected a value in 1..=16777216, found 0",
        ),
    ];
    for (config, message) in cases {
        assert_eq!(config.build().unwrap_err().to_string(), message);
    }
    let r = base.build().unwrap();
    let mut batch = r.batch(4);
    assert_eq!(
        r.sample_into(4, 0, &mut Pcg64::seed_from_u64(0), &mut batch).unwrap_err().to_string(),
        "sample: batch of 4 requested from 0 stored transitions, expected at most 0"
    );
}
