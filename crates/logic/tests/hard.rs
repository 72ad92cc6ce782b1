//! Hard circuits: the bit-parallel program (exact and pruned) against the
//! soft network's hard forward in floats, on random circuits and grids.

use minnow_logic::gates::{OPS, PASS_A, PASS_B};
use minnow_logic::hard::{Output, active_gates};
use minnow_logic::{BitGrid, Boundary, HardProgram, HardScratch, LogicCa, LogicCaConfig, Prune};
use rand::{Rng, SeedableRng};

fn small(height: usize, width: usize, boundary: Boundary) -> LogicCaConfig {
    LogicCaConfig {
        height,
        width,
        channels: 3,
        kernels: 4,
        perception: vec![8, 4, 2],
        update: vec![16, 8, 4, 3],
        boundary,
        pass_logit: 10.0,
    }
}

/// Sets every gate to one op: drawn uniformly, or mostly pass-through and
/// constants (the shape of a trained circuit, which exercises pruning).
fn randomize_ops(ca: &mut LogicCa, seed: u64, sparse: bool) {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    for id in ca.layers().to_vec() {
        for row in ca.params_mut().value_mut(id).chunks_exact_mut(OPS) {
            row.fill(0.0);
            let op = if sparse {
                match rng.random_range(0..10) {
                    0..=4 => PASS_A,
                    5 => PASS_B,
                    6 => [0, 15, 10, 12][rng.random_range(0..4)],
                    _ => rng.random_range(0..16),
                }
            } else {
                rng.random_range(0..16)
            };
            row[op as usize] = 1.0;
        }
    }
}

fn random_state(ca: &LogicCa, rng: &mut impl Rng) -> Vec<f32> {
    let n = ca.config().channels * ca.config().cells();
    (0..n).map(|_| rng.random::<bool>() as u8 as f32).collect()
}

/// Runs `steps` steps both ways and compares the channels the program
/// computes (every channel unless dead).
fn agree(ca: &LogicCa, prune: Prune, steps: usize, seed: u64) -> usize {
    let cfg = ca.config();
    let mut ops = vec![0u8; ca.circuit().params];
    ca.hard_ops(&mut ops);
    let program = HardProgram::new(ca.circuit(), &ops, cfg.boundary, prune);
    let text = HardProgram::from_text(&program.to_text()).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut state = random_state(ca, &mut rng);
    let mut next = vec![0.0; state.len()];
    let mut a = BitGrid::new(cfg.height, cfg.width, cfg.channels);
    let mut b = a.clone();
    let (mut a2, mut b2) = (a.clone(), a.clone());
    let mut scratch = HardScratch::default();
    a.load(&state);
    a2.load(&state);
    let mut bits = vec![0.0; state.len()];
    let cells = cfg.cells();
    for step in 0..steps {
        ca.hard_step(&state, &mut next).unwrap();
        std::mem::swap(&mut state, &mut next);
        program.step(&a, &mut b, &mut scratch);
        // The baseline copy of the step computes the same bits.
        let mut b3 = b.clone();
        minnow_kernels::with_level(minnow_kernels::Level::Scalar, || program.step(&a, &mut b3, &mut scratch));
        assert_eq!(b, b3);
        std::mem::swap(&mut a, &mut b);
        text.step(&a2, &mut b2, &mut scratch);
        std::mem::swap(&mut a2, &mut b2);
        assert_eq!(a, a2, "the text form runs the same program");
        a.store(&mut bits);
        for (c, out) in program.outputs().iter().enumerate() {
            if *out != Output::Dead {
                assert_eq!(
                    &bits[c * cells..(c + 1) * cells],
                    &state[c * cells..(c + 1) * cells],
                    "{}x{} {:?} {prune:?}: channel {c} differs after step {}",
                    cfg.height,
                    cfg.width,
                    cfg.boundary,
                    step + 1
                );
            }
        }
    }
    assert_ne!(program.outputs()[0], Output::Dead);
    program.gate_count()
}

#[test]
fn bit_parallel_circuit_equals_the_float_hard_forward() {
    // Widths around the word size, several words per row, tiny grids.
    for (h, w) in [(16, 16), (3, 3), (5, 63), (4, 64), (6, 65), (3, 130), (3, 520), (4, 600), (70, 130)] {
        for boundary in [Boundary::Zero, Boundary::Periodic] {
            for (seed, sparse) in [(1, false), (2, true), (3, true)] {
                let mut ca = LogicCa::new(&small(h, w, boundary), seed).unwrap();
                randomize_ops(&mut ca, seed, sparse);
                let exact = agree(&ca, Prune::None, 6, seed);
                let pruned = agree(&ca, Prune::Channel0, 6, seed);
                assert_eq!(exact, ca.circuit().rows - ca.circuit().taps);
                assert!(pruned <= exact);
            }
        }
    }
}

#[test]
fn reference_architecture_agrees_too() {
    let mut ca = LogicCa::new(&LogicCaConfig::default(), 4).unwrap();
    randomize_ops(&mut ca, 4, true);
    agree(&ca, Prune::None, 3, 4);
    agree(&ca, Prune::Channel0, 3, 4);
}

#[test]
fn fresh_circuit_is_all_wires() {
    // Every gate passes A through: the pruned program has no gates, and
    // each output is one tap.
    let ca = LogicCa::new(&LogicCaConfig::default(), 1).unwrap();
    let mut ops = vec![0u8; ca.circuit().params];
    ca.hard_ops(&mut ops);
    assert!(ops.iter().all(|&o| o == PASS_A));
    assert_eq!(active_gates(ca.circuit(), &ops), 0);
    let program = HardProgram::new(ca.circuit(), &ops, Boundary::Zero, Prune::Channel0);
    assert_eq!(program.gate_count(), 0);
    assert!(program.taps().len() <= 8);
}

