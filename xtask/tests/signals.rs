//! A live run owns its `--out`: a second run into it is refused, and the
//! first Ctrl-C (SIGINT) or SIGTERM ends the run after its step with a
//! checkpoint to resume from (exit code 130), removing nothing, and the
//! resumed run ends as one never stopped; a second Ctrl-C soon after the
//! first quits at once. Temporary files a killed run left behind are
//! cleared when the next run starts.

#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn train(out: &Path, config: &Path, steps: u64, resume: bool) -> Command {
    train_task("dqn-cartpole", out, config, steps, resume)
}

fn train_task(task: &str, out: &Path, config: &Path, steps: u64, resume: bool) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(["train", task, "--steps", &steps.to_string(), "--config"]).arg(config).arg("--out").arg(out);
    if resume {
        cmd.arg("--resume");
    }
    cmd
}

/// Starts a run that would take far longer than the test and waits until
/// it has trained past its first metrics line.
fn start_long_run(task: &str, out: &Path, config: &Path) -> Child {
    start_run(task, out, config, 2_000_000)
}

/// Starts a run of `steps` and waits until it has trained past its first
/// metrics line.
fn start_run(task: &str, out: &Path, config: &Path, steps: u64) -> Child {
    start_run_past(task, out, config, steps, 2)
}

/// Starts a run of `steps` and waits until its metrics file has `lines`.
fn start_run_past(task: &str, out: &Path, config: &Path, steps: u64, lines: usize) -> Child {
    let mut child =
        train_task(task, out, config, steps, false).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while std::fs::read_to_string(out.join("metrics.jsonl")).map_or(true, |m| m.lines().count() < lines) {
        if child.try_wait().unwrap().is_some() {
            panic!("the run ended early: {}", finished(child).1);
        }
        assert!(started.elapsed() < Duration::from_secs(120), "the run shows no progress");
        std::thread::sleep(Duration::from_millis(100));
    }
    child
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

fn finished(child: Child) -> (Option<i32>, String) {
    let Output { status, stderr, .. } = child.wait_with_output().unwrap();
    (status.code(), String::from_utf8_lossy(&stderr).into_owned())
}

fn saved_step(out: &Path) -> u64 {
    let checkpoint = minnow_nn::Checkpoint::load(&out.join("checkpoint.safetensors")).unwrap();
    checkpoint.meta("step").unwrap().parse().unwrap()
}

#[test]
fn a_signal_checkpoints_and_a_second_run_into_the_same_out_is_refused() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-signals-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let out = root.join("run");
    std::fs::create_dir_all(&out).unwrap();
    let config = root.join("config.json");
    // Checkpoints only at the end: whatever is saved, the signal saved.
    std::fs::write(
        &config,
        r#"{"dqn": {"network": {"hidden": [16]}, "batch_size": 8, "learning_starts": 100, "checkpoint_every": 100000000,
            "eval_every": 100000000}, "eval": {"during": 1, "last": 1}}"#,
    )
    .unwrap();
    let stale = out.join(".checkpoint.safetensors.tmp");
    std::fs::write(&stale, b"torn").unwrap();

    let first = start_long_run("dqn-cartpole", &out, &config);
    assert!(!stale.exists(), "the stale temporary file is removed");
    let second = train(&out, &config, 1000, true).output().unwrap();
    let refused = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success() && refused.contains("in use by another run"), "{refused}");

    signal(&first, "INT");
    let (code, stderr) = finished(first);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("stopped at step") && stderr.contains("--resume"), "{stderr}");
    let step = saved_step(&out);
    assert!(step > 0);

    // The lock went with the process; SIGTERM stops the resumed run alike.
    let resumed = train(&out, &config, 2_000_000, true).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    signal(&resumed, "TERM");
    let (code, stderr) = finished(resumed);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(saved_step(&out) >= step, "{stderr}");
    let _ = std::fs::remove_dir_all(&root);
}

