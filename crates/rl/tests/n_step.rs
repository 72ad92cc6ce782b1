//! n-step returns against hand-computed targets, at terminal states and at
//! time-limit truncations.

use minnow_rl::{NStep, NStepConfig, PrioritizedConfig, ReplayBuffer, ReplayConfig, Step};

const GAMMA: f32 = 0.9;

fn setup(n: usize) -> (NStep, ReplayBuffer) {
    let replay = ReplayConfig::new(100, 1, 4);
    (NStepConfig { n, gamma: GAMMA }.build(&replay).unwrap(), replay.build().unwrap())
}

/// Step t of an episode: state [t] -> [t + 1], action t % 4, reward r.
fn step(t: u32, reward: f32, terminated: bool, truncated: bool) -> (Vec<f32>, Vec<f32>, u32, f32, bool, bool) {
    (vec![t as f32], vec![t as f32 + 1.0], t % 4, reward, terminated, truncated)
}

fn run(acc: &mut NStep, sink: &mut ReplayBuffer, start: u32, rewards: &[f32], end: Option<bool>) -> Vec<usize> {
    let mut emitted_after = Vec::new();
    for (k, &r) in rewards.iter().enumerate() {
        let last = k + 1 == rewards.len();
        let terminated = last && end == Some(true);
        let truncated = last && end == Some(false);
        let (obs, next, action, reward, terminated, truncated) = step(start + k as u32, r, terminated, truncated);
        let s = Step { obs: &obs, action, reward, next_obs: &next, next_mask: &[], terminated, truncated };
        acc.push(&s, sink).unwrap();
        emitted_after.push(sink.len());
    }
    emitted_after
}

/// (obs, reward, next obs, done, discount) of each stored transition.
fn stored(b: &ReplayBuffer) -> Vec<(f32, f32, f32, bool, f32)> {
    (0..b.len())
        .map(|i| {
            let t = b.get(i);
            (t.obs[0], t.reward, t.next_obs[0], t.done, t.discount)
        })
        .collect()
}

fn assert_transitions(b: &ReplayBuffer, expected: &[(f32, f32, f32, bool, f32)]) {
    let got = stored(b);
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for (g, e) in got.iter().zip(expected) {
        assert_eq!((g.0, g.2, g.3), (e.0, e.2, e.3), "{got:?}");
        assert!((g.1 - e.1).abs() < 1e-5 && (g.4 - e.4).abs() < 1e-6, "got {g:?}, expected {e:?}");
    }
}

#[test]
fn three_step_returns_ending_in_a_terminal_state() {
    let (mut acc, mut b) = setup(3);
    let counts = run(&mut acc, &mut b, 0, &[1.0, 2.0, 3.0, 4.0, 5.0], Some(true));
    // Nothing until three rewards are in; then one per step; the terminal
    // step flushes the three still pending.
    assert_eq!(counts, [0, 0, 1, 2, 5]);
    assert_transitions(
        &b,
        &[
            // 1 + 0.9 * 2 + 0.81 * 3, bootstrapped from s3 with 0.9^3.
            (0.0, 5.23, 3.0, false, 0.729),
            // 2 + 0.9 * 3 + 0.81 * 4, from s4.
            (1.0, 7.94, 4.0, false, 0.729),
            // 3 + 0.9 * 4 + 0.81 * 5, ending in the terminal s5: done.
            (2.0, 10.65, 5.0, true, 0.729),
            // Truncated sums: 4 + 0.9 * 5 and 5, with the discounts actually applied.
            (3.0, 8.5, 5.0, true, 0.81),
            (4.0, 5.0, 5.0, true, 0.9),
        ],
    );
    assert_eq!(acc.pending(), 0);
    assert_eq!(b.get(3).action, 3);
}

#[test]
fn three_step_returns_at_a_time_limit_still_bootstrap() {
    let (mut acc, mut b) = setup(3);
    run(&mut acc, &mut b, 0, &[1.0, 2.0, 3.0, 4.0, 5.0], Some(false));
    // The same sums, but not done: the target adds discount * V(s5).
    assert_transitions(
        &b,
        &[
            (0.0, 5.23, 3.0, false, 0.729),
            (1.0, 7.94, 4.0, false, 0.729),
            (2.0, 10.65, 5.0, false, 0.729),
            (3.0, 8.5, 5.0, false, 0.81),
            (4.0, 5.0, 5.0, false, 0.9),
        ],
    );
}

#[test]
fn an_episode_shorter_than_n() {
    let (mut acc, mut b) = setup(5);
    let counts = run(&mut acc, &mut b, 10, &[1.0, -1.0], Some(true));
    assert_eq!(counts, [0, 2]);
    assert_transitions(&b, &[(10.0, 1.0 - 0.9, 12.0, true, 0.81), (11.0, -1.0, 12.0, true, 0.9)]);
}

