//! The benchmarked workloads allocate nothing once warmed up.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_benches::workloads::{az::AzForward, dqn};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn assert_steady_state_allocates_nothing(name: &str, mut step: impl FnMut()) {
    for _ in 0..3 {
        step();
    }
    // Per thread: the workloads are single-threaded, and the other test of
    // this binary runs concurrently.
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..20 {
            step();
        }
    });
    assert_eq!(on_thread.allocations, 0, "{name}: {} bytes allocated on this thread", on_thread.bytes);
}

#[test]
fn dqn_steps_allocate_nothing() {
    for mut w in [dqn::cube(), dqn::game2048()] {
        assert_steady_state_allocates_nothing("dqn_step", || {
            w.step().unwrap();
        });
    }
}

#[test]
fn az_forward_allocates_nothing() {
    for batch in [1, 8, 64] {
        for mut w in [AzForward::new(batch), AzForward::bf16(batch)] {
            assert_steady_state_allocates_nothing("az_forward", || w.evaluate().unwrap());
        }
    }
}

#[test]
fn mcts_backgammon_allocates_nothing_per_simulation() {
    use minnow_benches::workloads::mcts::SelfPlay;
    use minnow_rl::mcts::Inference;
    for inference in [Inference::F32, Inference::Bf16] {
        let mut play = SelfPlay::with_inference(3, inference);
        // Warm-up: the evaluator's tape and buffers reach their largest batch.
        for _ in 0..3 {
            play.step();
        }
        let (sims, on_thread, _) = count_allocations(|| (0..20).map(|_| play.step()).sum::<u64>());
        assert_eq!(sims, 20 * 64 * 100);
        let bytes = on_thread.bytes;
        assert_eq!(on_thread.allocations, 0, "mcts/backgammon {inference:?}: {bytes} bytes over {sims} simulations");
    }
}
