//! The cube solver's searches (weighted A* with a network, bidirectional
//! BFS) allocate nothing once warmed up.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_envs::{CubeDistances, CubeState};
use minnow_rl::puzzle::{BidirectionalBfs, CostToGoConfig, LearnedHeuristic, Puzzle, SearchConfig, WeightedAStar};
use minnow_tasks::cube_solver::Cube;
use rand::SeedableRng;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn a_search_with_a_network_allocates_nothing() {
    let mut params = minnow_nn::Params::new();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
    let net = CostToGoConfig { hidden: 32, width: 16, blocks: 1 }
        .init(&mut params, Cube.observation_size(), &mut rng)
        .unwrap();
    let mut heuristic = LearnedHeuristic::new(net, params);
    let mut astar = WeightedAStar::new(&Cube, SearchConfig { lambda: 0.6, batch: 8 }).unwrap();
    let mut bfs = BidirectionalBfs::new(&Cube);
    let starts: Vec<CubeState> = (1..=4).flat_map(|d| CubeDistances::get().evaluation_set(d, 3, 5).unwrap()).collect();
    let mut solve_all = || {
        for &s in &starts {
            astar.solve(&Cube, &mut heuristic, s).unwrap();
            bfs.solve(&Cube, s).unwrap();
        }
    };
    solve_all();
    let (_, on_thread, _) = count_allocations(&mut solve_all);
    assert_eq!(on_thread.allocations, 0, "{} bytes allocated", on_thread.bytes);
}
