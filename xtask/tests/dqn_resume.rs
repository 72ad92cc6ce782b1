//! `cargo xtask train dqn-cartpole`, stopped at a checkpoint and resumed in
//! a new process, ends bit-identical to an uninterrupted run; `eval` on the
//! saved run reproduces its final evaluation; bad configs and mismatched
//! checkpoints are refused with a message.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn train(out: &Path, config: &Path, steps: u64, resume: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(["train", "dqn-cartpole", "--steps", &steps.to_string(), "--config"]).arg(config).arg("--out").arg(out);
    if resume {
        cmd.arg("--resume");
    }
    cmd.output().expect("xtask runs")
}

fn write_config(path: &Path, hidden: usize) {
    write_config_with_env(path, hidden, "{}");
}

fn write_config_with_env(path: &Path, hidden: usize, env: &str) {
    let config = format!(
        r#"{{"dqn": {{"network": {{"hidden": [{hidden}]}}, "batch_size": 16, "learning_starts": 100,
            "checkpoint_every": 800, "eval_every": 800, "replay": {{"prioritized": true}}}},
            "eval": {{"during": 2, "last": 2}}, "env": {env}}}"#
    );
    std::fs::write(path, config).unwrap();
}

#[test]
fn dqn_resume_in_a_new_process_is_bit_identical() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-dqn-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let (config, other) = (root.join("config.json"), root.join("other.json"));
    write_config(&config, 32);
    write_config(&other, 48);
    let (straight, interrupted) = (root.join("straight"), root.join("interrupted"));
    let ok = |o: Output| assert!(o.status.success(), "xtask failed: {}", String::from_utf8_lossy(&o.stderr));
    let trained = train(&straight, &config, 1600, false);
    ok(trained.clone());
    ok(train(&interrupted, &config, 800, false));
    ok(train(&interrupted, &config, 1600, true));

    let (a, b) = common::assert_same_checkpoints(&straight, &interrupted);
    assert_eq!(a.meta("counter.env_steps"), Some("1600"));
    assert_eq!(a.meta("format"), Some("minnow-run/1"));
    assert_eq!(a.meta("recent"), b.meta("recent"));
    // The metrics files and TensorBoard scalars match line for line.
    let metrics = |dir: &Path| std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics(&straight), metrics(&interrupted));
    let events = |dir: &Path| std::fs::metadata(dir.join("events.out.tfevents.minnow")).unwrap().len();
    assert_eq!(events(&straight), events(&interrupted));

    // `eval` on the saved run plays the games of its final evaluation
    // (the same count and seed) to the same return.
    let evaluated = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["eval", "dqn-cartpole", "--games", "2", "--checkpoint"])
        .arg(&straight)
        .output()
        .expect("xtask runs");
    ok(evaluated.clone());
    let final_line = |o: &Output| {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        text.lines().find(|l| l.starts_with("greedy return over 2 episodes")).map(str::to_string)
    };
    assert!(final_line(&trained).is_some(), "{}", String::from_utf8_lossy(&trained.stdout));
    assert_eq!(final_line(&evaluated), final_line(&trained));

    // Another seed on --resume: refused, naming both values.
    let args = ["--steps", "2400", "--seed", "99", "--config", config.to_str().unwrap()];
    let err = common::refused_resume("dqn-cartpole", &interrupted, &args);
    assert!(err.contains("dqn.seed = 0, this run is dqn.seed = 99"), "{err}");
    // The environment shapes the run too.
    write_config_with_env(&other, 32, r#"{"max_steps": 200}"#);
    let err = common::refused_resume("dqn-cartpole", &interrupted, &["--config", other.to_str().unwrap()]);
    assert!(err.contains("env.max_steps = 500, this run is env.max_steps = 200"), "{err}");
    write_config(&other, 48);
    // Another network shape: refused, naming the difference.
    let refused = train(&interrupted, &other, 2400, true);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("hidden"));
    // A config out of range.
    std::fs::write(&other, r#"{"dqn": {"gamma": 1.5}}"#).unwrap();
    let refused = train(&root.join("fresh"), &other, 100, false);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("gamma"), "{refused:?}");
    // A nested key out of range, and an unknown one: each named with its section.
    std::fs::write(&other, r#"{"dqn": {"replay": {"capacity": 8}}}"#).unwrap();
    let refused = train(&root.join("fresh"), &other, 100, false);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("replay.capacity"), "{refused:?}");
    std::fs::write(&other, r#"{"dqn": {"replay": {"capcity": 8}}}"#).unwrap();
    let refused = train(&root.join("fresh"), &other, 100, false);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("replay.capcity"), "{refused:?}");
    // Inside a tagged section too (the target update's variant fields).
    std::fs::write(&other, r#"{"dqn": {"target": {"taus": 0.5}}}"#).unwrap();
    let refused = train(&root.join("fresh"), &other, 100, false);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("taus"), "{refused:?}");
    let _ = std::fs::remove_dir_all(&root);
}
