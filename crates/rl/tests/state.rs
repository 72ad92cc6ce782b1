//! Save / restore round trips: a restored component continues exactly as
//! the original would have.

use minnow_rl::{
    NStep, NStepConfig, PrioritizedConfig, ReplayBuffer, ReplayConfig, Sampling, SavedState, StateSource, Step,
    SumTree, Transition, restore_rng, save_rng,
};
use rand::{Rng, SeedableRng};
use rand_pcg::{Pcg64, Pcg64Mcg};

fn replay_config(capacity: usize) -> ReplayConfig {
    ReplayConfig { store_next_mask: true, sampling: Sampling::WithoutReplacement, ..ReplayConfig::new(capacity, 3, 4) }
}

fn transition_data(i: u32) -> ([f32; 3], [f32; 3], [f32; 4]) {
    let x = i as f32;
    ([x, x * 0.5, -x], [x + 1.0, 0.25, 1.0], [1.0, (i % 2) as f32, 1.0, 0.0])
}

fn push<S: minnow_rl::TransitionSink>(sink: &mut S, i: u32) {
    let (obs, next, mask) = transition_data(i);
    let t = Transition {
        next_mask: &mask,
        ..Transition::one_step(&obs, i % 4, i as f32 * 0.1, &next, i.is_multiple_of(5), 0.97)
    };
    sink.push_transition(&t).unwrap();
}

/// Everything a replay buffer exposes, for comparisons.
/// (obs, action, reward, next obs, next mask, done, discount).
type Row = (Vec<f32>, u32, f32, Vec<f32>, Vec<f32>, bool, f32);

fn contents(b: &ReplayBuffer) -> Vec<Row> {
    (0..b.len())
        .map(|i| {
            let t = b.get(i);
            (t.obs.to_vec(), t.action, t.reward, t.next_obs.to_vec(), t.next_mask.to_vec(), t.done, t.discount)
        })
        .collect()
}

#[test]
fn replay_buffer_round_trip_continues_exactly() {
    for pushes in [0, 5, 11, 23] {
        let mut a = replay_config(8).build().unwrap();
        for i in 0..pushes {
            push(&mut a, i);
        }
        let state = a.save("replay");
        let mut b = replay_config(8).build().unwrap();
        b.restore("replay", &state).unwrap();
        assert_eq!(contents(&a), contents(&b));
        assert_eq!((a.len(), a.head(), a.pushed()), (b.len(), b.head(), b.pushed()));
        // The same pushes and samples from here on.
        for i in 100..105 {
            push(&mut a, i);
            push(&mut b, i);
        }
        assert_eq!(contents(&a), contents(&b));
        let (mut x, mut y) = (a.batch(4), b.batch(4));
        a.sample_into(4, &mut Pcg64::seed_from_u64(1), &mut x).unwrap();
        b.sample_into(4, &mut Pcg64::seed_from_u64(1), &mut y).unwrap();
        assert_eq!((x.indices(), x.obs(), x.next_mask()), (y.indices(), y.obs(), y.next_mask()));
    }
}

#[test]
fn replay_buffer_state_names() {
    let mut a = replay_config(8).build().unwrap();
    for i in 0..3 {
        push(&mut a, i);
    }
    let state = a.save("r");
    let names: Vec<(&str, &[usize])> = state.arrays.iter().map(|a| (a.name.as_str(), a.dims.as_slice())).collect();
    assert_eq!(
        names,
        [
            ("r.obs", &[3, 3][..]),
            ("r.next_obs", &[3, 3]),
            ("r.next_mask", &[3, 4]),
            ("r.actions", &[3]),
            ("r.rewards", &[3]),
            ("r.dones", &[3]),
            ("r.discounts", &[3]),
        ]
    );
    assert_eq!(state.array("r.actions").unwrap(), [0.0, 1.0, 2.0]);
    assert_eq!(state.array("r.dones").unwrap(), [1.0, 0.0, 0.0]);
    let meta: serde_json::Value = serde_json::from_str(state.meta("r").unwrap()).unwrap();
    assert_eq!((meta["head"].as_u64(), meta["len"].as_u64(), meta["pushed"].as_u64()), (Some(3), Some(3), Some(3)));
}

