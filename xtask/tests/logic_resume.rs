//! `xtask train logic-ca`: a run stopped midway and resumed in a new
//! process ends bit-identical to an uninterrupted one; bad configs and
//! checkpoints of another circuit are clear errors.

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

    let (a, b) = common::assert_same_checkpoints(&straight, &interrupted);
    assert!(a.tensor("adamw.m.update.0").is_some(), "AdamW state is checkpointed");
    for key in ["step", "adam_steps", "rng", "first_perfect"] {
        assert_eq!(a.meta(key), b.meta(key), "{key}");
    }
    assert_eq!(a.meta("step"), Some("12"));
    // After two restarts slot 0 trains member 6 (of 3 slots), with its seed.
    let seed = minnow_logic::population::member_seed(minnow_logic::train::DEFAULT_SEED, 6);
    assert!(a.meta("config").unwrap().contains(&format!("\"seed\": {seed}")), "{:?}", a.meta("config"));
    // The second member of the default population, too.
    let member = |dir: &Path| minnow_nn::Checkpoint::load(&dir.join("checkpoint-member-1.safetensors")).unwrap();
    let (a1, b1) = (member(&straight), member(&interrupted));
    assert_eq!(a1.tensor("update.0"), b1.tensor("update.0"));
    assert_eq!(a1.meta("rng"), b1.meta("rng"));
    assert_ne!(a1.tensor("update.0"), a.tensor("update.0"), "members train apart");
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

    // A checkpoint of another circuit shape.
    let other = root.join("other.json");
    std::fs::write(&other, r#"{"ca": {"height": 8, "width": 8, "kernels": 8}, "ca_steps": 2}"#).unwrap();
    let output = train(&out, &other, 6, true);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && err.contains("circuit of") && !err.contains("panicked"), "{err}");
    // Another seed: refused, naming it.
    let err = common::refused_resume("logic-ca", &out, &["--seed", "99", "--config", config.to_str().unwrap()]);
    assert!(err.contains("seed"), "{err}");

    // Crafted metadata of the kept circuit: each a clear error naming the
    // field, never a panic after training.
    let path = out.join("checkpoint.safetensors");
    let clean = minnow_nn::Checkpoint::load(&path).unwrap();
    let kept = ["best_ops", "best_member", "best_step", "best_score"];
    for (member, step, score, words) in [
        ("0", "1", "1", "'best_ops': expected one op per gate"),
        ("7", "1", "1", "'best_member': expected a member below 3, found '7'"),
        ("0", "99", "1", "'best_step': expected a step up to 3 (the run's), found '99'"),
        ("0", "1", "NaN", "'best_score': expected a score in [0, 1], found 'NaN'"),
    ] {
        let writer = clean.rewrite(&kept).tensor("best_ops", &[3], &[0.0, 1.0, 2.0]);
        writer.meta("best_member", member).meta("best_step", step).meta("best_score", score).save(&path).unwrap();
        let output = train(&out, &config, 6, true);
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success() && err.contains(words) && !err.contains("panicked"), "{words}: {err}");
    }
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
