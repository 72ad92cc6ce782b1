//! A run stopped midway and resumed in a new process ends bit-identical to
//! an uninterrupted one.

mod common;

use std::path::Path;
use std::process::Command;

fn train(out: &Path, steps: u64, resume: bool) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(["train", "digits-mlp", "--steps", &steps.to_string(), "--out"]).arg(out);
    if resume {
        cmd.arg("--resume");
    }
    let output = cmd.output().expect("xtask runs");
    assert!(output.status.success(), "xtask train failed: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn resume_in_a_new_process_is_bit_identical() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-resume-{}", std::process::id()));
    let (straight, interrupted) = (root.join("straight"), root.join("interrupted"));
    let _ = std::fs::remove_dir_all(&root);
    train(&straight, 300, false);
    train(&interrupted, 120, false);
    train(&interrupted, 300, true);

    let (a, b) = common::assert_same_checkpoints(&straight, &interrupted);
    assert_eq!(a.meta("step"), Some("300"));
    assert_eq!(b.meta("step"), Some("300"));
    // The losses logged match line for line (the interrupted run also
    // evaluated at its end, step 120).
    let losses = |dir: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
        text.lines().filter(|l| l.contains("\"loss\"")).map(str::to_string).collect()
    };
    assert!(losses(&straight) == losses(&interrupted), "the logged losses differ");
    // The metrics of the resumed run cover every step once.
    let lines = std::fs::read_to_string(interrupted.join("metrics.jsonl")).unwrap();
    let steps = lines.lines().filter(|l| l.contains("\"loss\"")).count();
    assert_eq!(steps, 300);

    // Another seed or learning rate is refused, naming both values.
    let err = common::refused_resume("digits-mlp", &interrupted, &["--steps", "400", "--seed", "99"]);
    assert!(err.contains("seed = 0, this run is seed = 99"), "{err}");
    let config = root.join("lr.json");
    std::fs::write(&config, r#"{"lr": 0.01}"#).unwrap();
    let err = common::refused_resume("digits-mlp", &interrupted, &["--config", config.to_str().unwrap()]);
    assert!(err.contains("lr = 0.001, this run is lr = 0.01"), "{err}");
    let _ = std::fs::remove_dir_all(&root);
}

/// `--resume` with a step budget at or below the checkpoint's step has
/// nothing to train: refused, saying where the run is, before config.json
/// is touched (as is a resume refused for another seed).
#[test]
fn a_resume_with_nothing_left_to_train_is_refused_and_writes_nothing() {
    let out = std::env::temp_dir().join(format!("minnow-xtask-resume-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    train(&out, 300, false);
    let config = std::fs::read_to_string(out.join("config.json")).unwrap();
    for steps in ["100", "299"] {
        let err = common::refused_resume("digits-mlp", &out, &["--steps", steps]);
        let said = format!("the run is already at step 300 (its checkpoint), and this run's budget is {steps} steps");
        assert!(err.contains(&said), "{err}");
        assert_eq!(std::fs::read_to_string(out.join("config.json")).unwrap(), config, "--steps {steps}");
    }
    common::refused_resume("digits-mlp", &out, &["--steps", "400", "--seed", "99"]);
    assert_eq!(std::fs::read_to_string(out.join("config.json")).unwrap(), config, "--seed 99");
    // A budget above it trains on, and config.json says so.
    train(&out, 400, true);
    assert!(std::fs::read_to_string(out.join("config.json")).unwrap().contains("\"steps\": 400"));
    std::fs::remove_dir_all(&out).unwrap();
}
