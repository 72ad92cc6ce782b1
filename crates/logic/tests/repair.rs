//! The discrete repair: it never makes a circuit worse on its set, it
//! finds a broken gate the logits rank as a close second, it reproduces,
//! a second (damaged) set fixes what the first cannot see, and its config
//! is checked.

use minnow_logic::repair::{Repair, RepairSet, write_op};
use minnow_logic::repair_set;
use minnow_logic::{BitGrid, Boundary, CheckerboardConfig, HardProgram, HardScratch, LogicCa, LogicCaConfig, Prune};
use rand::{Rng, SeedableRng};

/// A small CA: 8x8, 2 channels, 2 kernels.
fn small() -> LogicCaConfig {
    LogicCaConfig {
        height: 8,
        width: 8,
        channels: 2,
        kernels: 2,
        perception: vec![8, 4, 2],
        update: vec![8, 4, 2],
        ..LogicCaConfig::default()
    }
}

/// Gives every gate of `ca` a random op as its argmax (the other logits
/// stay as initialised).
fn random_ops(ca: &mut LogicCa, seed: u64) -> Vec<u8> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let ops: Vec<u8> = (0..ca.circuit().params).map(|_| rng.random_range(0..16)).collect();
    for (p, &op) in ops.iter().enumerate() {
        write_op(ca, p, op);
    }
    ops
}

/// Random start grids with channel 0 after `steps` steps of `truth` as the
/// targets.
fn set_of(truth: &HardProgram, ca: &LogicCaConfig, grids: usize, steps: usize, seed: u64) -> RepairSet {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let (mut starts, mut targets) = (Vec::new(), Vec::new());
    let mut scratch = HardScratch::default();
    for _ in 0..grids {
        let mut start = BitGrid::new(ca.height, ca.width, ca.channels);
        start.fill_random(|| rng.random());
        let (mut a, mut b) = (start.clone(), start.clone());
        for _ in 0..steps {
            truth.step(&a, &mut b, &mut scratch);
            std::mem::swap(&mut a, &mut b);
        }
        let mut target = BitGrid::new(ca.height, ca.width, 1);
        for r in 0..ca.height {
            for c in 0..ca.width {
                target.set(0, r, c, a.get(0, r, c));
            }
        }
        starts.push(start);
        targets.push(target);
    }
    RepairSet::new(starts, targets, Vec::new(), steps)
}

#[test]
fn finds_a_broken_gate_ranked_second() {
    let config = small();
    let mut ca = LogicCa::new(&config, 3).unwrap();
    let truth_ops = random_ops(&mut ca, 4);
    let truth = HardProgram::new(ca.circuit(), &truth_ops, Boundary::Zero, Prune::None);
    let set = set_of(&truth, &config, 8, 3, 5);
    let mut repair = Repair::new(set, ca.circuit(), Boundary::Zero);
    assert_eq!(repair.errors(ca.circuit(), &truth_ops), 0);
    // The first gate whose op changes the result: break it, with its true
    // op the logits' close second.
    let mut broken = truth_ops.clone();
    let p = (0..broken.len())
        .find(|&p| {
            broken[p] = (truth_ops[p] + 7) % 16;
            let wrong = repair.errors(ca.circuit(), &broken) > 0;
            if !wrong {
                broken[p] = truth_ops[p];
            }
            wrong
        })
        .expect("some gate matters");
    let offset = ca.logit_offsets()[p];
    let logits = &mut ca.params_mut().values_mut()[offset..offset + 16];
    logits[broken[p] as usize] = 20.0;
    logits[truth_ops[p] as usize] = 19.5;
    let outcome = repair.run(&ca, 10_000);
    assert!(outcome.errors_before > 0);
    assert_eq!(outcome.errors_after, 0, "{outcome:?}");
    assert_eq!(outcome.evaluations, 1, "the close second is tried first: {outcome:?}");
    assert_eq!(repair.ops(), &truth_ops[..]);
}

