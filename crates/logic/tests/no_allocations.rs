//! A warmed-up checkerboard training step allocates nothing, on any thread:
//! rollout memory comes from the workers' arenas, the hard program is
//! rebuilt in place, the optimiser updates flat buffers, and the worker
//! threads are woken without a job queue. Nor does a step of the
//! bit-parallel hard circuit (`logic_ca/hard`).

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_logic::{BitGrid, CheckerboardConfig, HardScratch, PatternTrainer, Rollout};
use rand::{Rng, SeedableRng};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn training_steps_allocate_nothing_after_warm_up() {
    for rollout in [Rollout::Recompute, Rollout::Store] {
        let config = CheckerboardConfig { rollout, ca_steps: 1, ..CheckerboardConfig::default() };
        let mut trainer = PatternTrainer::new(&config).unwrap();
        for _ in 0..2 {
            trainer.step().unwrap();
        }
        // Global counts: this is the only test of this binary, and the
        // workers run on the trainer's own threads.
        let (_, on_thread, global) = count_allocations(|| {
            // More steps than rayon's injector queue holds per block (63):
            // a queue that allocated as it fills would show.
            for _ in 0..70 {
                trainer.step().unwrap();
            }
        });
        assert_eq!(on_thread.allocations, 0, "{rollout:?}: {} bytes on the calling thread", on_thread.bytes);
        assert_eq!(global.allocations, 0, "{rollout:?}: {} bytes on all threads", global.bytes);

        // A circuit far from the initial wires: the pruned hard program
        // grows past anything seen in warm-up, within reserved memory.
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2);
        let ca = trainer.model_mut();
        for id in ca.layers().to_vec() {
            for row in ca.params_mut().value_mut(id).chunks_exact_mut(16) {
                // Ops that read both inputs, so little prunes away.
                row[[1, 2, 4, 6, 7, 8, 9, 11, 13, 14][rng.random_range(0..10)]] = 20.0;
            }
        }
        let (_, _, global) = count_allocations(|| {
            for _ in 0..3 {
                trainer.step().unwrap();
            }
        });
        assert_eq!(global.allocations, 0, "{rollout:?} with a large circuit: {} bytes", global.bytes);
    }
    // The other variants: fire masks (async) and drawn boards (Game of Life).
    let asynchronous = CheckerboardConfig {
        ca: minnow_logic::LogicCaConfig { height: 8, width: 8, ..CheckerboardConfig::asynchronous().ca },
        ca_steps: 3,
        batch: 2,
        ..CheckerboardConfig::asynchronous()
    };
    for config in [asynchronous, CheckerboardConfig::game_of_life()] {
        let mut trainer = PatternTrainer::new(&config).unwrap();
        for _ in 0..2 {
            trainer.step().unwrap();
        }
        let (_, _, global) = count_allocations(|| {
            for _ in 0..5 {
                trainer.step().unwrap();
            }
        });
        assert_eq!(global.allocations, 0, "{:?}: {} bytes", config.variant, global.bytes);
    }

    // A population of members, stepped together, with noisy logits and
    // part of the hard circuit in the forward pass (the options that draw
    // and mix); no member's batch is 100% right this early, so nothing is
    // offered to the keeper.
    let config = CheckerboardConfig {
        ca_steps: 2,
        population: 3,
        logit_noise: 0.3,
        hard_mix: 1.0,
        ..CheckerboardConfig::default()
    };
    let mut population = minnow_logic::Population::<PatternTrainer>::new(&config).unwrap();
    for _ in 0..2 {
        population.step().unwrap();
    }
    let (_, _, global) = count_allocations(|| {
        for _ in 0..5 {
            assert!(population.step().unwrap().iter().all(|r| r.hard_errors > 0));
        }
    });
    assert_eq!(global.allocations, 0, "population steps: {} bytes", global.bytes);

    // Members repaired after every step (the search, its rebuilds and
    // scoring, the write-back); none finds a 100% circuit this early.
    let config = CheckerboardConfig {
        ca_steps: 2,
        repair: minnow_logic::RepairConfig { every: 1, from: 0.0, grids: 2, evaluations: 40, ..Default::default() },
        ..CheckerboardConfig::default()
    };
    let mut population = minnow_logic::Population::<PatternTrainer>::new(&config).unwrap();
    for _ in 0..2 {
        population.step().unwrap();
    }
    let (_, _, global) = count_allocations(|| {
        for _ in 0..3 {
            population.step().unwrap();
        }
    });
    assert!(population.first_perfect().is_none());
    assert_eq!(global.allocations, 0, "population steps with repairs: {} bytes", global.bytes);

    // The shipped hard circuit on the benchmark's 512x512 grid.
    let program = minnow_logic::trained::checkerboard();
    let mut grid = BitGrid::new(512, 512, program.channels());
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    grid.fill_random(|| rng.random());
    let (mut next, mut scratch) = (grid.clone(), HardScratch::default());
    program.step(&grid, &mut next, &mut scratch);
    let (_, _, global) = count_allocations(|| {
        for _ in 0..10 {
            program.step(&grid, &mut next, &mut scratch);
            std::mem::swap(&mut grid, &mut next);
        }
    });
    assert_eq!(global.allocations, 0, "hard steps: {} bytes", global.bytes);

    repairs_on_a_damaged_set_allocate_nothing();
}

