//! Checkpoints: a run saved midway and resumed ends bit-identical to a
//! straight one; checkpoints of other circuits or settings, and configs
//! that cannot be built, are clear errors.

use minnow_logic::{CheckerboardConfig, CheckerboardTrainer, LogicCaConfig, LogicError, Variant};
use minnow_nn::Checkpoint;

/// A small, fast run (8x8, 3 CA steps) that still uses both threads.
fn small() -> CheckerboardConfig {
    CheckerboardConfig {
        ca: LogicCaConfig { height: 8, width: 8, ..LogicCaConfig::default() },
        ca_steps: 3,
        ..CheckerboardConfig::default()
    }
}

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("minnow-logic-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(trainer: &mut CheckerboardTrainer, steps: usize) -> Vec<minnow_logic::StepReport> {
    (0..steps).map(|_| trainer.step().unwrap()).collect()
}

fn assert_resumes_exactly(config: &CheckerboardConfig, name: &str) {
    let path = dir(name).join("checkpoint.safetensors");
    let mut straight = CheckerboardTrainer::new(config).unwrap();
    let all = run(&mut straight, 9);

    let mut first = CheckerboardTrainer::new(config).unwrap();
    let before = run(&mut first, 4);
    first.save(&path).unwrap();
    drop(first);
    let mut resumed = CheckerboardTrainer::resume(config, &path).unwrap();
    assert_eq!(resumed.steps_done(), 4);
    let after = run(&mut resumed, 5);

    assert_eq!([before, after].concat(), all, "reports of the resumed run");
    assert_eq!(resumed.model().params().values(), straight.model().params().values(), "logits");
    // The optimiser and generator states match too: the checkpoints agree
    // tensor by tensor and in every piece of metadata.
    let (pa, pb) = (path.with_extension("a"), path.with_extension("b"));
    straight.save(&pa).unwrap();
    resumed.save(&pb).unwrap();
    let (a, b) = (Checkpoint::load(&pa).unwrap(), Checkpoint::load(&pb).unwrap());
    let names: Vec<&str> = a.names().collect();
    assert_eq!(names, b.names().collect::<Vec<_>>());
    assert!(names.iter().any(|n| n.starts_with("adamw.v.")), "{names:?}");
    for name in names {
        assert!(a.tensor(name) == b.tensor(name), "{name} differs");
    }
    for key in ["step", "adam_steps", "rng", "config", "identity", "circuit"] {
        assert_eq!(a.meta(key), b.meta(key), "{key}");
    }
    assert_eq!(a.meta("step"), Some("9"));
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn resumed_run_is_bit_identical_to_a_straight_one() {
    assert_resumes_exactly(&small(), "resume");
}

#[test]
fn resumed_async_run_is_bit_identical() {
    // The fire masks come from the same generator as the grids.
    let config = CheckerboardConfig {
        variant: Variant::Async,
        ca: LogicCaConfig { height: 6, width: 6, ..LogicCaConfig::default() },
        ca_steps: 4,
        batch: 2,
        ..CheckerboardConfig::asynchronous()
    };
    assert_resumes_exactly(&config, "resume-async");
}

#[test]
fn resuming_may_change_the_run_length_only() {
    let path = dir("length").join("checkpoint.safetensors");
    let config = small();
    let mut t = CheckerboardTrainer::new(&config).unwrap();
    run(&mut t, 2);
    t.save(&path).unwrap();
    let longer = CheckerboardConfig { train_steps: 900, checkpoint_every: 7, ..config.clone() };
    assert_eq!(CheckerboardTrainer::resume(&longer, &path).unwrap().steps_done(), 2);

    let other_seed = CheckerboardConfig { seed: 99, ..config.clone() };
    let e = CheckerboardTrainer::resume(&other_seed, &path).unwrap_err();
    assert!(matches!(e, LogicError::Checkpoint(_)), "{e}");
    assert!(e.to_string().contains("seed") && e.to_string().contains("99"), "{e}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_checkpoint_of_another_circuit_shape_is_a_clear_error() {
    let path = dir("shape").join("checkpoint.safetensors");
    let config = small();
    CheckerboardTrainer::new(&config).unwrap().save(&path).unwrap();
    let mut update = config.ca.update.clone();
    update[2] = 200;
    let other = CheckerboardConfig { ca: LogicCaConfig { update, ..config.ca.clone() }, ..config.clone() };
    let e = CheckerboardTrainer::resume(&other, &path).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("circuit of") && text.contains("200"), "{text}");

    // Bytes that are not a checkpoint, and a missing file: errors, no panic.
    std::fs::write(&path, b"not a checkpoint").unwrap();
    assert!(matches!(CheckerboardTrainer::resume(&config, &path), Err(LogicError::Checkpoint(_))));
    assert!(CheckerboardTrainer::resume(&config, &path.with_extension("missing")).is_err());
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn configs_read_from_json_layer_over_the_variant_defaults() {
    let config =
        CheckerboardConfig::from_json(r#"{"seed": 7, "ca": {"height": 12}, "optimizer": {"lr": 0.1}}"#).unwrap();
    assert_eq!(config.seed, 7);
    assert_eq!((config.ca.height, config.ca.width), (12, 16));
    assert_eq!(config.optimizer.lr, 0.1);
    assert_eq!(config.optimizer.betas, (0.9, 0.99));
    // The whole config round-trips.
    assert_eq!(CheckerboardConfig::from_json(&config.to_json()).unwrap(), config);

    let life = CheckerboardConfig::from_json(r#"{"variant": "game-of-life"}"#).unwrap();
    assert_eq!(life, CheckerboardConfig::game_of_life());
    let asynchronous = CheckerboardConfig::from_json(r#"{"variant": "async", "fire_rate": 0.5}"#).unwrap();
    assert_eq!(asynchronous.ca.update.len(), 20);
    assert_eq!(asynchronous.fire_rate, 0.5);
}

#[test]
fn bad_json_configs_are_clear_errors() {
    let cases = [
        (r#"{"sed": 7}"#, "sed"),
        (r#"{"ca": {"hieght": 7}}"#, "hieght"),
        (r#"{"variant": "life"}"#, "variant"),
        (r#"[1, 2]"#, "JSON object"),
        (r#"{"ca_steps": 0}"#, "ca_steps"),
        (r#"{"train_steps": 0}"#, "train_steps"),
        (r#"{"ca": {"height": 2}}"#, "3x3"),
        (r#"{"ca": {"update": [100, 8]}}"#, "2 * outputs >= inputs"),
        (r#"{"variant": "async", "fire_rate": 0}"#, "fire_rate"),
        (r#"{"variant": "game-of-life", "ca": {"height": 4}}"#, "3x3 boards"),
        (r#"{"checkpoint_every": 0}"#, "checkpoint_every"),
        ("{", "EOF"),
    ];
    for (json, words) in cases {
        let e = CheckerboardConfig::from_json(json).unwrap_err();
        assert!(e.to_string().contains(words), "{json}: {e}");
    }
}