#[test]
fn sum_tree_round_trip_is_bit_exact() {
    let mut a = SumTree::new(37).unwrap();
    let mut rng = Pcg64::seed_from_u64(5);
    for _ in 0..500 {
        let i = rng.random_range(0..37);
        a.update(i, rng.random::<f32>() * 10.0);
    }
    let state = a.save("tree");
    let mut b = SumTree::new(37).unwrap();
    b.restore("tree", &state).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.total().to_bits(), b.total().to_bits());
}

#[test]
fn prioritized_round_trip_continues_exactly() {
    let config = PrioritizedConfig { beta_steps: 50, ..PrioritizedConfig::new(replay_config(16)) };
    let mut a = config.build().unwrap();
    let mut rng_a = Pcg64::seed_from_u64(8);
    let mut batch = a.batch(4);
    for i in 0..40 {
        push(&mut a, i);
        if a.len() >= 4 {
            a.sample_into(4, i as u64, &mut rng_a, &mut batch).unwrap();
            let td: Vec<f32> = batch.indices().iter().map(|&k| k as f32 * 0.3 - 2.0 + i as f32 * 0.01).collect();
            a.update_priorities(batch.indices(), &td).unwrap();
        }
    }
    let mut state = a.save("per");
    state.extend(save_rng("per.rng", &rng_a));

    let mut b = config.build().unwrap();
    b.restore("per", &state).unwrap();
    let mut rng_b: Pcg64 = restore_rng(&state, "per.rng").unwrap();
    assert_eq!(a.max_priority(), b.max_priority());
    assert_eq!(a.tree(), b.tree());
    assert_eq!(contents(a.buffer()), contents(b.buffer()));

    let mut batch_b = b.batch(4);
    for i in 40..60 {
        push(&mut a, i);
        push(&mut b, i);
        a.sample_into(4, i as u64, &mut rng_a, &mut batch).unwrap();
        b.sample_into(4, i as u64, &mut rng_b, &mut batch_b).unwrap();
        assert_eq!(batch.indices(), batch_b.indices());
        assert_eq!(batch.weights(), batch_b.weights());
        assert_eq!(batch.obs(), batch_b.obs());
        let td: Vec<f32> = batch.indices().iter().map(|&k| k as f32 - 7.5).collect();
        a.update_priorities(batch.indices(), &td).unwrap();
        b.update_priorities(batch_b.indices(), &td).unwrap();
    }
    assert_eq!(a.tree(), b.tree());
}

fn n_step_setup() -> (NStep, ReplayBuffer) {
    let replay = replay_config(32);
    (NStepConfig { n: 4, gamma: 0.95 }.build(&replay).unwrap(), replay.build().unwrap())
}

fn n_step_push(acc: &mut NStep, sink: &mut ReplayBuffer, i: u32) {
    let (obs, next, mask) = transition_data(i);
    let s = Step {
        obs: &obs,
        action: i % 4,
        reward: i as f32,
        next_obs: &next,
        next_mask: &mask,
        terminated: i % 9 == 8,
        truncated: false,
    };
    acc.push(&s, sink).unwrap();
}

#[test]
fn n_step_round_trip_mid_episode() {
    // Stop at every point of an episode (0..=3 pending, ring wrapped or not).
    for stop in 0..12 {
        let (mut a, mut sink_a) = n_step_setup();
        for i in 0..stop {
            n_step_push(&mut a, &mut sink_a, i);
        }
        let mut state = a.save("nstep");
        state.extend(sink_a.save("replay"));
        let (mut b, mut sink_b) = n_step_setup();
        b.restore("nstep", &state).unwrap();
        sink_b.restore("replay", &state).unwrap();
        assert_eq!(a.pending(), b.pending());
        for i in stop..stop + 10 {
            n_step_push(&mut a, &mut sink_a, i);
            n_step_push(&mut b, &mut sink_b, i);
        }
        a.flush(false, &mut sink_a).unwrap();
        b.flush(false, &mut sink_b).unwrap();
        assert_eq!(contents(&sink_a), contents(&sink_b), "stopped after {stop} steps");
    }
}