/// A gate broken so that the first set cannot see it (its grids run one
/// step) but the second can (more steps, larger grids, damage): a repair
/// with only the first set has nothing to do; with the second it finds
/// the gate's true op, the logits' close second, and keeps the first set
/// right.
#[test]
fn a_second_set_fixes_what_the_first_cannot_see() {
    let config = small();
    // A wiring where channel 0 reads other channels (a random circuit
    // often reads only itself, and then one step sees every change).
    let mut ca = LogicCa::new(&config, 30).unwrap();
    let truth_ops = random_ops(&mut ca, 31);
    let truth = HardProgram::new(ca.circuit(), &truth_ops, Boundary::Zero, Prune::None);
    let first = set_of(&truth, &config, 1, 1, 23);
    let large = LogicCaConfig { height: 16, width: 16, ..config.clone() };
    let mut mask = BitGrid::new(16, 16, 1);
    for r in 6..10 {
        for c in 6..10 {
            mask.set(0, r, c, true);
        }
    }
    let damaged = {
        // Targets from the truth run with the same damage.
        let mut rng = rand_pcg::Pcg64::seed_from_u64(24);
        let (mut starts, mut targets) = (Vec::new(), Vec::new());
        let mut scratch = HardScratch::default();
        for _ in 0..3 {
            let mut start = BitGrid::new(16, 16, large.channels);
            start.fill_random(|| rng.random());
            let (mut a, mut b) = (start.clone(), start.clone());
            for t in 0..6 {
                truth.step(&a, &mut b, &mut scratch);
                if t < 3 {
                    b.clear_rect(6..10, 6..10);
                }
                std::mem::swap(&mut a, &mut b);
            }
            let mut target = BitGrid::new(16, 16, 1);
            for i in 0..256 {
                target.set(0, i / 16, i % 16, a.get(0, i / 16, i % 16));
            }
            starts.push(start);
            targets.push(target);
        }
        RepairSet::new(starts, targets, Vec::new(), 6).damaged(mask, 3)
    };
    let mut repair = Repair::new(first.clone(), ca.circuit(), Boundary::Zero).then(damaged, ca.circuit(), 10_000);
    assert_eq!(repair.errors(ca.circuit(), &truth_ops), 0);
    assert_eq!(repair.then_errors(ca.circuit(), &truth_ops), Some(0));
    let mut broken = truth_ops.clone();
    let p = (0..broken.len() * 15)
        .find_map(|k| {
            let p = k / 15;
            broken[p] = (truth_ops[p] + 1 + (k % 15) as u8) % 16;
            let hidden = repair.errors(ca.circuit(), &broken) == 0
                && repair.then_errors(ca.circuit(), &broken).is_some_and(|e| e > 0);
            if !hidden {
                broken[p] = truth_ops[p];
            }
            hidden.then_some(p)
        })
        .expect("some gate matters only beyond the first set");
    let offset = ca.logit_offsets()[p];
    let logits = &mut ca.params_mut().values_mut()[offset..offset + 16];
    logits[broken[p] as usize] = 20.0;
    logits[truth_ops[p] as usize] = 19.5;

    let mut alone = Repair::new(first, ca.circuit(), Boundary::Zero);
    let outcome = alone.run(&ca, 10_000);
    assert_eq!((outcome.errors_before, outcome.evaluations, outcome.then_before), (0, 0, None), "{outcome:?}");
    assert_eq!(alone.ops(), &broken[..]);

    let outcome = repair.run(&ca, 10_000);
    assert_eq!((outcome.errors_before, outcome.errors_after), (0, 0), "{outcome:?}");
    assert!(outcome.then_before.is_some_and(|e| e > 0), "{outcome:?}");
    assert_eq!(outcome.then_after, Some(0), "{outcome:?}");
    assert_eq!(outcome.evaluations, 1, "the close second is tried first: {outcome:?}");
    assert_eq!(repair.ops(), &truth_ops[..]);
}

#[test]
fn never_makes_a_circuit_worse_and_reproduces() {
    let config = CheckerboardConfig {
        ca: small(),
        ca_steps: 4,
        repair: minnow_logic::RepairConfig { grids: 6, ..Default::default() },
        ..CheckerboardConfig::default()
    };
    for seed in 0..4 {
        let mut ca = LogicCa::new(&config.ca, seed).unwrap();
        let ops = random_ops(&mut ca, seed + 100);
        // Random logits below the argmax: an arbitrary candidate order.
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed + 200);
        for p in 0..ops.len() {
            let offset = ca.logit_offsets()[p];
            for (k, l) in ca.params_mut().values_mut()[offset..offset + 16].iter_mut().enumerate() {
                if k != ops[p] as usize {
                    *l = rng.random_range(-5.0..5.0);
                }
            }
        }
        let set = repair_set(&CheckerboardConfig { seed, ..config.clone() });
        let cells = set.cells();
        let mut repair = Repair::new(set.clone(), ca.circuit(), Boundary::Zero);
        let before = repair.errors(ca.circuit(), &ops);
        let outcome = repair.run(&ca, 300);
        assert_eq!(outcome.errors_before, before);
        assert!(outcome.errors_after <= before, "{outcome:?}");
        assert!(outcome.evaluations <= 300, "{outcome:?}");
        let repaired = repair.ops().to_vec();
        let changed = repaired.iter().zip(&ops).filter(|(a, b)| a != b).count();
        assert_eq!(outcome.changes, changed);
        // Recounted from scratch, on a fresh search state.
        let mut fresh = Repair::new(set, ca.circuit(), Boundary::Zero);
        assert_eq!(fresh.errors(ca.circuit(), &repaired), outcome.errors_after);
        assert!(outcome.errors_after < cells);
        // The same search again: the same result.
        assert_eq!(fresh.run(&ca, 300), outcome);
        assert_eq!(fresh.ops(), &repaired[..]);
        // Written back, the repaired ops are the argmax circuit.
        for (p, &op) in repaired.iter().enumerate() {
            write_op(&mut ca, p, op);
        }
        let mut argmax = vec![0; repaired.len()];
        ca.hard_ops(&mut argmax);
        assert_eq!(argmax, repaired);
    }
}

