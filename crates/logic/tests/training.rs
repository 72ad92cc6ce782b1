//! The trainer: its hard accuracy is the float hard forward's, it is
//! deterministic, it rejects bad configs, and (ignored, release only) it
//! learns.

use minnow_logic::train::DATA_STREAM;
use minnow_logic::{CheckerboardConfig, CheckerboardTrainer, LogicCa, LogicError, checkerboard};
use rand::{Rng, SeedableRng};

fn quick() -> CheckerboardConfig {
    CheckerboardConfig { ca_steps: 4, ..CheckerboardConfig::default() }
}

/// Hard-circuit channel-0 cells wrong over `grids`, by the float hard step.
fn hard_errors(ca: &LogicCa, grids: &[f32], steps: usize) -> usize {
    let cfg = ca.config();
    let cells = cfg.cells();
    let target = checkerboard(cfg.height, cfg.width);
    let mut wrong = 0;
    for grid in grids.chunks_exact(cfg.channels * cells) {
        let mut state = grid.to_vec();
        let mut next = vec![0.0; state.len()];
        for _ in 0..steps {
            ca.hard_step(&state, &mut next).unwrap();
            std::mem::swap(&mut state, &mut next);
        }
        wrong += state[..cells].iter().zip(&target).filter(|(s, t)| s != t).count();
    }
    wrong
}

#[test]
fn reported_hard_accuracy_is_the_hard_circuit_on_the_same_batch() {
    let config = quick();
    let mut trainer = CheckerboardTrainer::new(&config).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(config.seed ^ DATA_STREAM);
    let per_step = config.batch * config.ca.channels * config.ca.cells();
    for _ in 0..6 {
        let before = trainer.model().clone();
        let grids: Vec<f32> = (0..per_step).map(|_| rng.random::<bool>() as u8 as f32).collect();
        let report = trainer.step().unwrap();
        assert_eq!(report.hard_errors, hard_errors(&before, &grids, config.ca_steps), "step {}", report.step);
    }
}

#[test]
fn same_seed_same_run() {
    let config = quick();
    let run = || {
        let mut t = CheckerboardTrainer::new(&config).unwrap();
        let reports: Vec<_> = (0..3).map(|_| t.step().unwrap()).collect();
        (reports, t.model().params().values().to_vec())
    };
    let (r1, v1) = run();
    let (r2, v2) = run();
    assert_eq!(r1, r2);
    assert_eq!(v1, v2);
    let (r3, _) = {
        let mut t = CheckerboardTrainer::new(&CheckerboardConfig { seed: 99, ..config.clone() }).unwrap();
        ((0..3).map(|_| t.step().unwrap()).collect::<Vec<_>>(), ())
    };
    assert_ne!(r1, r3);
}

#[test]
fn bad_configs_are_clear_errors() {
    let base = CheckerboardConfig::default();
    let cases: Vec<(CheckerboardConfig, &str)> = vec![
        (CheckerboardConfig { ca_steps: 0, ..base.clone() }, "ca_steps"),
        (CheckerboardConfig { batch: 0, ..base.clone() }, "batch"),
        (CheckerboardConfig { threads: 0, ..base.clone() }, "threads"),
        (CheckerboardConfig { lanes: 40, ..base.clone() }, "lanes"),
        (CheckerboardConfig { clip: f32::NAN, ..base.clone() }, "clip"),
        (
            CheckerboardConfig {
                ca: minnow_logic::LogicCaConfig { height: 2, width: 9, ..base.ca.clone() },
                ..base.clone()
            },
            "3x3",
        ),
        (
            CheckerboardConfig {
                ca: minnow_logic::LogicCaConfig { update: vec![100, 8], ..base.ca.clone() },
                ..base.clone()
            },
            "2 * outputs >= inputs",
        ),
    ];
    for (config, words) in cases {
        let e = CheckerboardTrainer::new(&config).unwrap_err();
        assert!(e.to_string().contains(words), "{e}");
    }
    let bad_lr =
        CheckerboardConfig { optimizer: minnow_optim::AdamWConfig { lr: -1.0, ..base.optimizer }, ..base.clone() };
    assert!(matches!(CheckerboardTrainer::new(&bad_lr), Err(LogicError::Optim(_))));
}

#[test]
fn hard_accuracy_follows_edited_logits() {
    // A trainer whose circuit is random (not all pass-through), so the
    // hard check runs a real pruned program.
    let config = quick();
    let mut trainer = CheckerboardTrainer::new(&config).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
    let ca = trainer.model_mut();
    for id in ca.layers().to_vec() {
        for row in ca.params_mut().value_mut(id).chunks_exact_mut(16) {
            row[rng.random_range(0..16)] = 12.0;
        }
    }
    let mut data = rand_pcg::Pcg64::seed_from_u64(config.seed ^ DATA_STREAM);
    let per_step = config.batch * config.ca.channels * config.ca.cells();
    for _ in 0..3 {
        let before = trainer.model().clone();
        let grids: Vec<f32> = (0..per_step).map(|_| data.random::<bool>() as u8 as f32).collect();
        let report = trainer.step().unwrap();
        assert_eq!(report.hard_errors, hard_errors(&before, &grids, config.ca_steps));
    }
}

/// A short run on a smaller board: past the plateau of "0.5 everywhere"
/// (loss = cells x batch / 4) and well above chance in hard accuracy.
#[test]
fn learns_a_small_checkerboard() {
    let config = CheckerboardConfig {
        ca: minnow_logic::LogicCaConfig { height: 8, width: 8, ..Default::default() },
        ca_steps: 10,
        seed: 2,
        train_steps: 260,
        ..CheckerboardConfig::default()
    };
    let trained = minnow_logic::train_checkerboard(&config, |_| std::ops::ControlFlow::Continue(())).unwrap();
    let tail = &trained.history[trained.history.len() - 20..];
    let loss = tail.iter().map(|r| r.loss).sum::<f32>() / tail.len() as f32;
    let best = trained.history.iter().map(|r| r.hard_accuracy).fold(0.0, f32::max);
    assert!(loss < 0.6 * 32.0, "soft loss {loss} is still near the plateau of 32");
    assert!(best >= 0.8, "best hard accuracy {best}");
}

/// The full task (500 steps of the reference configuration); seed 3
/// reaches 100% hard accuracy at step 440. Run it in release:
/// `cargo test --release -p minnow-logic --test training -- --ignored`.
#[test]
#[ignore = "about 30 s in release, several minutes at opt-level 1"]
fn reproduces_the_checkerboard_result() {
    let config = CheckerboardConfig { seed: 3, ..CheckerboardConfig::default() };
    let trained = minnow_logic::train_checkerboard(&config, |_| std::ops::ControlFlow::Continue(())).unwrap();
    let step = trained.first_perfect.expect("hard accuracy reaches 100% within 500 steps");
    assert!(step < 500);
}
