//! The two-thread workloads compute what one thread does, bit for bit (the
//! split ones), and allocate nothing on any thread once warmed up (one test in this binary,
//! so the count over all threads sees only it).

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_benches::Workload;
use minnow_benches::workloads::mcts::MctsBackgammonThreads;
use minnow_benches::workloads::{az::AzForward, dqn};
use minnow_kernels::{Par, View, ViewMut};
use minnow_rl::mcts::Inference;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn two_threads_match_one_and_allocate_nothing() {
    for (one, two) in [(dqn::cube(), dqn::cube().with_threads(2)), (dqn::game2048(), dqn::game2048().with_threads(2))] {
        let (mut one, mut two) = (one, two);
        for step in 0..8 {
            let (a, b) = (one.step().unwrap(), rayon::scope(|_| two.step()).unwrap());
            assert_eq!(a.to_bits(), b.to_bits(), "{} step {step}: loss {a} on one thread, {b} on two", two.name());
        }
    }
    let bits = |w: &AzForward| {
        let (policy, value) = w.outputs();
        policy.iter().chain(value).map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    let mut workloads: Vec<Box<dyn Workload>> =
        vec![Box::new(dqn::cube().with_threads(2)), Box::new(dqn::game2048().with_threads(2))];
    for build in [AzForward::new, AzForward::bf16] {
        let (mut one, mut two) = (build(64), build(64).with_threads(2));
        one.run();
        two.run();
        assert!(bits(&one) == bits(&two), "{} differs from one thread", two.name());
        workloads.push(Box::new(two));
    }
    // faer keeps a packing buffer per thread, allocated by its first
    // product there: warm every worker, as the harness's one-second warm-up
    // does.
    rayon::broadcast(|_| {
        let (a, b) = (vec![0.5; 64 * 140], vec![0.25; 676 * 140]);
        let mut c = vec![0.0; 64 * 676];
        let (a, b) = (View::new(&a, 64, 140), View::new(&b, 676, 140).t());
        minnow_kernels::gemm(ViewMut::new(&mut c, 64, 676), 0.0, a, b, 1.0, Par::Seq);
    });
    // Inside rayon's pool, as the benchmark harness runs them.
    rayon::scope(|_| {
        for w in &mut workloads {
            // Long enough for the second worker to wake and steal: its first
            // steal allocates, once per thread.
            for _ in 0..50 {
                w.run();
            }
            let (_, _, all) = count_allocations(|| {
                for _ in 0..20 {
                    w.run();
                }
            });
            assert_eq!(all.allocations, 0, "{}: {} bytes allocated", w.name(), all.bytes);
        }
        // Self-play on two threads: a call lasts long enough for both
        // workers to take part from the first.
        for inference in [Inference::F32, Inference::Bf16] {
            let mut play = MctsBackgammonThreads::new(inference);
            for _ in 0..3 {
                play.step();
            }
            let (sims, _, all) = count_allocations(|| (0..5).map(|_| play.step()).sum::<u64>());
            assert_eq!(sims, 5 * 2 * 64 * 100);
            assert_eq!(all.allocations, 0, "{}: {} bytes allocated", play.name(), all.bytes);
        }
    });
}