#[test]
fn rngs_round_trip() {
    let mut a = Pcg64::seed_from_u64(99);
    let _: u64 = a.random();
    let state = save_rng("rng", &a);
    let mut b: Pcg64 = restore_rng(&state, "rng").unwrap();
    assert_eq!(
        (0..10).map(|_| a.random::<u64>()).collect::<Vec<_>>(),
        (0..10).map(|_| b.random::<u64>()).collect::<Vec<_>>()
    );

    let mut a = Pcg64Mcg::seed_from_u64(3);
    let state = save_rng("mcg", &a);
    let mut b: Pcg64Mcg = restore_rng(&state, "mcg").unwrap();
    assert_eq!(a.random::<u64>(), b.random::<u64>());
}

#[test]
fn mismatched_state_is_refused_and_changes_nothing() {
    let mut a = replay_config(8).build().unwrap();
    for i in 0..5 {
        push(&mut a, i);
    }
    let state = a.save("replay");

    let mut other = replay_config(16).build().unwrap();
    push(&mut other, 42);
    let err = other.restore("replay", &state).unwrap_err();
    assert_eq!(err.to_string(), "restore 'replay': capacity is 8, the receiver was built with 16");
    assert_eq!(other.len(), 1);

    let err = other.restore("elsewhere", &state).unwrap_err();
    assert_eq!(err.to_string(), "restore 'elsewhere': metadata is missing");

    let mut b = replay_config(8).build().unwrap();
    let mut broken = state.clone();
    broken.arrays.retain(|a| a.name != "replay.rewards");
    assert_eq!(b.restore("replay", &broken).unwrap_err().to_string(), "restore 'replay.rewards': array is missing");
    let mut broken = state.clone();
    broken.arrays.iter_mut().find(|a| a.name == "replay.obs").unwrap().values.pop();
    assert_eq!(
        b.restore("replay", &broken).unwrap_err().to_string(),
        "restore 'replay.obs': expected 15 values, found 14"
    );
    let mut broken = state.clone();
    broken.arrays.iter_mut().find(|a| a.name == "replay.actions").unwrap().values[0] = 4.0;
    assert_eq!(
        b.restore("replay", &broken).unwrap_err().to_string(),
        "restore 'replay.actions': value 4 is not an integer in [0, 4)"
    );
    let mut broken: SavedState = state.clone();
    broken.meta[0].1 = "{not json".into();
    assert!(b.restore("replay", &broken).unwrap_err().to_string().starts_with("restore 'replay': unreadable metadata"));
    assert!(b.is_empty());

    let mut n = NStepConfig { n: 3, gamma: 0.9 }.build(&replay_config(8)).unwrap();
    let (a, _) = n_step_setup();
    assert_eq!(
        n.restore("n", &a.save("n")).unwrap_err().to_string(),
        "restore 'n': n is 4, the receiver was built with 3"
    );
}

#[test]
fn prioritized_restore_refuses_priorities_on_empty_slots() {
    let config = PrioritizedConfig::new(replay_config(8));
    let mut a = config.build().unwrap();
    for i in 0..3 {
        push(&mut a, i);
    }
    let mut state = a.save("per");
    state.arrays.iter_mut().find(|a| a.name == "per.tree.priorities").unwrap().values[5] = 1.0;
    let mut b = config.build().unwrap();
    assert_eq!(
        b.restore("per", &state).unwrap_err().to_string(),
        "restore 'per.tree.priorities': slot 5 has priority 1 but only 3 are stored"
    );
    assert!(b.is_empty());
    assert_eq!(b.tree().total(), 0.0);
}
