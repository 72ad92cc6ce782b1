//! A closed stdout (`cargo xtask train ... | head -1`) does not end a run:
//! the report the pipe cannot take is dropped, and the run still finishes,
//! checkpoints and writes its files.

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs xtask with `args`, its stdout a pipe closed before it writes.
fn with_stdout_closed(args: &[&str], out: &Path) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask runs");
    drop(child.stdout.take());
    child.wait_with_output().expect("xtask ends")
}

#[test]
fn a_run_piped_into_a_closed_reader_still_finishes_and_writes_its_files() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-closed-stdout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let out = root.join("digits");
    let done = with_stdout_closed(&["train", "digits-mlp", "--steps", "200"], &out);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{:?}: {stderr}", done.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    for file in ["checkpoint.safetensors", "metrics.jsonl", "curve.png", "config.json"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    std::fs::remove_dir_all(&root).unwrap();
}
