//! `cargo xtask train az-connect4` on a tiny config with one self-play
//! thread, stopped at a checkpoint and resumed in a new process, ends
//! bit-identical to an uninterrupted run, metrics included; a checkpoint
//! of another network is refused, naming the difference; the saved agent
//! and the best-rated snapshot evaluate.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn xtask(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).arg(out).output().expect("xtask runs")
}

fn train(out: &Path, config: &Path, iterations: u64, resume: bool) -> Output {
    let steps = iterations.to_string();
    let mut args = vec!["train", "az-connect4", "--steps", &steps, "--config", config.to_str().unwrap()];
    if resume {
        args.push("--resume");
    }
    args.push("--out");
    xtask(&args, out)
}

fn write_config(path: &Path, width: usize) {
    let config = format!(
        r#"{{"network": {{"width": {width}, "blocks": 1}}, "mcts": {{"simulations": 16}},
            "self_play": {{"workers": 1, "games_per_iteration": 8, "parallel_games": 8, "fast_simulations": 8}},
            "training": {{"min_replay": 60, "steps_per_iteration": 4, "batch": 16}},
            "eval": {{"every": 2, "games_vs_random": 2, "games_vs_rollout": 2, "rollout_simulations": 8,
                      "simulations": 4, "threads": 1, "final_games": 2}},
            "checkpoint_every": 2}}"#
    );
    std::fs::write(path, config).unwrap();
}

/// The metrics of a run without the ones that measure time.
fn metrics(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    let timed = ["games_per_min", "simulations_per_s", "train_seconds", "elo_seconds"];
    let mut lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for line in &mut lines {
        let fields = line.as_object_mut().unwrap();
        fields.retain(|key, _| !timed.contains(&key.as_str()));
    }
    lines
}

#[test]
fn az_resume_in_a_new_process_is_bit_identical() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-az-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let (config, other) = (root.join("config.json"), root.join("other.json"));
    write_config(&config, 16);
    write_config(&other, 24);
    let (straight, interrupted) = (root.join("straight"), root.join("interrupted"));
    let ok = |o: Output| {
        assert!(o.status.success(), "xtask failed: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    ok(train(&straight, &config, 6, false));
    ok(train(&interrupted, &config, 4, false));
    ok(train(&interrupted, &config, 6, true));

    let (a, b) = common::assert_same_checkpoints(&straight, &interrupted);
    assert_eq!(
        (a.meta("format"), a.meta("task"), a.meta("step")),
        (Some("minnow-run/1"), Some("az-connect4"), Some("6"))
    );
    assert_eq!(a.meta("rng.learn"), b.meta("rng.learn"));
    assert_ne!(a.meta("counter.optimizer.step_count"), Some("0"), "the learner never trained");
    // Every step and evaluation logged alike; the interrupted run also
    // logged the final evaluation of its first invocation, at iteration 4.
    let (m, mut n) = (metrics(&straight), metrics(&interrupted));
    let first_end = m.iter().zip(&n).position(|(a, b)| a != b).expect("the interrupted run logs one more line");
    assert_eq!(n.remove(first_end)["step"], 4);
    assert_eq!(m, n);
    assert!(m.iter().any(|l| l["step"] == 6 && l["win_rate_vs_rollout"].is_number()), "{m:?}");

    // Another network: refused, naming it.
    let refused = train(&interrupted, &other, 8, true);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("network.width = 16, this run is network.width = 24"), "{stderr}");
    let err =
        common::refused_resume("az-connect4", &interrupted, &["--seed", "99", "--config", config.to_str().unwrap()]);
    assert!(err.contains("this run is seed = 99"), "{err}");
    // The saved agent evaluates.
    let report = ok(xtask(&["eval", "az-connect4", "--games", "2", "--simulations", "2", "--checkpoint"], &straight));
    assert!(report.contains("after 6 iterations") && report.contains("vs random"), "{report}");
    // So does the best-rated snapshot, which both runs chose alike.
    let best = straight.join("best");
    let report = ok(xtask(&["eval", "az-connect4", "--games", "2", "--simulations", "2", "--checkpoint"], &best));
    assert!(report.contains("vs random"), "{report}");
    common::assert_same_checkpoints(&best, &interrupted.join("best"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(straight.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["elo"]["curve"].as_array().map(Vec::len), Some(3), "{summary}");
    let _ = std::fs::remove_dir_all(&root);
}
