//! The generic puzzle machinery on a puzzle with known distances: A* with
//! exact distances is optimal, every search finishes, bidirectional BFS is
//! optimal, value-iteration targets follow the Bellman rule, training
//! learns the distances, and a resumed run continues exactly.

use minnow_rl::puzzle::{
    AdjacentSwaps, BidirectionalBfs, CostToGoConfig, Heuristic, Puzzle, SearchConfig, TargetRule, ValueIteration,
    ValueIterationConfig, WeightedAStar, bellman_targets, greedy_solve, load_cost_to_go,
};
use minnow_train::{RunCheckpoint, RunCheckpointWriter};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn check_path(p: &AdjacentSwaps, start: u32, path: &[usize], length: usize) {
    assert_eq!(path.len(), length);
    assert!(p.is_goal(path.iter().fold(start, |s, &a| p.apply(s, a))), "path {path:?} does not solve {start:x}");
}

#[test]
fn astar_with_exact_distances_is_optimal() {
    let p = AdjacentSwaps::new(6).unwrap();
    for batch in [1, 8] {
        let mut search = WeightedAStar::new(&p, SearchConfig { lambda: 1.0, batch }).unwrap();
        let mut exact = |s| p.distance(s) as f32;
        for &start in p.all_states().iter().step_by(7) {
            let solution = search.solve(&p, &mut exact, start).unwrap();
            assert_eq!(solution.length, p.distance(start), "batch {batch} from {start:x}");
            check_path(&p, start, search.path(), solution.length);
            // An exact heuristic walks straight down: one expansion per move
            // (per batch when several nodes share the lowest f).
            assert!(solution.expanded <= (batch * solution.length) as u64 + 1, "{solution:?}");
        }
    }
}

#[test]
fn uniform_cost_search_is_optimal_and_expands_more() {
    let p = AdjacentSwaps::new(5).unwrap();
    let mut search = WeightedAStar::new(&p, SearchConfig { lambda: 1.0, batch: 1 }).unwrap();
    let mut blind = |_| 0.0f32;
    let mut exact = |s| p.distance(s) as f32;
    let start = p.all_states()[119];
    let blind_solution = search.solve(&p, &mut blind, start).unwrap();
    assert_eq!(blind_solution.length, 10);
    let guided = search.solve(&p, &mut exact, start).unwrap();
    assert_eq!(guided.length, 10);
    assert!(guided.expanded * 5 < blind_solution.expanded, "{guided:?} vs {blind_solution:?}");
}

#[test]
fn weighted_search_with_a_bad_heuristic_always_finishes() {
    let p = AdjacentSwaps::new(6).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let noise: Vec<f32> = (0..p.state_count()).map(|_| rng.random_range(0.0..20.0)).collect();
    let mut misleading = |s| noise[p.index(s)];
    for (lambda, batch) in [(0.0, 1), (0.3, 4), (1.0, 16)] {
        let mut search = WeightedAStar::new(&p, SearchConfig { lambda, batch }).unwrap();
        for &start in p.all_states().iter().step_by(31) {
            let solution = search.solve(&p, &mut misleading, start).unwrap();
            check_path(&p, start, search.path(), solution.length);
            assert!(solution.length >= p.distance(start));
            assert!(solution.expanded as usize <= p.state_count() * 2);
        }
    }
}

#[test]
fn bidirectional_bfs_is_optimal() {
    let p = AdjacentSwaps::new(6).unwrap();
    let mut bfs = BidirectionalBfs::new(&p);
    for &start in &p.all_states() {
        let (length, expanded) = bfs.solve(&p, start).unwrap();
        assert_eq!(length, p.distance(start), "from {start:x}");
        assert!(expanded as usize <= p.state_count());
    }
}

#[test]
fn search_configs_are_validated() {
    let p = AdjacentSwaps::new(4).unwrap();
    let err = WeightedAStar::new(&p, SearchConfig { lambda: 1.0, batch: 0 }).unwrap_err().to_string();
    assert!(err.contains("SearchConfig.batch"), "{err}");
    let err = WeightedAStar::new(&p, SearchConfig { lambda: f32::NAN, batch: 1 }).unwrap_err().to_string();
    assert!(err.contains("SearchConfig.lambda"), "{err}");
}

