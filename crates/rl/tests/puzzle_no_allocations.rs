//! A value-iteration step and a weighted A* search guided by a network
//! allocate nothing once warmed up.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_rl::puzzle::{
    AdjacentSwaps, CostToGoConfig, Puzzle, SearchConfig, TargetRule, ValueIteration, ValueIterationConfig,
    WeightedAStar,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn value_iteration_steps_and_searches_allocate_nothing() {
    let p = AdjacentSwaps::new(6).unwrap();
    let config = ValueIterationConfig {
        net: CostToGoConfig { hidden: 32, width: 16, blocks: 1 },
        batch_size: 32,
        max_scramble: 10,
        steps: 1000,
        lr: 1e-3,
        final_lr: 1e-4,
        target: TargetRule { check_every: 5, loss_below: 0.05, max_age: 10 },
        seed: 1,
    };
    let mut learner = ValueIteration::new(&config, p.observation_size(), p.moves()).unwrap();
    for _ in 0..3 {
        learner.step(&p).unwrap();
    }
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..50 {
            learner.step(&p).unwrap();
        }
    });
    assert_eq!(on_thread.allocations, 0, "value iteration: {} bytes", on_thread.bytes);

    let mut h = learner.heuristic();
    let mut search = WeightedAStar::new(&p, SearchConfig { lambda: 0.6, batch: 8 }).unwrap();
    let starts: Vec<_> = p.all_states().into_iter().step_by(37).collect();
    for &s in &starts {
        search.solve(&p, &mut h, s).unwrap();
    }
    let (_, on_thread, _) = count_allocations(|| {
        for &s in &starts {
            search.solve(&p, &mut h, s).unwrap();
        }
    });
    assert_eq!(on_thread.allocations, 0, "search: {} bytes", on_thread.bytes);
}
