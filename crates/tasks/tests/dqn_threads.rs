//! A DQN run on two threads (its large matrix products and Adam split, the
//! target network's forward beside the online one's) learns exactly what
//! the one-thread run learns, with double DQN and without, and its steps
//! allocate nothing on any thread. One test per file: the count covers
//! every thread.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_envs::{Cube2, Cube2Config};
use minnow_rl::dqn::{DqnConfig, DqnRun, MemoryConfig, QNetworkConfig};
use minnow_tasks::CubeDqn;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn two_threads_match_one_and_allocate_nothing() {
    let env = CubeDqn(Cube2::new(Cube2Config { scramble_depth: 4, max_steps: 8, ..Cube2Config::default() }).unwrap());
    // Large enough that every product splits (256 x 144 x 512 and up).
    let config = |threads, double| DqnConfig {
        threads,
        double,
        network: QNetworkConfig { hidden: vec![512, 256], ..QNetworkConfig::default() },
        batch_size: 256,
        replay: MemoryConfig { capacity: 5_000, ..MemoryConfig::default() },
        learning_starts: 512,
        num_envs: 64,
        n_step: 1,
        checkpoint_every: 1_000_000,
        env_steps: 1_000_000,
        ..DqnConfig::default()
    };
    for double in [false, true] {
        let mut one = DqnRun::new(&config(1, double), env.clone()).unwrap();
        let mut two = DqnRun::new(&config(2, double), env.clone()).unwrap();
        for _ in 0..30 {
            one.step().unwrap();
            two.step().unwrap();
        }
        assert!(two.learner().updates() > 10);
        assert!(one.learner().params().values() == two.learner().params().values(), "double {double}: differs");
    }
    let mut two = DqnRun::new(&config(2, true), env).unwrap();
    // Run on a worker of rayon's pool, as `cargo xtask train` does: a
    // thread outside the pool hands each split to the pool's shared queue,
    // which allocates a block every 63 jobs.
    let (_, _, all_threads) = rayon::scope(|_| {
        for _ in 0..10 {
            two.step().unwrap();
        }
        count_allocations(|| {
            for _ in 0..20 {
                two.step().unwrap();
            }
        })
    });
    assert_eq!(all_threads.allocations, 0, "{} bytes allocated", all_threads.bytes);
}
