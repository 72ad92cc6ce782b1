//! What the resume tests share.

use minnow_nn::Checkpoint;
use std::path::Path;

/// Loads the checkpoints of two run directories and asserts they hold the
/// same tensors, bit for bit; returns them for further checks.
pub fn assert_same_checkpoints(a: &Path, b: &Path) -> (Checkpoint, Checkpoint) {
    let a = Checkpoint::load(&a.join("checkpoint.safetensors")).unwrap();
    let b = Checkpoint::load(&b.join("checkpoint.safetensors")).unwrap();
    let names: Vec<&str> = a.names().collect();
    assert_eq!(names, b.names().collect::<Vec<_>>());
    for name in names {
        assert_eq!(a.tensor(name), b.tensor(name), "{name} differs");
    }
    (a, b)
}

/// Runs `cargo xtask train TASK --resume --out OUT ARGS`, asserts that it
/// is refused, and returns what it printed to stderr.
pub fn refused_resume(task: &str, out: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["train", task, "--resume", "--out"])
        .arg(out)
        .args(args)
        .output()
        .expect("xtask runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{task} {args:?} must be refused: {stderr}");
    stderr
}
