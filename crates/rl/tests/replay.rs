//! The uniform replay buffer: ring order, sampling, and bad input.

use minnow_rl::{Batch, ReplayBuffer, ReplayConfig, Sampling, Transition};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Transition `i`: obs [i, -i], action i % 3, reward i, next obs [i + 1, 0].
fn push_numbered(buffer: &mut ReplayBuffer, i: u32) -> usize {
    let obs = [i as f32, -(i as f32)];
    let next = [i as f32 + 1.0, 0.0];
    let t = Transition::one_step(&obs, i % 3, i as f32, &next, i % 2 == 1, 0.99);
    buffer.push(&t).unwrap()
}

fn buffer(capacity: usize) -> ReplayBuffer {
    ReplayConfig::new(capacity, 2, 3).build().unwrap()
}

#[test]
fn ring_overwrites_the_oldest_first() {
    let mut b = buffer(3);
    let slots: Vec<usize> = (0..7).map(|i| push_numbered(&mut b, i)).collect();
    assert_eq!(slots, [0, 1, 2, 0, 1, 2, 0]);
    assert_eq!((b.len(), b.pushed(), b.head()), (3, 7, 1));
    // Slot 0 holds transition 6, slot 1 transition 4, slot 2 transition 5.
    for (slot, i) in [(0, 6u32), (1, 4), (2, 5)] {
        let t = b.get(slot);
        assert_eq!(t.obs, [i as f32, -(i as f32)]);
        assert_eq!(t.next_obs, [i as f32 + 1.0, 0.0]);
        assert_eq!((t.action, t.reward, t.done, t.discount), (i % 3, i as f32, i % 2 == 1, 0.99));
    }
}

#[test]
fn fills_in_order_before_wrapping() {
    let mut b = buffer(4);
    assert!(b.is_empty());
    push_numbered(&mut b, 10);
    push_numbered(&mut b, 11);
    assert_eq!((b.len(), b.head(), b.capacity()), (2, 2, 4));
    assert_eq!(b.get(1).reward, 11.0);
}

#[test]
fn a_sample_copies_the_stored_transitions() {
    let mut b = buffer(8);
    for i in 0..13 {
        push_numbered(&mut b, i);
    }
    let mut batch = b.batch(5);
    let mut rng = Pcg64::seed_from_u64(3);
    b.sample_into(5, &mut rng, &mut batch).unwrap();
    assert_eq!(batch.len(), 5);
    for (k, &slot) in batch.indices().iter().enumerate() {
        let t = b.get(slot as usize);
        assert_eq!(&batch.obs()[2 * k..2 * k + 2], t.obs);
        assert_eq!(&batch.next_obs()[2 * k..2 * k + 2], t.next_obs);
        assert_eq!(batch.actions()[k], t.action);
        assert_eq!(batch.rewards()[k], t.reward);
        assert_eq!(batch.dones()[k], if t.done { 1.0 } else { 0.0 });
        assert_eq!(batch.discounts()[k], t.discount);
    }
    assert_eq!(batch.weights(), [1.0; 5]);
    // A smaller sample into the same batch.
    b.sample_into(2, &mut rng, &mut batch).unwrap();
    assert_eq!((batch.len(), batch.obs().len(), batch.weights().len()), (2, 4, 2));
}

#[test]
fn same_seed_same_batch() {
    let mut b = buffer(50);
    for i in 0..50 {
        push_numbered(&mut b, i);
    }
    let (mut x, mut y) = (b.batch(16), b.batch(16));
    b.sample_into(16, &mut Pcg64::seed_from_u64(9), &mut x).unwrap();
    b.sample_into(16, &mut Pcg64::seed_from_u64(9), &mut y).unwrap();
    assert_eq!(x.indices(), y.indices());
}

fn frequencies(sampling: Sampling, len: u32, batch: usize, rounds: usize) -> Vec<f64> {
    let mut config = ReplayConfig::new(len as usize, 2, 3);
    config.sampling = sampling;
    let mut b = config.build().unwrap();
    for i in 0..len {
        push_numbered(&mut b, i);
    }
    let mut out = b.batch(batch);
    let mut rng = Pcg64::seed_from_u64(4);
    let mut counts = vec![0u64; len as usize];
    for _ in 0..rounds {
        b.sample_into(batch, &mut rng, &mut out).unwrap();
        if sampling == Sampling::WithoutReplacement {
            let mut seen = out.indices().to_vec();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), batch, "repeated index in {:?}", out.indices());
        }
        for &i in out.indices() {
            counts[i as usize] += 1;
        }
    }
    counts.iter().map(|&c| c as f64 / (rounds * batch) as f64).collect()
}

#[test]
fn sampling_is_uniform_with_and_without_replacement() {
    for sampling in [Sampling::WithReplacement, Sampling::WithoutReplacement] {
        let f = frequencies(sampling, 10, 7, 20_000);
        for (i, &f) in f.iter().enumerate() {
            assert!((f - 0.1).abs() < 0.004, "{sampling:?}: slot {i} frequency {f}");
        }
    }
}