#[test]
fn simplification_folds_negations_and_merges_equal_gates() {
    // A hand-built check on the reference circuit: NOT gates everywhere
    // collapse, since negations fold into the literals.
    let mut ca = LogicCa::new(&small(8, 8, Boundary::Zero), 9).unwrap();
    randomize_ops(&mut ca, 9, false);
    let mut ops = vec![0u8; ca.circuit().params];
    ca.hard_ops(&mut ops);
    for op in ops.iter_mut() {
        if *op == 9 {
            *op = 12; // XNOR -> NOT A
        }
    }
    let pruned = HardProgram::new(ca.circuit(), &ops, Boundary::Zero, Prune::Channel0);
    assert!(
        pruned.instrs().iter().all(|i| !matches!(i.op, 0 | 3 | 5 | 8..=15)),
        "kept gates have op(0,0) = 0 and read both inputs"
    );
    assert!(pruned.instrs().iter().all(|i| i.a < i.b));
}

#[test]
fn rebuilding_a_program_allocates_nothing_new() {
    let mut ca = LogicCa::new(&small(16, 16, Boundary::Zero), 5).unwrap();
    randomize_ops(&mut ca, 5, false);
    let mut ops = vec![0u8; ca.circuit().params];
    ca.hard_ops(&mut ops);
    let mut program = HardProgram::new(ca.circuit(), &ops, Boundary::Zero, Prune::Channel0);
    let again = {
        program.rebuild(ca.circuit(), &ops, Boundary::Zero, Prune::Channel0);
        program.to_text()
    };
    assert_eq!(again, HardProgram::new(ca.circuit(), &ops, Boundary::Zero, Prune::Channel0).to_text());
}

#[test]
fn bad_text_is_an_error() {
    assert!(HardProgram::from_text("channels 1\nboundary zero\ns0 = tap c0 4\nout c0 = s3\n").is_err());
    assert!(HardProgram::from_text("channels 1\nboundary zero\ns0 = FOO s0 s0\n").is_err());
    assert!(HardProgram::from_text("channels 2\nboundary zero\ns0 = tap c0 4\nout c0 = s0\n").is_err());
    let ok = HardProgram::from_text(
        "channels 1\nboundary zero\ns0 = tap c0 4\ns1 = tap c0 5\ns2 = XOR s0 s1\nout c0 = NOT s2\n",
    )
    .unwrap();
    assert_eq!(ok.gate_count(), 1);
}

/// A tiled grid steps each of its blocks as a grid of its own: blocks of
/// several sizes (one word holding four grids side by side, blocks that
/// straddle words, a single block) over several steps, each block equal
/// to its grid stepped alone.
#[test]
fn tiled_grid_steps_each_block_as_its_own_grid() {
    for (h, w, down, across) in [(16, 16, 4, 4), (5, 7, 3, 13), (9, 40, 2, 3), (6, 6, 1, 1)] {
        let mut ca = LogicCa::new(&small(h, w, Boundary::Zero), 7).unwrap();
        randomize_ops(&mut ca, 8, false);
        let mut ops = vec![0u8; ca.circuit().params];
        ca.hard_ops(&mut ops);
        let program = HardProgram::new(ca.circuit(), &ops, Boundary::Zero, Prune::None);
        let channels = ca.config().channels;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
        let mut grids: Vec<BitGrid> = (0..down * across)
            .map(|_| {
                let mut g = BitGrid::new(h, w, channels);
                g.fill_random(|| rng.random());
                g
            })
            .collect();
        let mut tiled = BitGrid::tiled(h, w, down, across, channels);
        for (b, g) in grids.iter().enumerate() {
            tiled.put_block(b, g);
        }
        assert_eq!(tiled.blocks(), down * across);
        let mut scratch = HardScratch::default();
        let mut next = tiled.clone();
        for _ in 0..4 {
            program.step(&tiled, &mut next, &mut scratch);
            std::mem::swap(&mut tiled, &mut next);
            for g in &mut grids {
                let mut out = g.clone();
                program.step(g, &mut out, &mut scratch);
                *g = out;
            }
        }
        let mut changed = false;
        for (b, g) in grids.iter().enumerate() {
            let (r0, c0) = (b / across * h, b % across * w);
            for c in 0..channels {
                for r in 0..h {
                    for col in 0..w {
                        assert_eq!(
                            tiled.get(c, r0 + r, c0 + col),
                            g.get(c, r, col),
                            "{h}x{w} block {b} ({c}, {r}, {col})"
                        );
                        changed |= g.get(c, r, col);
                    }
                }
            }
        }
        assert!(changed, "{h}x{w}: the circuit should leave some cell on");
    }
}

/// `LogicCa::hard_program` is the long way in one call: the argmax ops,
/// then `HardProgram::new` on the CA's own boundary, for both prunings.
#[test]
fn hard_program_in_one_call_is_the_long_way() {
    for (seed, boundary) in [(3, Boundary::Zero), (4, Boundary::Periodic)] {
        let mut ca = LogicCa::new(&small(6, 7, boundary), seed).unwrap();
        randomize_ops(&mut ca, seed, true);
        let mut ops = vec![0u8; ca.circuit().params];
        ca.hard_ops(&mut ops);
        for prune in [Prune::None, Prune::Channel0] {
            let long = HardProgram::new(ca.circuit(), &ops, boundary, prune);
            assert_eq!(ca.hard_program(prune).to_text(), long.to_text(), "{boundary:?} {prune:?}");
        }
    }
}
