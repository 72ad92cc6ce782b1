//! `xtask train logic-ca`: a run stopped midway and resumed in a new
//! process ends bit-identical to an uninterrupted one, across the
//! members' restarts; bad configs, checkpoints of another circuit or seed
//! and of the old per-member layout are clear errors.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A small run: 8x8 grids, 2 CA steps, a checkpoint every 5 steps, the
/// members restarted every 5 steps (as steps 5 and 10 begin).
const CONFIG: &str = r#"{"ca": {"height": 8, "width": 8}, "ca_steps": 2, "checkpoint_every": 5, "restart_after": 5}"#;

fn train(out: &Path, config: &Path, steps: u64, resume: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(["train", "logic-ca", "--steps", &steps.to_string(), "--config"]).arg(config).arg("--out").arg(out);
    if resume {
        cmd.arg("--resume");
    }
    cmd.output().expect("xtask runs")
}

fn ok(output: Output) -> String {
    assert!(output.status.success(), "xtask train failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn root(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("minnow-xtask-logic-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

#[test]
fn resume_in_a_new_process_is_bit_identical() {
    let root = root("resume");
    let config = root.join("config.json");
    std::fs::write(&config, CONFIG).unwrap();
    let (straight, interrupted) = (root.join("straight"), root.join("interrupted"));
    let stdout = ok(train(&straight, &config, 12, false));
    // Stopped as the second restart is due: the resumed run makes it.
    ok(train(&interrupted, &config, 10, false));
    let resumed = ok(train(&interrupted, &config, 12, true));
    assert!(resumed.contains("resumed at step 10"), "{resumed}");

    // One run checkpoint holds every member: the same tensors, counters,
    // generators and kept circuit.
    let (a, b) = common::assert_same_checkpoints(&straight, &interrupted);
    assert!(a.tensor("slot.0.optimizer.adamw.m.update.0").is_some(), "AdamW state is checkpointed");
    let keys = ["format", "step", "members", "first_perfect", "kept", "config"];
    for key in keys.into_iter().chain(["counter.slot.0.optimizer.step_count", "rng.slot.0.data", "rng.slot.1.data"]) {
        assert_eq!(a.meta(key), b.meta(key), "{key}");
    }
    assert_eq!((a.meta("format"), a.meta("step")), (Some("minnow-run/1"), Some("12")));
    // After two restarts slot s trains member s + 6 (of 3 slots).
    assert_eq!(a.meta("members"), Some("[6,7,8]"));
    assert_ne!(a.tensor("slot.1.model.update.0"), a.tensor("slot.0.model.update.0"), "members train apart");
    let files: Vec<String> =
        std::fs::read_dir(&straight).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!files.iter().any(|f| f.starts_with("checkpoint-member")), "one checkpoint file: {files:?}");
    // Every step's metrics once, and everything else written.
    let lines = std::fs::read_to_string(interrupted.join("metrics.jsonl")).unwrap();
    assert_eq!(lines.lines().filter(|l| l.contains("\"loss\"")).count(), 12);
    for file in ["circuit.txt", "circuit.v", "circuit.c", "rollout.gif", "damage.gif", "frames/000.png", "curve.png"] {
        let bytes = std::fs::read(straight.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!bytes.is_empty(), "{file}");
    }
    assert_eq!(
        std::fs::read(straight.join("circuit.txt")).unwrap(),
        std::fs::read(interrupted.join("circuit.txt")).unwrap()
    );
    assert!(std::fs::read(straight.join("rollout.gif")).unwrap().starts_with(b"GIF89a"));
    assert!(std::fs::read(straight.join("frames/002.png")).unwrap().starts_with(b"\x89PNG"));
    assert!(stdout.contains("robustness"), "{stdout}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn other_circuits_and_bad_configs_are_clear_errors() {
    let root = root("errors");
    let config = root.join("config.json");
    std::fs::write(&config, CONFIG).unwrap();
    let out = root.join("run");
    ok(train(&out, &config, 3, false));

    // A checkpoint of another circuit shape: refused, naming the key.
    let other = root.join("other.json");
    std::fs::write(&other, r#"{"ca": {"height": 8, "width": 8, "kernels": 8}, "ca_steps": 2}"#).unwrap();
    let output = train(&out, &other, 6, true);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && err.contains("ca.kernels = 16") && !err.contains("panicked"), "{err}");
    // Another seed: refused, naming it and both values.
    let err = common::refused_resume("logic-ca", &out, &["--seed", "99", "--config", config.to_str().unwrap()]);
    assert!(err.contains("seed = 1, this run is seed = 99"), "{err}");

    // Crafted records of the kept circuit: each a clear error naming what
    // is wrong, never a panic after training.
    let path = out.join("checkpoint.safetensors");
    let clean = minnow_nn::Checkpoint::load(&path).unwrap();
    for (kept, words) in [
        (r#"{"member":0,"step":1,"score":1.0}"#, "ops: expected one op per gate"),
        (r#"{"member":7,"step":1,"score":1.0}"#, "member: expected a member below 3, found 7"),
        (r#"{"member":0,"step":99,"score":1.0}"#, "expected a step up to 3 (the run's), found 99"),
        (r#"{"member":0,"step":1,"score":1.5}"#, "score: expected a score in [0, 1], found 1.5"),
        (r#"{"member":0,"step":1,"score":1.0,"seed":4}"#, "unknown field `seed`"),
    ] {
        let writer = clean.rewrite(&["kept", "kept.ops"]).tensor("kept.ops", &[3], &[0.0, 1.0, 2.0]);
        writer.meta("kept", kept).save(&path).unwrap();
        let output = train(&out, &config, 6, true);
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success() && err.contains("'kept'") && err.contains(words), "{words}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Member 0's file of the per-member layout this one replaced.
    let old = clean.rewrite(&["format"]).meta("best_step", "1");
    old.save(&path).unwrap();
    let output = train(&out, &config, 6, true);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && err.contains("format 'minnow-run/1', found no format tag"), "{err}");
    clean.rewrite(&[]).save(&path).unwrap();

    // Without --resume an existing run is not overwritten.
    let output = train(&out, &config, 6, false);
    assert!(!output.status.success() && String::from_utf8_lossy(&output.stderr).contains("--resume"));

    for (json, words) in [
        (r#"{"ca": {"height": 2}}"#, "3x3"),
        (r#"{"ca": {"update": [100, 8]}}"#, "2 * outputs >= inputs"),
        (r#"{"ca_steps": 0}"#, "ca_steps"),
        (r#"{"seeed": 1}"#, "seeed"),
        (r#"{"population": 0}"#, "population: expected at least 1 member"),
    ] {
        std::fs::write(&config, json).unwrap();
        let output = train(&root.join("bad"), &config, 3, false);
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success() && err.contains(words) && !err.contains("panicked"), "{json}: {err}");
    }
    // A seed range that is not one.
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["train", "logic-ca", "--sweep-seeds", "9..2"])
        .output()
        .expect("xtask runs");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && err.contains("--sweep-seeds: expected FIRST..LAST"), "{err}");
    // Zero steps from the command line.
    std::fs::write(&config, CONFIG).unwrap();
    let output = train(&root.join("zero"), &config, 0, false);
    assert!(!output.status.success() && String::from_utf8_lossy(&output.stderr).contains("train_steps"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_variants_train_and_report() {
    let root = root("variants");
    let life = root.join("life.json");
    std::fs::write(&life, r#"{"variant": "game-of-life", "batch": 4}"#).unwrap();
    let stdout = ok(train(&root.join("life"), &life, 3, false));
    assert!(stdout.contains("/512 boards right"), "{stdout}");
    let asynchronous = root.join("async.json");
    std::fs::write(&asynchronous, r#"{"variant": "async", "ca": {"height": 6, "width": 6}, "ca_steps": 3}"#).unwrap();
    let stdout = ok(train(&root.join("async"), &asynchronous, 3, false));
    assert!(stdout.contains("asynchronous updates on 24x24 grids for 12 steps"), "{stdout}");
    for dir in ["life", "async"] {
        let config = std::fs::read_to_string(root.join(dir).join("config.json")).unwrap();
        assert!(config.contains("\"variant\""), "{config}");
        assert!(std::fs::read(root.join(dir).join("rollout.gif")).unwrap().starts_with(b"GIF89a"));
        assert!(std::fs::read_to_string(root.join(dir).join("circuit.v")).unwrap().contains("endmodule"));
    }
    let _ = std::fs::remove_dir_all(&root);
}