#[test]
fn repair_config_errors_name_the_key() {
    for (json, key) in [
        (r#"{"repair": {"grids": 0}}"#, "repair.grids"),
        (r#"{"repair": {"evaluations": 0}}"#, "repair.evaluations"),
        (r#"{"repair": {"from": 1.5}}"#, "repair.from"),
        (r#"{"repair": {"damaged_evaluations": 0}}"#, "repair.damaged_evaluations"),
        (r#"{"variant": "async", "repair": {"every": 5, "damaged_grids": 1}}"#, "repair.damaged_grids"),
    ] {
        let err = CheckerboardConfig::from_json(json).unwrap_err().to_string();
        assert!(err.contains(key), "{json}: {err}");
    }
    // Off, the other keys are not checked.
    CheckerboardConfig::from_json(r#"{"repair": {"every": 0, "grids": 0}}"#).unwrap();
    CheckerboardConfig::from_json(r#"{"repair": {"damaged_grids": 0, "damaged_evaluations": 0}}"#).unwrap();
}

/// Scored packed (several grids per tiled grid, the last pack part
/// empty), a circuit gets exactly the errors of its grids run one by one,
/// synchronously, with fire masks and with damage.
#[test]
fn packed_scoring_counts_each_grid_as_run_alone() {
    let config = LogicCaConfig { height: 16, width: 16, ..small() };
    let mut ca = LogicCa::new(&config, 11).unwrap();
    let ops = random_ops(&mut ca, 12);
    let program = HardProgram::new(ca.circuit(), &ops, Boundary::Zero, Prune::None);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(13);
    let (grids, steps) = (19, 3);
    let random = |rng: &mut rand_pcg::Pcg64, channels| {
        let mut g = BitGrid::new(16, 16, channels);
        g.fill_random(|| rng.random());
        g
    };
    let starts: Vec<BitGrid> = (0..grids).map(|_| random(&mut rng, config.channels)).collect();
    let targets: Vec<BitGrid> = (0..grids).map(|_| random(&mut rng, 1)).collect();
    let fires: Vec<BitGrid> = (0..grids * steps).map(|_| random(&mut rng, 1)).collect();
    let mut mask = BitGrid::new(16, 16, 1);
    for (r, c) in [(3, 4), (3, 5), (4, 4), (9, 12), (15, 0)] {
        mask.set(0, r, c, true);
    }
    for (asynchronous, damaged) in [(false, false), (true, false), (false, true)] {
        let mut expected = 0;
        let mut scratch = HardScratch::default();
        for (g, (start, target)) in starts.iter().zip(&targets).enumerate() {
            let mut a = start.clone();
            for t in 0..steps {
                let mut b = a.clone();
                program.step(&a, &mut b, &mut scratch);
                if asynchronous {
                    b.keep_unfired(&a, &fires[g * steps + t]);
                }
                if damaged && t < 2 {
                    for (r, c) in [(3, 4), (3, 5), (4, 4), (9, 12), (15, 0)] {
                        b.clear_rect(r..r + 1, c..c + 1);
                    }
                }
                a = b;
            }
            expected += (0..16 * 16).filter(|&i| a.get(0, i / 16, i % 16) != target.get(0, i / 16, i % 16)).count();
        }
        let fires = if asynchronous { fires.clone() } else { Vec::new() };
        let mut set = RepairSet::new(starts.clone(), targets.clone(), fires, steps);
        if damaged {
            set = set.damaged(mask.clone(), 2);
        }
        let mut repair = Repair::new(set, ca.circuit(), Boundary::Zero);
        // The pruned program the search scores with computes channel 0 alike.
        assert_eq!(repair.errors(ca.circuit(), &ops), expected, "asynchronous: {asynchronous}, damaged: {damaged}");
        assert!(expected > 0 && expected < grids * 256);
    }
}
