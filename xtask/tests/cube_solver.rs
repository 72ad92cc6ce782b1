//! `cargo xtask train cube-solver`, stopped at a checkpoint and resumed in
//! a new process, ends bit-identical to an uninterrupted run; `cargo xtask
//! solve cube` solves with the result and names bad input.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn xtask(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).arg(out).output().expect("xtask runs")
}

fn train(out: &Path, config: &Path, steps: u64, resume: bool) -> Output {
    let steps = steps.to_string();
    let mut args = vec!["train", "cube-solver", "--steps", &steps, "--config", config.to_str().unwrap()];
    if resume {
        args.push("--resume");
    }
    args.push("--out");
    xtask(&args, out)
}

#[test]
fn cube_solver_resumes_exactly_and_solves() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-cube-solver-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let config = root.join("config.json");
    std::fs::write(
        &config,
        // A constant learning rate: the anneal runs over `--steps`, which
        // the interrupted run sets shorter.
        r#"{"training": {"net": {"hidden": 32, "width": 16, "blocks": 1}, "batch_size": 16, "final_lr": 0.001},
            "eval": {"every": 10, "checkpoint_every": 10, "during": 2, "last": 2}}"#,
    )
    .unwrap();
    let (straight, interrupted) = (root.join("straight"), root.join("interrupted"));
    let ok = |o: Output| {
        assert!(o.status.success(), "xtask failed: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    ok(train(&straight, &config, 20, false));
    ok(train(&interrupted, &config, 10, false));
    ok(train(&interrupted, &config, 20, true));
    let (a, _) = common::assert_same_checkpoints(&straight, &interrupted);
    assert_eq!(
        (a.meta("format"), a.meta("task"), a.meta("step")),
        (Some("minnow-run/1"), Some("cube-solver"), Some("20"))
    );

    let err =
        common::refused_resume("cube-solver", &interrupted, &["--seed", "99", "--config", config.to_str().unwrap()]);
    assert!(err.contains("seed = 1, this run is seed = 99"), "{err}");

    // Whatever the network's quality, the search finishes with a solution.
    let solved = ok(xtask(&["solve", "cube", "--scramble", "R U", "--checkpoint"], &straight));
    assert!(solved.contains("optimal 2); ") && solved.contains("nodes expanded"), "{solved}");
    let bad = xtask(&["solve", "cube", "--scramble", "R U B", "--checkpoint"], &straight);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("move 3 'B' is not a move"), "{bad:?}");
    let missing = xtask(&["solve", "cube", "--random", "1", "--checkpoint"], &root.join("nowhere"));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no checkpoint at"), "{missing:?}");

    // A config key out of range or unknown is named.
    std::fs::write(&config, r#"{"training": {"batch_size": 0}}"#).unwrap();
    let refused = train(&root.join("fresh"), &config, 10, false);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("batch_size"), "{refused:?}");
    std::fs::write(&config, r#"{"search": {"lamda": 1.0}}"#).unwrap();
    let refused = train(&root.join("fresh"), &config, 10, false);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("lamda"), "{refused:?}");
    let _ = std::fs::remove_dir_all(&root);
}
