//! Checkpoints: a run saved midway and resumed ends bit-identical to a
//! straight one, across the members' restarts too; checkpoints of other
//! circuits or settings, of the old per-member layout, and bytes that are
//! no checkpoint are clear errors; configs that cannot be built too.

use minnow_logic::{CheckerboardConfig, LogicCaConfig, LogicCaRun, Variant};
use minnow_nn::{Checkpoint, CheckpointWriter};
use minnow_train::{Cadence, Run, TrainError, drive, resume};
use std::path::{Path, PathBuf};

/// A small, fast run (8x8, 3 CA steps, 2 members) that still uses both
/// threads, its members restarted every 4 steps, never ending early.
fn small() -> CheckerboardConfig {
    CheckerboardConfig {
        ca: LogicCaConfig { height: 8, width: 8, ..LogicCaConfig::default() },
        ca_steps: 3,
        population: 2,
        restart_after: 4,
        stop_score: 2.0,
        ..CheckerboardConfig::default()
    }
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("minnow-logic-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every step's loss and hard accuracy, as the driver reports them.
#[derive(Default)]
struct Reports(Vec<(u64, &'static str, f64)>);

impl minnow_train::Observer for Reports {
    fn observe(&mut self, event: minnow_train::Event<'_>) -> minnow_train::Result<()> {
        if let minnow_train::Event::Step { step, metrics, .. } | minnow_train::Event::Eval { step, metrics } = event {
            self.0.extend(metrics.iter().map(|&(name, value)| (step, name, value)));
        }
        Ok(())
    }
}

/// Drives a run of `config` to `steps` steps (resuming from `path` if
/// given), checkpointing to `save`.
fn train(config: &CheckerboardConfig, steps: usize, from: Option<&Path>, save: &Path) -> (LogicCaRun, Reports) {
    let config = CheckerboardConfig { train_steps: steps, ..config.clone() };
    let mut run = LogicCaRun::new(&config).unwrap();
    if let Some(path) = from {
        resume(&mut run, path).unwrap();
    }
    let cadence = Cadence { eval_every: 1, checkpoint_every: 1000, eval_at_end: false };
    let mut reports = Reports::default();
    drive(&mut run, cadence, Some(save), &mut reports).unwrap();
    (run, reports)
}

fn assert_resumes_exactly(config: &CheckerboardConfig, name: &str) {
    let dir = dir(name);
    let (straight, whole) = (dir.join("straight.safetensors"), dir.join("midway.safetensors"));
    let (run, all) = train(config, 9, None, &straight);
    let (_, before) = train(config, 4, None, &whole);
    let (resumed, after) = train(config, 9, Some(&whole), &whole);
    assert_eq!(resumed.step(), 9);
    assert_eq!([before.0, after.0].concat(), all.0, "reports of the resumed run");

    // Every member's logits, optimiser and generator state, and what the
    // population kept, agree tensor by tensor and key by key.
    let (a, b) = (Checkpoint::load(&straight).unwrap(), Checkpoint::load(&whole).unwrap());
    let names: Vec<&str> = a.names().collect();
    assert_eq!(names, b.names().collect::<Vec<_>>());
    assert!(names.contains(&"slot.1.optimizer.adamw.v.update.0"), "{names:?}");
    for name in names {
        assert!(a.tensor(name) == b.tensor(name), "{name} differs");
    }
    let keys = ["format", "task", "step", "members", "first_perfect", "kept", "config", "circuit"];
    for key in keys.into_iter().chain(["rng.slot.0.data", "rng.slot.1.data", "counter.slot.1.optimizer.step_count"]) {
        assert_eq!(a.meta(key), b.meta(key), "{key}");
    }
    assert_eq!((a.meta("format"), a.meta("step")), (Some("minnow-run/1"), Some("9")));
    // Restarted as steps 5 (just after the resume) and 9 began: the slots
    // hold members 4 and 5.
    assert_eq!(a.meta("members"), Some("[4,5]"));
    let (x, y) = (run.population(), resumed.population());
    assert_eq!((x.first_perfect(), x.kept()), (y.first_perfect(), y.kept()));
    let _ = std::fs::remove_dir_all(dir);
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
        restart_after: 4,
        stop_score: 2.0,
        ..CheckerboardConfig::asynchronous()
    };
    assert_resumes_exactly(&config, "resume-async");
}

#[test]
fn resuming_may_change_the_run_length_only() {
    let dir = dir("length");
    let path = dir.join("checkpoint.safetensors");
    let config = small();
    train(&config, 2, None, &path);
    let longer = CheckerboardConfig { train_steps: 900, checkpoint_every: 7, ..config.clone() };
    let mut run = LogicCaRun::new(&longer).unwrap();
    resume(&mut run, &path).unwrap();
    assert_eq!(run.step(), 2);

    let other_seed = CheckerboardConfig { seed: 99, ..config.clone() };
    let e = resume(&mut LogicCaRun::new(&other_seed).unwrap(), &path).unwrap_err();
    assert!(matches!(e, TrainError::ConfigMismatch { .. }), "{e}");
    assert!(e.to_string().contains("seed = 1, this run is seed = 99"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_checkpoint_of_another_circuit_or_layout_is_a_clear_error() {
    let dir = dir("shape");
    let path = dir.join("checkpoint.safetensors");
    let config = small();
    train(&config, 1, None, &path);
    let mut update = config.ca.update.clone();
    update[2] = 200;
    let other = CheckerboardConfig { ca: LogicCaConfig { update, ..config.ca.clone() }, ..config.clone() };
    let e = resume(&mut LogicCaRun::new(&other).unwrap(), &path).unwrap_err().to_string();
    assert!(e.contains("ca.update") && e.contains("200"), "{e}");

    // Member 0's file of the per-member layout before the run checkpoint.
    CheckpointWriter::new()
        .tensor("update.0", &[1], &[0.0])
        .meta("task", "logic-ca")
        .meta("step", "3")
        .save(&path)
        .unwrap();
    let e = resume(&mut LogicCaRun::new(&config).unwrap(), &path).unwrap_err().to_string();
    assert!(e.contains("expected a run checkpoint of format 'minnow-run/1', found no format tag"), "{e}");

    // Bytes that are not a checkpoint, and a missing file: errors, no panic.
    std::fs::write(&path, b"not a checkpoint").unwrap();
    assert!(resume(&mut LogicCaRun::new(&config).unwrap(), &path).is_err());
    assert!(resume(&mut LogicCaRun::new(&config).unwrap(), &path.with_extension("missing")).is_err());
    let _ = std::fs::remove_dir_all(dir);
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
        (r#"{"repair": {"every": 5, "tries": 3}}"#, "repair.tries"),
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
        // As the command line prints it: the error, then its sources.
        let e = std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source())
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join(": ");
        assert!(e.contains(words), "{json}: {e}");
    }
}
