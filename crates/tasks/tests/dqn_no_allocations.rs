//! A DQN run's steps (acting, n-step, replay, update) allocate nothing
//! once warmed up.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_envs::{Cube2, Cube2Config, Env, Game2048, Game2048Config};
use minnow_rl::dqn::{DqnConfig, DqnEnv, DqnRun, MemoryConfig, QNetworkConfig};
use minnow_tasks::{CubeDqn, Game2048Dqn};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn assert_steps_allocate_nothing<E: DqnEnv>(config: DqnConfig, env: E) {
    let mut run = DqnRun::new(&config, env).unwrap();
    // Past learning_starts and through a few episode ends.
    for _ in 0..2000 {
        run.step().unwrap();
    }
    assert!(run.learner().updates() > 0);
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..300 {
            run.step().unwrap();
        }
    });
    assert_eq!(on_thread.allocations, 0, "{}: {} bytes allocated", E::NAME, on_thread.bytes);
}

fn config(prioritized: bool) -> DqnConfig {
    DqnConfig {
        network: QNetworkConfig { hidden: vec![64, 32], ..QNetworkConfig::default() },
        batch_size: 32,
        replay: MemoryConfig { capacity: 5_000, prioritized, ..MemoryConfig::default() },
        learning_starts: 100,
        num_envs: 4,
        checkpoint_every: 1_000_000,
        env_steps: 1_000_000,
        ..DqnConfig::default()
    }
}

#[test]
fn cube_steps_allocate_nothing() {
    let env = CubeDqn(Cube2::new(Cube2Config { scramble_depth: 3, max_steps: 6, ..Cube2Config::default() }).unwrap());
    assert_steps_allocate_nothing(config(true), env);
}

#[test]
fn cube_all_actions_steps_allocate_nothing() {
    let env = CubeDqn(Cube2::new(Cube2Config { scramble_depth: 3, max_steps: 6, ..Cube2Config::default() }).unwrap());
    assert_steps_allocate_nothing(DqnConfig { all_actions: true, n_step: 1, ..config(false) }, env);
}

#[test]
fn game2048_steps_allocate_nothing() {
    assert_steps_allocate_nothing(config(false), Game2048Dqn(Game2048::new(Game2048Config::default()).unwrap()));
}

#[test]
fn game2048_afterstate_steps_allocate_nothing() {
    let config = DqnConfig { afterstates: true, n_step: 1, ..config(true) };
    assert_steps_allocate_nothing(config, Game2048Dqn(Game2048::new(Game2048Config::default()).unwrap()));
}

#[test]
fn cube_symmetric_eval_allocates_nothing_after_warm_up() {
    let env = CubeDqn(Cube2::new(Cube2Config { scramble_depth: 5, ..Cube2Config::default() }).unwrap());
    let mut run = DqnRun::new(&DqnConfig { symmetric_eval: true, ..config(false) }, env.clone()).unwrap();
    let mut obs = vec![0.0; 144 * 16];
    let masks = [0b11_1111; 16];
    let mut actions = [0u32; 16];
    let mut env = env;
    for (seed, row) in obs.chunks_exact_mut(144).enumerate() {
        env.reset(seed as u64);
        env.observe(row);
    }
    run.learner_mut().eval_greedy(&env, &obs, &masks, &mut actions).unwrap();
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..10 {
            run.learner_mut().eval_greedy(&env, &obs, &masks, &mut actions).unwrap();
        }
    });
    assert_eq!(on_thread.allocations, 0, "{} bytes allocated", on_thread.bytes);
}