/// A repair that goes on to its second, damaged set (a circuit right on a
/// set of its own outputs, wrong on the checkerboard) allocates nothing
/// after its first run. Called from the test above: the global count
/// would see another test's allocations if they ran side by side.
fn repairs_on_a_damaged_set_allocate_nothing() {
    use minnow_logic::repair::{Repair, RepairSet};
    let config = minnow_logic::LogicCaConfig { height: 8, width: 8, ..Default::default() };
    let ca = minnow_logic::LogicCa::new(&config, 5).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(6);
    let mut start = BitGrid::new(8, 8, config.channels);
    start.fill_random(|| rng.random());
    // The target: channel 0 after the circuit's own 3 steps.
    let mut ops = vec![0; ca.circuit().params];
    ca.hard_ops(&mut ops);
    let program = minnow_logic::HardProgram::new(ca.circuit(), &ops, config.boundary, minnow_logic::Prune::None);
    let (mut a, mut b, mut scratch) = (start.clone(), start.clone(), HardScratch::default());
    for _ in 0..3 {
        program.step(&a, &mut b, &mut scratch);
        std::mem::swap(&mut a, &mut b);
    }
    let mut target = BitGrid::new(8, 8, 1);
    for i in 0..64 {
        target.set(0, i / 8, i % 8, a.get(0, i / 8, i % 8));
    }
    let first = RepairSet::new(vec![start], vec![target], Vec::new(), 3);
    let mut checkerboard = BitGrid::new(32, 32, 1);
    checkerboard.load(&minnow_logic::checkerboard(32, 32));
    let starts: Vec<BitGrid> = (0..2)
        .map(|_| {
            let mut g = BitGrid::new(32, 32, config.channels);
            g.fill_random(|| rng.random());
            g
        })
        .collect();
    let mut mask = BitGrid::new(32, 32, 1);
    mask.set(0, 16, 16, true);
    let damaged = RepairSet::new(starts, vec![checkerboard; 2], Vec::new(), 6).damaged(mask, 3);
    let mut repair = Repair::new(first, ca.circuit(), config.boundary).then(damaged, ca.circuit(), 30);
    let warm = repair.run(&ca, 100);
    assert_eq!(warm.errors_before, 0, "{warm:?}");
    assert!(warm.then_before.is_some_and(|e| e > 0), "{warm:?}");
    let (outcome, _, global) = count_allocations(|| repair.run(&ca, 100));
    assert_eq!(outcome, warm);
    assert!(outcome.evaluations > 0, "{outcome:?}");
    assert_eq!(global.allocations, 0, "repairs on a damaged set: {} bytes", global.bytes);
}
