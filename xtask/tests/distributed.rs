//! `cargo xtask train` as an MPI job (built with `--features mpi`; the
//! tests launch `mpirun` on loopback with 2 and 3 ranks): a data-parallel
//! digits step equals the one-process step up to the order of additions,
//! a seed sweep spread over ranks gives exactly the rows of one process per
//! seed, and ranks started with different configs are refused; a
//! data-parallel DQN run stays within a bound of the one-process run and
//! resumes at another rank count;
//! AlphaZero self-play with a learner and one actor trains the bits of one
//! process, a job killed through one of its actors resumes from the
//! learner's last checkpoint on another rank count, and SIGUSR1 to mpirun
//! stops a job with a checkpoint that resumes; a rank killed with SIGKILL
//! (an actor of self-play, a rank of data-parallel DQN) ends the job with
//! a message from every rank, and the resumed run ends on the bits of an
//! uninterrupted one.
#![cfg(feature = "mpi")]

#[allow(dead_code)]
mod common;

use minnow_nn::Checkpoint;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn mpirun(ranks: usize) -> Command {
    let mut cmd = Command::new("mpirun");
    cmd.args(["--allow-run-as-root", "--oversubscribe", "-np", &ranks.to_string(), XTASK]);
    cmd
}

fn ok(output: Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed: {stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn root(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("minnow-xtask-dist-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

/// The largest difference between two checkpoints' tensors of a group,
/// relative to each tensor's largest magnitude.
fn max_relative_difference(a: &Checkpoint, b: &Checkpoint, group: &str) -> f32 {
    let mut worst = 0.0f32;
    let names: Vec<&str> = a.names().filter(|n| n.starts_with(group)).collect();
    assert!(!names.is_empty(), "no tensor under {group}");
    for name in names {
        let (x, y) = (a.tensor(name).unwrap(), b.tensor(name).unwrap());
        let scale = x.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(f32::MIN_POSITIVE);
        let diff = x.iter().zip(y).fold(0.0f32, |m, (u, v)| m.max((u - v).abs()));
        worst = worst.max(diff / scale);
    }
    worst
}

#[test]
fn a_data_parallel_digits_step_equals_the_one_process_step() {
    let root = root("digits");
    for steps in [1u64, 50] {
        let train = |cmd: &mut Command, name: &str| {
            let out = root.join(format!("{name}-{steps}"));
            cmd.args(["train", "digits-mlp", "--steps", &steps.to_string(), "--out"]).arg(&out);
            ok(cmd.output().expect("runs"));
            Checkpoint::load(&out.join("checkpoint.safetensors")).unwrap()
        };
        let one = train(&mut Command::new(XTASK), "one");
        for ranks in [2, 3] {
            let many = train(&mut mpirun(ranks), &format!("ranks{ranks}"));
            let names: Vec<&str> = one.names().collect();
            assert_eq!(names, many.names().collect::<Vec<_>>());
            // After one step Adam's first moment is 0.1 x the gradient.
            let (params, moments) = (
                max_relative_difference(&one, &many, "model."),
                max_relative_difference(&one, &many, "optimizer.adam.m."),
            );
            println!("{ranks} ranks, {steps} steps: parameters within {params:e}, first moments within {moments:e}");
            // The shards' sums come in another order than one GEMM's over
            // the whole batch: a few ulps of a tensor's scale after one step
            // (measured: 2.4e-7 with 2 and 3 ranks), compounding over steps
            // (3.4e-6 after 50 with 3 ranks).
            let bound = if steps == 1 { 4.0 * f32::EPSILON } else { 1e-4 };
            assert!(params <= bound && moments <= bound, "{ranks} ranks, {steps} steps: {params:e}, {moments:e}");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_run_resumes_at_another_rank_count() {
    let root = root("resume");
    let train = |cmd: &mut Command, out: &Path, steps: u64, resume: bool| {
        cmd.args(["train", "digits-mlp", "--steps", &steps.to_string(), "--out"]).arg(out);
        if resume {
            cmd.arg("--resume");
        }
        ok(cmd.output().expect("runs"));
        Checkpoint::load(&out.join("checkpoint.safetensors")).unwrap()
    };
    let one = train(&mut Command::new(XTASK), &root.join("one"), 40, false);
    let moved = root.join("moved");
    train(&mut mpirun(2), &moved, 20, false);
    let resumed = train(&mut mpirun(3), &moved, 40, true);
    assert_eq!(resumed.meta("step"), Some("40"));
    let params = max_relative_difference(&one, &resumed, "model.");
    println!("2 ranks then 3, 40 steps: parameters within {params:e} of one process");
    assert!(params <= 1e-4, "{params:e}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_data_parallel_dqn_run_is_the_one_process_run_up_to_the_sum_order() {
    let root = root("dqn");
    let config = root.join("config.json");
    // Prioritized replay and a batch of 20 (shards of 10, and 6, 7, 7).
    std::fs::write(
        &config,
        r#"{"dqn": {"network": {"hidden": [32]}, "batch_size": 20, "learning_starts": 100, "checkpoint_every": 200,
            "eval_every": 200, "replay": {"prioritized": true}}, "eval": {"during": 2, "last": 2}}"#,
    )
    .unwrap();
    let train = |cmd: &mut Command, out: &Path, steps: u64, resume: bool| {
        cmd.args(["train", "dqn-cartpole", "--distributed", "--steps", &steps.to_string(), "--config"]).arg(&config);
        cmd.arg("--out").arg(out);
        if resume {
            cmd.arg("--resume");
        }
        let stdout = ok(cmd.output().expect("runs"));
        (stdout, Checkpoint::load(&out.join("checkpoint.safetensors")).unwrap())
    };
    let one = root.join("one");
    let mut alone = Command::new(XTASK);
    alone.args(["train", "dqn-cartpole", "--steps", "400", "--config"]).arg(&config).arg("--out").arg(&one);
    ok(alone.output().expect("runs"));
    let one = Checkpoint::load(&one.join("checkpoint.safetensors")).unwrap();
    for ranks in [2, 3] {
        let (stdout, many) = train(&mut mpirun(ranks), &root.join(format!("ranks{ranks}")), 400, false);
        assert!(stdout.contains(&format!("on {ranks} ranks, data-parallel")), "{stdout}");
        assert_eq!(stdout.matches("final greedy evaluation").count(), 1, "rank 0 alone evaluates: {stdout}");
        assert_eq!(one.meta("counter.updates"), many.meta("counter.updates"));
        let params = max_relative_difference(&one, &many, "online.");
        let updates = many.meta("counter.updates").unwrap_or("?");
        println!(
            "dqn-cartpole on {ranks} ranks, 400 steps ({updates} updates): parameters within {params:e} of one process"
        );
        // Each update rounds the rows' sums another way (measured: 2.2e-7
        // and 1.4e-7 of a tensor's scale on 2 and 3 ranks).
        assert!(params <= 1e-5, "{ranks} ranks: {params:e}");
    }
    // Stopped after 200 steps on 2 ranks, resumed on 3: a run of its own.
    let moved = root.join("moved");
    train(&mut mpirun(2), &moved, 200, false);
    let (_, resumed) = train(&mut mpirun(3), &moved, 400, true);
    assert_eq!(resumed.meta("counter.env_steps"), Some("400"));
    let _ = std::fs::remove_dir_all(&root);
}

/// Waits until the job writing `out` has a checkpoint at step `at_least`
/// or later, then kills its rank `rank` with SIGKILL and waits for the
/// job to end; returns what mpirun printed to stderr and the step of the
/// checkpoint left behind.
fn kill_rank_after(job: std::process::Child, out: &Path, rank: usize, at_least: u64) -> (String, u64) {
    let checkpoint = out.join("checkpoint.safetensors");
    let started = std::time::Instant::now();
    let mut job = job;
    while checkpoint_step(&checkpoint).is_none_or(|s| s < at_least) {
        assert!(started.elapsed().as_secs() < 120, "no checkpoint at step {at_least} within 2 minutes");
        assert!(job.try_wait().unwrap().is_none(), "the job ended before it was killed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = rank_pid(out, rank).expect("the rank runs");
    assert!(Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap().success());
    let output = job.wait_with_output().unwrap();
    assert!(!output.status.success(), "the job survived a killed rank");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (stderr, checkpoint_step(&checkpoint).expect("the last checkpoint is whole"))
}

/// Every rank of a job that lost rank `killed` said why it ends: mpirun
/// names the killed rank, each other rank that the launcher is ending the
/// job and how to continue.
fn assert_every_rank_explains(stderr: &str, ranks: usize, killed: usize) {
    assert!(stderr.contains(&format!("process rank {killed} with PID")), "{stderr}");
    assert!(stderr.contains("exited on signal 9 (Killed)"), "{stderr}");
    for rank in (0..ranks).filter(|&r| r != killed) {
        let said = format!("rank {rank}: the launcher is ending the job (interrupted, or a rank failed)");
        assert!(stderr.contains(&said), "rank {rank} said nothing: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_rank_of_data_parallel_dqn_killed_midway_resumes_to_the_uninterrupted_bits() {
    let root = root("dqn-kill");
    let config = root.join("config.json");
    std::fs::write(
        &config,
        r#"{"dqn": {"network": {"hidden": [32]}, "batch_size": 20, "learning_starts": 100, "checkpoint_every": 200,
            "eval_every": 1000, "replay": {"prioritized": true}}, "eval": {"during": 2, "last": 2}}"#,
    )
    .unwrap();
    let steps = "8000";
    let train = |out: &Path| {
        let mut cmd = mpirun(2);
        cmd.args(["train", "dqn-cartpole", "--distributed", "--steps", steps, "--config"]).arg(&config);
        cmd.arg("--out").arg(out);
        cmd
    };
    let (straight, killed) = (root.join("straight"), root.join("killed"));
    ok(train(&straight).output().expect("runs"));
    let job = train(&killed).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let (stderr, at) = kill_rank_after(job, &killed, 1, 1000);
    assert_every_rank_explains(&stderr, 2, 1);
    assert!(at < 8000, "the job finished before the kill");
    ok(train(&killed).arg("--resume").output().expect("runs"));
    let (resumed, _) = common::assert_same_checkpoints(&straight, &killed);
    assert_eq!(resumed.meta("counter.env_steps"), Some(steps));
    let metrics = |dir: &Path| std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert_eq!(metrics(&straight), metrics(&killed), "killed at step {at} and resumed");
    let _ = std::fs::remove_dir_all(&root);
}

/// The rows of a sweep's table without the times (the last two cells).
fn rows(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| seed"))
        .map(|l| l.rsplitn(3, " | ").nth(2).unwrap_or(l).to_string())
        .collect()
}

#[test]
fn a_sweep_over_ranks_gives_the_rows_of_one_process_per_seed() {
    let root = root("sweep");
    let config = root.join("config.json");
    std::fs::write(&config, r#"{"ca": {"height": 8, "width": 8}, "ca_steps": 2, "population": 1}"#).unwrap();
    let sweep = |cmd: &mut Command, seeds: &str| {
        cmd.args(["train", "logic-ca", "--steps", "30", "--config"]).arg(&config).args(["--sweep-seeds", seeds]);
        ok(cmd.output().expect("runs"))
    };
    let single: Vec<String> =
        (1..=4).flat_map(|seed| rows(&sweep(&mut Command::new(XTASK), &seed.to_string()))).collect();
    assert_eq!(single.len(), 4, "{single:?}");
    for ranks in [2, 3] {
        let stdout = sweep(&mut mpirun(ranks), "1..4");
        assert!(stdout.contains(&format!("spread over {ranks} ranks")), "{stdout}");
        assert_eq!(rows(&stdout), single, "{ranks} ranks:\n{stdout}");
        assert_eq!(stdout.matches("sweep: ").count(), 2, "rank 0 alone prints: {stdout}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn ranks_started_with_different_configs_are_refused_naming_the_key() {
    let root = root("mismatch");
    let out = root.join("run");
    let args = |seed: &'static str| ["train", "digits-mlp", "--steps", "2", "--seed", seed, "--out"];
    let mut cmd = Command::new("mpirun");
    cmd.args(["--allow-run-as-root", "--oversubscribe", "-np", "1", XTASK]).args(args("1")).arg(&out);
    cmd.args([":", "-np", "1", XTASK]).args(args("2")).arg(&out);
    let output = cmd.output().expect("mpirun runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("rank 1 runs with config.seed = 2, rank 0 with config.seed = 1"), "{stderr}");
    assert!(!out.join("checkpoint.safetensors").exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn distributed_without_a_launcher_says_how_to_launch() {
    let output = Command::new(XTASK).args(["train", "digits-mlp", "--distributed"]).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("needs an MPI launcher: start it with `mpirun -np K"), "{stderr}");
}

#[test]
fn a_task_that_does_not_train_distributed_is_refused() {
    let output = mpirun(2).args(["train", "ntuple-2048", "--out", "/nonexistent/never"]).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("'ntuple-2048' does not train distributed"), "{stderr}");
    assert!(!Path::new("/nonexistent/never").exists());
}

/// A tiny az-connect4 config: one self-play thread per process, a
/// checkpoint every `checkpoint_every` iterations, evaluations only every
/// `eval_every`.
fn write_az_config(path: &Path, checkpoint_every: u64, eval_every: u64) {
    let config = format!(
        r#"{{"network": {{"width": 16, "blocks": 1}}, "mcts": {{"simulations": 16}},
            "self_play": {{"workers": 1, "games_per_iteration": 8, "parallel_games": 8, "fast_simulations": 8}},
            "training": {{"min_replay": 60, "steps_per_iteration": 4, "batch": 16}},
            "eval": {{"every": {eval_every}, "games_vs_random": 2, "games_vs_rollout": 2, "rollout_simulations": 8,
                      "simulations": 4, "threads": 1, "final_games": 2, "elo_pool": 0}},
            "checkpoint_every": {checkpoint_every}}}"#
    );
    std::fs::write(path, config).unwrap();
}

fn train_az<'a>(cmd: &'a mut Command, config: &Path, out: &Path, iterations: u64) -> &'a mut Command {
    cmd.args(["train", "az-connect4", "--steps", &iterations.to_string(), "--config"]).arg(config).arg("--out").arg(out)
}

#[test]
fn a_learner_and_one_actor_train_the_bits_of_one_process() {
    let root = root("az-bits");
    let config = root.join("config.json");
    write_az_config(&config, 2, 2);
    let (one, two) = (root.join("one"), root.join("two"));
    ok(train_az(&mut Command::new(XTASK), &config, &one, 4).output().expect("runs"));
    let stdout = ok(train_az(&mut mpirun(2), &config, &two, 4).arg("--distributed").output().expect("runs"));
    assert!(stdout.contains("the learner + 1 actor rank(s)"), "{stdout}");
    let (a, b) = (
        Checkpoint::load(&one.join("checkpoint.safetensors")).unwrap(),
        Checkpoint::load(&two.join("checkpoint.safetensors")).unwrap(),
    );
    let names: Vec<&str> = a.names().collect();
    assert_eq!(names, b.names().collect::<Vec<_>>());
    for group in ["model.", "optimizer.", "replay."] {
        assert!(names.iter().any(|n| n.starts_with(group)), "no tensor under {group}");
    }
    for name in names {
        assert!(a.tensor(name).unwrap() == b.tensor(name).unwrap(), "{name} differs");
    }
    assert_eq!(a.meta("step"), Some("4"));
    let _ = std::fs::remove_dir_all(&root);
}

/// The pid of rank `rank` of the job whose command line names `out`.
fn rank_pid(out: &Path, rank: usize) -> Option<u32> {
    let needle = out.to_string_lossy().into_owned();
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
        let environ = std::fs::read(entry.path().join("environ")).ok()?;
        let is_rank = environ.split(|&b| b == 0).any(|v| v == want.as_bytes());
        let ours = String::from_utf8_lossy(&cmdline).contains(&needle) && cmdline.starts_with(XTASK.as_bytes());
        (is_rank && ours).then_some(pid)
    })
}

/// A 1000-iteration distributed az-connect4 job on `ranks` ranks, its
/// output kept to read (`piped`) or dropped.
fn start_az_job(ranks: usize, config: &Path, out: &Path, piped: bool) -> std::process::Child {
    let output = || if piped { std::process::Stdio::piped() } else { std::process::Stdio::null() };
    train_az(&mut mpirun(ranks), config, out, 1000)
        .arg("--distributed")
        .stdout(output())
        .stderr(output())
        .spawn()
        .expect("mpirun starts")
}

/// The step of the checkpoint at `path`, if it is there and whole.
fn checkpoint_step(path: &Path) -> Option<u64> {
    Checkpoint::load(path).ok()?.meta("step")?.parse().ok()
}

/// Resumes the job of `out` with a learner and one actor to iteration
/// `to`, which its checkpoint then records.
fn resume_with_one_actor(config: &Path, out: &Path, to: u64) {
    let stdout = ok(train_az(&mut mpirun(2), config, out, to).args(["--distributed", "--resume"]).output().unwrap());
    assert!(stdout.contains("the learner + 1 actor rank(s)"), "{stdout}");
    assert_eq!(checkpoint_step(&out.join("checkpoint.safetensors")), Some(to));
}

#[test]
fn a_killed_actor_leaves_a_checkpoint_that_resumes_at_another_rank_count() {
    let root = root("az-kill");
    let config = root.join("config.json");
    write_az_config(&config, 1, 1000);
    let out = root.join("run");
    let (stderr, at) = kill_rank_after(start_az_job(3, &config, &out, true), &out, 2, 2);
    assert_every_rank_explains(&stderr, 3, 2);
    resume_with_one_actor(&config, &out, at + 2);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_killed_actor_resumes_to_the_bits_of_an_uninterrupted_run() {
    let root = root("az-kill-exact");
    let config = root.join("config.json");
    write_az_config(&config, 1, 1000);
    let out = root.join("run");
    let (_, at) = kill_rank_after(start_az_job(2, &config, &out, true), &out, 1, 2);
    resume_with_one_actor(&config, &out, at + 2);
    // A learner and one actor train the bits of one process.
    let straight = root.join("straight");
    ok(train_az(&mut Command::new(XTASK), &config, &straight, at + 2).output().expect("runs"));
    common::assert_same_checkpoints(&straight, &out);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn distributed_self_play_on_one_rank_says_it_needs_two() {
    let root = root("az-one-rank");
    let config = root.join("config.json");
    write_az_config(&config, 1, 1);
    let output = train_az(&mut mpirun(1), &config, &root.join("run"), 2).arg("--distributed").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("distributed self-play needs at least 2 ranks"), "{stderr}");
    assert!(!root.join("run").exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn sigusr1_to_mpirun_stops_the_job_with_a_checkpoint_that_resumes() {
    let root = root("az-usr1");
    let config = root.join("config.json");
    // No checkpoint on the cadence: the one found is the stop's.
    write_az_config(&config, 1000, 1000);
    let out = root.join("run");
    let checkpoint = out.join("checkpoint.safetensors");
    let job = start_az_job(2, &config, &out, true);
    let started = std::time::Instant::now();
    // Once the run is under way (its first iteration logged: a signal
    // before that finds no run to stop), a stop as a scheduler or a user
    // would ask for one: mpirun passes SIGUSR1 on to every rank.
    let metrics = out.join("metrics.jsonl");
    while !std::fs::read(&metrics).is_ok_and(|m| m.contains(&b'\n')) {
        assert!(started.elapsed().as_secs() < 60, "no iteration logged within a minute");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(Command::new("kill").args(["-USR1", &job.id().to_string()]).status().unwrap().success());
    let output = job.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("SIGUSR1: stopping after this step"), "{stderr}");
    assert!(!stderr.contains("interrupted"), "{stderr}");
    assert!(rank_pid(&out, 0).is_none() && rank_pid(&out, 1).is_none(), "a rank outlived the job");
    let at = checkpoint_step(&checkpoint).expect("the stop wrote a whole checkpoint");
    assert!((1..1000).contains(&at), "stopped at iteration {at}");
    resume_with_one_actor(&config, &out, at + 2);
    let _ = std::fs::remove_dir_all(&root);
}
