//! A closed stdout (`cargo xtask train ... | head -1`) does not end a run:
//! the report the pipe cannot take is dropped, and the run still finishes,
//! checkpoints and writes its files; `solve` still solves.

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs xtask with `args` and `--out OUT`, its stdout a pipe closed
/// before it writes.
fn with_stdout_closed(args: &[&str], out: &Path) -> std::process::Output {
    with_stdout_closed_to(&[args, &["--out", out.to_str().unwrap()]].concat())
}

fn with_stdout_closed_to(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
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
    std::fs::create_dir_all(&root).unwrap();
    let az = root.join("az.json");
    // A tiny self-play run whose final suite (Pons' positions, the Elo
    // curve) prints a report too.
    std::fs::write(
        &az,
        r#"{"network": {"width": 8, "blocks": 1}, "mcts": {"simulations": 8},
            "self_play": {"workers": 1, "games_per_iteration": 4, "parallel_games": 4, "fast_simulations": 4},
            "training": {"min_replay": 8, "steps_per_iteration": 2, "batch": 8},
            "eval": {"every": 1, "games_vs_random": 2, "games_vs_rollout": 2, "rollout_simulations": 4,
                      "simulations": 2, "threads": 1, "final_games": 2, "elo_pool": 2}}"#,
    )
    .unwrap();
    let az = az.to_str().unwrap();
    for (task, args, files) in [
        (
            "digits-mlp",
            &["--steps", "200"][..],
            &["checkpoint.safetensors", "metrics.jsonl", "curve.png", "config.json"][..],
        ),
        (
            "az-connect4",
            &["--steps", "3", "--config", az],
            &["checkpoint.safetensors", "curve.png", "elo.png", "summary.json", "best"],
        ),
    ] {
        let out = root.join(task);
        let done = with_stdout_closed(&[&["train", task], args].concat(), &out);
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(done.status.success(), "{task}: {:?}: {stderr}", done.status);
        assert!(!stderr.contains("panicked"), "{task}: {stderr}");
        for file in files {
            assert!(out.join(file).exists(), "{task}: {file} missing");
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn solve_into_a_closed_reader_solves_and_ends_cleanly() {
    let done = with_stdout_closed_to(&["solve", "cube", "--random", "3"]);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{:?}: {stderr}", done.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