#[test]
fn terminal_wins_over_truncation() {
    let (mut acc, mut b) = setup(2);
    let s = Step {
        obs: &[0.0],
        action: 0,
        reward: 1.0,
        next_obs: &[1.0],
        next_mask: &[],
        terminated: true,
        truncated: true,
    };
    acc.push(&s, &mut b).unwrap();
    assert_transitions(&b, &[(0.0, 1.0, 1.0, true, 0.9)]);
}

#[test]
fn one_step_passes_transitions_through() {
    let (mut acc, mut b) = setup(1);
    let counts = run(&mut acc, &mut b, 0, &[1.0, 2.0, 3.0], Some(true));
    assert_eq!(counts, [1, 2, 3]);
    assert_transitions(&b, &[(0.0, 1.0, 1.0, false, 0.9), (1.0, 2.0, 2.0, false, 0.9), (2.0, 3.0, 3.0, true, 0.9)]);
}

#[test]
fn episodes_do_not_leak_into_each_other() {
    let (mut acc, mut b) = setup(2);
    run(&mut acc, &mut b, 0, &[1.0, 1.0, 1.0], Some(true));
    run(&mut acc, &mut b, 100, &[2.0, 2.0], Some(false));
    assert_transitions(
        &b,
        &[
            (0.0, 1.9, 2.0, false, 0.81),
            (1.0, 1.9, 3.0, true, 0.81),
            (2.0, 1.0, 3.0, true, 0.9),
            (100.0, 3.8, 102.0, false, 0.81),
            (101.0, 2.0, 102.0, false, 0.9),
        ],
    );
}

#[test]
fn an_explicit_flush_and_a_clear() {
    let (mut acc, mut b) = setup(4);
    run(&mut acc, &mut b, 0, &[1.0, 2.0], None);
    assert_eq!((b.len(), acc.pending()), (0, 2));
    acc.flush(false, &mut b).unwrap();
    assert_transitions(&b, &[(0.0, 2.8, 2.0, false, 0.81), (1.0, 2.0, 2.0, false, 0.9)]);
    run(&mut acc, &mut b, 5, &[1.0, 2.0], None);
    acc.clear();
    assert_eq!((b.len(), acc.pending()), (2, 0));
}

#[test]
fn gamma_zero_and_one() {
    for (gamma, expected) in [(0.0, (1.0, 0.0)), (1.0, (6.0, 1.0))] {
        let replay = ReplayConfig::new(10, 1, 4);
        let mut acc = NStepConfig { n: 3, gamma }.build(&replay).unwrap();
        let mut b = replay.build().unwrap();
        run(&mut acc, &mut b, 0, &[1.0, 2.0, 3.0], None);
        let t = b.get(0);
        assert_eq!((t.reward, t.discount), expected);
    }
}

#[test]
fn feeds_prioritized_replay_too() {
    let replay = ReplayConfig::new(10, 1, 4);
    let mut acc = NStepConfig { n: 2, gamma: 0.5 }.build(&replay).unwrap();
    let mut per = PrioritizedConfig::new(replay).build().unwrap();
    let s = Step {
        obs: &[0.0],
        action: 1,
        reward: 1.0,
        next_obs: &[1.0],
        next_mask: &[],
        terminated: false,
        truncated: false,
    };
    acc.push(&s, &mut per).unwrap();
    acc.push(&Step { obs: &[1.0], next_obs: &[2.0], terminated: true, ..s }, &mut per).unwrap();
    assert_eq!(per.len(), 2);
    assert_eq!(per.buffer().get(0).reward, 1.5);
    assert_eq!(per.priority(0), 1.0);
}

#[test]
fn bad_steps_and_configs_are_refused() {
    let replay = ReplayConfig::new(10, 2, 4);
    let cases = [
        (NStepConfig { n: 0, gamma: 0.9 }, "NStepConfig.n: expected a value in 1..=5, found 0"),
        (NStepConfig { n: 6, gamma: 0.9 }, "NStepConfig.n: expected a value in 1..=5, found 6"),
        (NStepConfig { n: 3, gamma: 1.5 }, "NStepConfig.gamma: expected a value in [0, 1], found 1.5"),
    ];
    for (config, message) in cases {
        assert_eq!(config.build(&replay).unwrap_err().to_string(), message);
    }
    let mut acc = NStepConfig { n: 1, gamma: 0.9 }.build(&replay).unwrap();
    let mut b = replay.build().unwrap();
    let s = Step {
        obs: &[0.0],
        action: 0,
        reward: 1.0,
        next_obs: &[1.0, 0.0],
        next_mask: &[],
        terminated: false,
        truncated: false,
    };
    assert_eq!(acc.push(&s, &mut b).unwrap_err().to_string(), "NStep::push: obs has 1 values, expected 2");
    let s = Step { obs: &[0.0, 0.0], action: 4, ..s };
    assert_eq!(acc.push(&s, &mut b).unwrap_err().to_string(), "NStep::push: action 4 is out of range, expected < 4");
    assert_eq!((acc.pending(), b.len()), (0, 0));
}