#[test]
fn bellman_targets_take_the_best_child_plus_one() {
    // Two states with three children each: the first has a goal child, the
    // second's best child is estimated at 2.5 (a negative estimate reads 0).
    let values = [4.0, 7.0, 1.0, 2.5, 9.0, 3.0];
    let goal = [false, false, true, false, false, false];
    let mut out = [0.0; 2];
    bellman_targets(&values, &goal, &[false, false], &mut out);
    assert_eq!(out, [1.0, 3.5]);
    bellman_targets(&[-2.0, 5.0, 5.0, 5.0, 5.0, 5.0], &[false; 6], &[false, true], &mut out);
    assert_eq!(out, [1.0, 0.0]);
}

fn small_config(steps: u64) -> ValueIterationConfig {
    ValueIterationConfig {
        net: CostToGoConfig { hidden: 64, width: 32, blocks: 1 },
        batch_size: 64,
        max_scramble: 12,
        steps,
        lr: 3e-3,
        final_lr: 3e-4,
        target: TargetRule { check_every: 10, loss_below: 0.05, max_age: 50 },
        seed: 5,
    }
}

#[test]
fn one_move_walks_have_target_one() {
    let p = AdjacentSwaps::new(5).unwrap();
    let config = ValueIterationConfig { max_scramble: 1, ..small_config(1) };
    let mut learner = ValueIteration::new(&config, p.observation_size(), p.moves()).unwrap();
    learner.step(&p).unwrap();
    assert!(learner.last_targets().iter().all(|&y| y == 1.0), "{:?}", learner.last_targets());
}

#[test]
fn value_iteration_learns_the_distances_without_labels() {
    let p = AdjacentSwaps::new(5).unwrap();
    let mut learner = ValueIteration::new(&small_config(1500), p.observation_size(), p.moves()).unwrap();
    while !learner.is_done() {
        learner.step(&p).unwrap();
    }
    let states = p.all_states();
    let mut h = learner.heuristic();
    let mut values = vec![0.0; states.len()];
    h.estimate(&p, &states, &mut values).unwrap();
    let mae = states.iter().zip(&values).map(|(&s, &v)| (v - p.distance(s) as f32).abs()).sum::<f32>() / 120.0;
    assert!(mae < 0.5, "mean absolute error {mae}");
    let mut moves = vec![None; states.len()];
    greedy_solve(&p, &mut h, &states, 20, &mut moves).unwrap();
    let optimal = states.iter().zip(&moves).filter(|&(&s, m)| *m == Some(p.distance(s))).count();
    assert!(optimal >= 110, "greedy optimal from {optimal} of 120");
}

#[test]
fn a_resumed_run_continues_exactly() {
    let p = AdjacentSwaps::new(5).unwrap();
    let config = small_config(40);
    let dir = std::env::temp_dir().join(format!("minnow-vi-resume-{}", std::process::id()));
    let path = dir.join("checkpoint.safetensors");
    let mut straight = ValueIteration::new(&config, p.observation_size(), p.moves()).unwrap();
    for _ in 0..20 {
        straight.step(&p).unwrap();
    }
    let mut writer = RunCheckpointWriter::new("swaps", &config.identity(), straight.steps());
    straight.save_state::<AdjacentSwaps>(&mut writer).unwrap();
    writer.save(&path).unwrap();
    let resume = |config: &ValueIterationConfig| -> Result<ValueIteration, String> {
        let checkpoint = RunCheckpoint::load(&path, "swaps", &config.identity()).map_err(|e| e.to_string())?;
        let mut run = ValueIteration::new(config, p.observation_size(), p.moves()).unwrap();
        run.restore_state::<AdjacentSwaps>(&checkpoint).map_err(|e| e.to_string())?;
        Ok(run)
    };
    let mut resumed = resume(&config).unwrap();
    assert_eq!(resumed.steps(), 20);
    for _ in 0..20 {
        let (a, b) = (straight.step(&p).unwrap(), resumed.step(&p).unwrap());
        assert_eq!(a, b);
    }
    assert_eq!(straight.params().values(), resumed.params().values());
    let (saved, h) = load_cost_to_go(&p, &path).unwrap();
    assert_eq!(saved, config);
    assert_eq!(h.network(), straight.network());
    // Another network shape is refused.
    let other = ValueIterationConfig { net: CostToGoConfig { width: 16, ..config.net }, ..config.clone() };
    let err = resume(&other).unwrap_err();
    assert!(err.contains("trained with"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
