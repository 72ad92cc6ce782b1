//! `cargo xtask train ntuple-2048`, stopped at a checkpoint and resumed in
//! a new process, ends bit-identical to an uninterrupted run; a checkpoint
//! of another tuple layout is refused, naming the key.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn train(out: &Path, config: &Path, games: u64, resume: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(["train", "ntuple-2048", "--steps", &games.to_string(), "--config"]).arg(config).arg("--out").arg(out);
    if resume {
        cmd.arg("--resume");
    }
    cmd.output().expect("xtask runs")
}

/// Temporal coherence and two stages, so their state crosses the resume.
fn write_config(path: &Path, levels: usize) {
    let config = format!(
        r#"{{"tuples": [[0, 1, 2, 3], [4, 5, 6, 7], [0, 4, 8, 12], [1, 5, 9, 13]], "levels": {levels},
            "coherence": true, "stages": [128], "alpha": 0.5,
            "checkpoint_every": 30, "eval": {{"every": 20, "during": 5, "last": 5}}}}"#
    );
    std::fs::write(path, config).unwrap();
}

#[test]
fn ntuple_resume_in_a_new_process_is_bit_identical() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-ntuple-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let (config, other) = (root.join("config.json"), root.join("other.json"));
    write_config(&config, 16);
    write_config(&other, 12);
    let (straight, interrupted) = (root.join("straight"), root.join("interrupted"));
    let ok = |o: Output| assert!(o.status.success(), "xtask failed: {}", String::from_utf8_lossy(&o.stderr));
    ok(train(&straight, &config, 60, false));
    ok(train(&interrupted, &config, 30, false));
    ok(train(&interrupted, &config, 60, true));

    let (a, b) = common::assert_same_checkpoints(&straight, &interrupted);
    assert_eq!(a.meta("step"), Some("60"));
    assert!(a.tensor("ntuple.tc.magnitudes").is_some_and(|m| m.iter().any(|&v| v > 0.0)), "TC's sums are saved");
    assert_eq!(a.meta("window"), b.meta("window"));
    let metrics = |dir: &Path| std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics(&straight).lines().count(), metrics(&interrupted).lines().count());
    assert!(straight.join("eval.json").exists() && straight.join("curve.png").exists());

    // Another seed: refused, naming both values.
    let err =
        common::refused_resume("ntuple-2048", &interrupted, &["--seed", "99", "--config", config.to_str().unwrap()]);
    assert!(err.contains("this run is seed = 99"), "{err}");
    // Another layout: refused, naming the key.
    let refused = train(&interrupted, &other, 90, true);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("levels"), "{refused:?}");
    // A config out of range.
    std::fs::write(&other, r#"{"alpha": 1.5}"#).unwrap();
    let refused = train(&root.join("fresh"), &other, 10, false);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("alpha"), "{refused:?}");
    let _ = std::fs::remove_dir_all(&root);
}