#[test]
fn without_replacement_a_full_batch_is_a_permutation() {
    let mut config = ReplayConfig::new(6, 2, 3);
    config.sampling = Sampling::WithoutReplacement;
    let mut b = config.build().unwrap();
    for i in 0..6 {
        push_numbered(&mut b, i);
    }
    let mut out = b.batch(6);
    b.sample_into(6, &mut Pcg64::seed_from_u64(5), &mut out).unwrap();
    let mut seen = out.indices().to_vec();
    seen.sort_unstable();
    assert_eq!(seen, [0, 1, 2, 3, 4, 5]);
}

#[test]
fn next_masks_are_stored_when_asked() {
    let mut config = ReplayConfig::new(4, 1, 3);
    config.store_next_mask = true;
    let mut b = config.build().unwrap();
    let t = Transition { next_mask: &[1.0, 0.0, 1.0], ..Transition::one_step(&[1.0], 2, 0.5, &[2.0], false, 0.9) };
    b.push(&t).unwrap();
    assert_eq!(b.get(0).next_mask, [1.0, 0.0, 1.0]);
    let mut out = b.batch(1);
    b.sample_into(1, &mut Pcg64::seed_from_u64(0), &mut out).unwrap();
    assert_eq!(out.next_mask(), [1.0, 0.0, 1.0]);
    // Without the mask the push is refused.
    let err = b.push(&Transition::one_step(&[1.0], 2, 0.5, &[2.0], false, 0.9)).unwrap_err();
    assert_eq!(err.to_string(), "ReplayBuffer::push: next_mask has 0 values, expected 3");
}

#[test]
fn config_errors_name_the_field() {
    let cases = [
        (ReplayConfig::new(0, 4, 2), "ReplayConfig.capacity: expected a value in 1..=16777216, found 0"),
        (ReplayConfig::new(1 << 25, 4, 2), "ReplayConfig.capacity: expected a value in 1..=16777216, found 33554432"),
        (ReplayConfig::new(10, 0, 2), "ReplayConfig.obs_size: expected a value > 0, found 0"),
        (ReplayConfig::new(10, 4, 0), "ReplayConfig.num_actions: expected a value in 1..=16777216, found 0"),
    ];
    for (config, message) in cases {
        assert_eq!(config.build().unwrap_err().to_string(), message);
    }
}

#[test]
fn sample_errors_name_what_is_wrong() {
    let mut b = buffer(10);
    for i in 0..3 {
        push_numbered(&mut b, i);
    }
    let mut rng = Pcg64::seed_from_u64(0);
    let mut out = b.batch(8);
    let err = |b: &ReplayBuffer, n: usize, out: &mut Batch| b.sample_into(n, &mut Pcg64::seed_from_u64(0), out);
    assert_eq!(
        err(&b, 4, &mut out).unwrap_err().to_string(),
        "sample: batch of 4 requested from 3 stored transitions, expected at most 3"
    );
    assert_eq!(err(&b, 0, &mut out).unwrap_err().to_string(), "sample.batch: expected a value > 0, found 0");
    assert_eq!(
        b.sample_into(9, &mut rng, &mut out).unwrap_err().to_string(),
        "sample: batch of 9 does not fit the Batch buffers, which hold at most 8"
    );
    let mut wrong = Batch::new(8, 5, 0);
    assert_eq!(
        b.sample_into(2, &mut rng, &mut wrong).unwrap_err().to_string(),
        "sample: Batch has obs_size 5, the replay buffer has 2"
    );
    assert!(b.sample_into(3, &mut rng, &mut out).is_ok());
}

#[test]
fn push_errors_name_what_is_wrong() {
    let mut b = buffer(4);
    let t = Transition::one_step(&[1.0, 2.0, 3.0], 0, 1.0, &[1.0, 2.0], false, 0.9);
    assert_eq!(b.push(&t).unwrap_err().to_string(), "ReplayBuffer::push: obs has 3 values, expected 2");
    let t = Transition::one_step(&[1.0, 2.0], 0, 1.0, &[1.0], false, 0.9);
    assert_eq!(b.push(&t).unwrap_err().to_string(), "ReplayBuffer::push: next_obs has 1 values, expected 2");
    let t = Transition::one_step(&[1.0, 2.0], 3, 1.0, &[1.0, 2.0], false, 0.9);
    assert_eq!(b.push(&t).unwrap_err().to_string(), "ReplayBuffer::push: action 3 is out of range, expected < 3");
    let t = Transition::one_step(&[1.0, 2.0], 0, f32::NAN, &[1.0, 2.0], false, 0.9);
    assert_eq!(b.push(&t).unwrap_err().to_string(), "ReplayBuffer::push: reward is NaN, expected a finite value");
    assert!(b.is_empty(), "a refused push stored something");
}
