//! Pushing, sampling and updating priorities allocate nothing once the
//! buffers exist.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_rl::{NStepConfig, PrioritizedConfig, ReplayConfig, Sampling, Step};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn assert_allocates_nothing(name: &str, mut step: impl FnMut()) {
    for _ in 0..3 {
        step();
    }
    // Per thread: the other tests of this binary run concurrently.
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..200 {
            step();
        }
    });
    assert_eq!(on_thread.allocations, 0, "{name}: {} bytes allocated on this thread", on_thread.bytes);
}

#[test]
fn prioritized_replay_with_n_step_allocates_nothing() {
    let replay = ReplayConfig { store_next_mask: true, ..ReplayConfig::new(64, 16, 4) };
    let mut per = PrioritizedConfig::new(replay).build().unwrap();
    let mut acc = NStepConfig { n: 3, gamma: 0.99 }.build(&replay).unwrap();
    let mut batch = per.batch(8);
    let mut td = [0.0f32; 8];
    let mut rng = Pcg64::seed_from_u64(0);
    let (mut obs, mut next, mask) = ([0.0f32; 16], [0.0f32; 16], [1.0f32, 1.0, 0.0, 1.0]);
    for _ in 0..20 {
        let s = Step {
            obs: &obs,
            action: 1,
            reward: 1.0,
            next_obs: &next,
            next_mask: &mask,
            terminated: false,
            truncated: false,
        };
        acc.push(&s, &mut per).unwrap();
    }
    let mut t = 0u64;
    assert_allocates_nothing("push + sample + update", || {
        t += 1;
        obs.fill(t as f32);
        next.fill(t as f32 + 1.0);
        let s = Step {
            obs: &obs,
            action: (t % 4) as u32,
            reward: rng.random(),
            next_obs: &next,
            next_mask: &mask,
            terminated: t.is_multiple_of(17),
            truncated: t.is_multiple_of(23),
        };
        acc.push(&s, &mut per).unwrap();
        per.sample_into(8, t, &mut rng, &mut batch).unwrap();
        for (d, &w) in td.iter_mut().zip(batch.weights()) {
            *d = w * rng.random::<f32>() - 0.5;
        }
        per.update_priorities(batch.indices(), &td).unwrap();
    });
}

#[test]
fn uniform_replay_allocates_nothing() {
    for sampling in [Sampling::WithReplacement, Sampling::WithoutReplacement] {
        let mut buffer = ReplayConfig { sampling, ..ReplayConfig::new(32, 8, 2) }.build().unwrap();
        let mut batch = buffer.batch(16);
        let mut rng = Pcg64::seed_from_u64(1);
        let obs = [0.5f32; 8];
        let mut t = 0u32;
        assert_allocates_nothing("uniform push + sample", || {
            t += 1;
            let tr = minnow_rl::Transition::one_step(&obs, t % 2, 1.0, &obs, false, 0.99);
            buffer.push(&tr).unwrap();
            let n = buffer.len().min(16);
            buffer.sample_into(n, &mut rng, &mut batch).unwrap();
        });
    }
}
