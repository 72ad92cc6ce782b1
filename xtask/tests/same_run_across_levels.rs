//! A run trains to the same bits whatever SIMD width the machine has:
//! `dqn-cartpole` and `az-connect4` on small configs, once capped at AVX2
//! (`MINNOW_SIMD=avx2`) and once at AVX-512, end with the same
//! checkpoint. On a CPU without AVX-512 there is nothing to compare, and the
//! test says so.

// Shared with the resume tests, which use the rest of it.
#[allow(dead_code)]
mod common;

use minnow_kernels::{Level, supported_levels};
use std::path::Path;
use std::process::Command;

/// Trains `task` into `root/level` with kernels capped at `level`.
fn train(root: &Path, task: &str, config: &str, steps: u64, level: &str) {
    let config_path = root.join(format!("{task}.json"));
    std::fs::write(&config_path, config).unwrap();
    let out = root.join(format!("{task}-{level}"));
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["train", task, "--steps", &steps.to_string(), "--config"])
        .arg(&config_path)
        .arg("--out")
        .arg(&out)
        .env("MINNOW_SIMD", level)
        .output()
        .expect("xtask runs");
    assert!(output.status.success(), "{task} at {level}: {}", String::from_utf8_lossy(&output.stderr));
}

fn same_at_both_levels(task: &str, config: &str, steps: u64) {
    let root = std::env::temp_dir().join(format!("minnow-xtask-levels-{task}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    for level in ["avx2", "avx512"] {
        train(&root, task, config, steps, level);
    }
    common::assert_same_checkpoints(&root.join(format!("{task}-avx2")), &root.join(format!("{task}-avx512")));
    std::fs::remove_dir_all(&root).unwrap();
}

fn has_avx512() -> bool {
    let wide = supported_levels().contains(&Level::Avx512);
    if !wide {
        eprintln!("this CPU has no AVX-512: AVX2 was not compared against it");
    }
    wide
}

#[test]
fn dqn_cartpole_is_the_same_at_avx2_and_avx512() {
    if has_avx512() {
        let config = r#"{"dqn": {"network": {"hidden": [32]}, "batch_size": 16, "learning_starts": 100,
            "checkpoint_every": 600, "eval_every": 600}, "eval": {"during": 2, "last": 2}}"#;
        same_at_both_levels("dqn-cartpole", config, 600);
    }
}

#[test]
fn az_connect4_is_the_same_at_avx2_and_avx512() {
    if has_avx512() {
        let config = r#"{"network": {"width": 16, "blocks": 1}, "mcts": {"simulations": 16},
            "self_play": {"workers": 1, "games_per_iteration": 8, "parallel_games": 8, "fast_simulations": 8},
            "training": {"min_replay": 60, "steps_per_iteration": 4, "batch": 16},
            "eval": {"every": 0, "final_games": 2, "threads": 1}, "checkpoint_every": 2}"#;
        same_at_both_levels("az-connect4", config, 4);
    }
}
