//! The two-thread workloads compute what one thread does, bit for bit, and
//! allocate nothing on any thread once warmed up (one test in this binary,
//! so the count over all threads sees only it).

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_benches::Workload;
use minnow_benches::workloads::{az::AzForward, dqn};

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
    let (mut one, mut two) = (AzForward::new(64), AzForward::new(64).with_threads(2));
    one.run();
    two.run();
    let bits = |w: &AzForward| {
        let (policy, value) = w.outputs();
        policy.iter().chain(value).map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    assert!(bits(&one) == bits(&two), "az_forward/b64/2thr differs from one thread");

    let mut workloads: Vec<Box<dyn Workload>> =
        vec![Box::new(dqn::cube().with_threads(2)), Box::new(dqn::game2048().with_threads(2)), Box::new(two)];
    // Inside rayon's pool, as the benchmark harness runs them.
    rayon::scope(|_| {
        for w in &mut workloads {
            for _ in 0..3 {
                w.run();
            }
            let (_, _, all) = count_allocations(|| {
                for _ in 0..20 {
                    w.run();
                }
            });
            assert_eq!(all.allocations, 0, "{}: {} bytes allocated", w.name(), all.bytes);
        }
    });
}