/// logic-ca, a population of members stepped together: the first signal
/// ends it the same way, with a checkpoint the run resumes from.
#[test]
fn a_signal_checkpoints_a_logic_ca_run() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-signals-logic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let (out, config) = (root.join("run"), root.join("config.json"));
    // Never done early, checkpoints only at the end.
    let json = r#"{"ca": {"height": 8, "width": 8}, "ca_steps": 2, "stop_score": 2, "checkpoint_every": 100000000}"#;
    std::fs::write(&config, json).unwrap();
    let run = start_long_run("logic-ca", &out, &config);
    signal(&run, "INT");
    let (code, stderr) = finished(run);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("stopped at step") && stderr.contains("--resume"), "{stderr}");
    let step = saved_step(&out);
    assert!(step > 0);
    let resumed = train_task("logic-ca", &out, &config, step + 2, true).output().unwrap();
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(resumed.status.success() && stdout.contains(&format!("resumed at step {step}")), "{stdout}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Wherever a Ctrl-C lands (here, wherever the run stands once its
/// metrics file has lines), `--resume` ends as a run never stopped: the
/// metrics line for line, the checkpoint tensor for tensor. digits-mlp
/// evaluates every step, so the stop lands on an evaluation; dqn-cartpole
/// stops between checkpoint boundaries, its episodes under way.
#[test]
fn a_signal_anywhere_resumes_to_the_same_bits() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-signals-exact-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    // Each long enough (2-3 s in a test build) for the signal to land in it.
    let dqn = r#"{"dqn": {"network": {"hidden": [64]}, "batch_size": 32, "learning_starts": 100,
        "eval_every": 2000, "checkpoint_every": 3000}, "eval": {"during": 1, "last": 1}}"#;
    for (task, json, steps) in
        [("digits-mlp", r#"{"checkpoint_every": 500, "eval_every": 1}"#, 4000), ("dqn-cartpole", dqn, 60_000)]
    {
        let (config, straight, stopped) = (root.join(format!("{task}.json")), root.join(task), root.join("stopped"));
        std::fs::write(&config, json).unwrap();
        let ran = train_task(task, &straight, &config, steps, false).output().unwrap();
        assert!(ran.status.success(), "{task}: {}", String::from_utf8_lossy(&ran.stderr));

        let run = start_run(task, &stopped, &config, steps);
        signal(&run, "INT");
        let (code, stderr) = finished(run);
        assert_eq!(code, Some(130), "{task}: the signal came too late? {stderr}");
        let step = saved_step(&stopped);
        assert!(0 < step && step < steps, "{task}: stopped at step {step}");
        let resumed = train_task(task, &stopped, &config, steps, true).output().unwrap();
        assert!(resumed.status.success(), "{task}: {}", String::from_utf8_lossy(&resumed.stderr));

        let metrics = |dir: &Path| std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
        let (a, b) = (metrics(&straight), metrics(&stopped));
        assert!(
            a == b,
            "{task}, stopped at step {step}: {} metrics lines, resumed {}",
            a.lines().count(),
            b.lines().count()
        );
        common::assert_same_checkpoints(&straight, &stopped);
        std::fs::remove_dir_all(&stopped).unwrap();
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// A second Ctrl-C, however soon after the first, quits at once (exit
/// code 130) rather than waiting for the step under way: here an
/// az-connect4 iteration of 600 updates, seconds long (the first, before
/// the replay fills, has none).
#[test]
fn a_second_ctrl_c_soon_after_the_first_quits_at_once() {
    let root = std::env::temp_dir().join(format!("minnow-xtask-signals-twice-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let config = root.join("config.json");
    std::fs::write(
        &config,
        r#"{"network": {"width": 32, "blocks": 2}, "mcts": {"simulations": 16},
            "self_play": {"workers": 1, "games_per_iteration": 8, "parallel_games": 8, "fast_simulations": 8},
            "training": {"min_replay": 30, "steps_per_iteration": 600, "batch": 256},
            "eval": {"every": 1000, "elo_pool": 0}}"#,
    )
    .unwrap();
    for delay in [50, 500] {
        let out = root.join(format!("after-{delay}ms"));
        let run = start_run_past("az-connect4", &out, &config, 1000, 1);
        signal(&run, "INT");
        std::thread::sleep(Duration::from_millis(delay));
        signal(&run, "INT");
        let second = Instant::now();
        let (code, stderr) = finished(run);
        let took = second.elapsed();
        assert_eq!(code, Some(130), "{stderr}");
        assert!(stderr.contains("stopping after this step"), "{delay} ms: the first signal came too late? {stderr}");
        assert!(stderr.contains("\ninterrupted") && !stderr.contains("stopped at step"), "{delay} ms: {stderr}");
        assert!(took < Duration::from_secs(1), "{delay} ms apart: ended {took:?} after the second");
    }
    let _ = std::fs::remove_dir_all(&root);
}
