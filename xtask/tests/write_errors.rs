//! A run whose history cannot be written stops, rather than train on
//! while its metrics are lost: `metrics.jsonl` made immutable mid-run
//! (`chattr +i`), the disk filled (a tmpfs of a few MiB), the run
//! directory deleted or moved. The run exits with an error naming the file
//! and what the system said (or that the directory is gone), its last
//! checkpoint matching the history written, and `--resume` once the file
//! can be written again ends with the same `metrics.jsonl` as a run never
//! interrupted.

// Shared with the resume tests, which use the rest of it.
#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Long enough (a second or two) that the run is still going when the
/// test breaks its files, after its first checkpoint.
const STEPS: &str = "3000";
const CONFIG: &str = r#"{"checkpoint_every": 100, "eval_every": 500}"#;

fn root(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("minnow-xtask-writes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("config.json"), CONFIG).unwrap();
    root
}

fn train(root: &Path, out: &Path, resume: bool) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(["train", "digits-mlp", "--steps", STEPS, "--config"]).arg(root.join("config.json")).arg("--out").arg(out);
    if resume {
        cmd.arg("--resume");
    }
    cmd
}

fn succeeds(mut cmd: Command) {
    let output = cmd.output().expect("xtask runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// Starts a run into `out`, calls `break_it` once its first checkpoint is
/// written, and returns how the run ended.
fn broken_midway(root: &Path, out: &Path, break_it: impl FnOnce()) -> Output {
    let child = train(root, out, false).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("xtask runs");
    let started = Instant::now();
    while !out.join("checkpoint.safetensors").exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "no checkpoint written");
        std::thread::sleep(Duration::from_millis(2));
    }
    break_it();
    child.wait_with_output().expect("xtask ends")
}

/// Asserts that `run` failed cleanly, saying `words`; returns its stderr.
fn failed_saying(run: &Output, words: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_eq!(run.status.code(), Some(1), "the run must fail: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for w in words {
        assert!(stderr.contains(w), "expected '{w}' in: {stderr}");
    }
    assert!(!String::from_utf8_lossy(&run.stdout).contains("wrote "), "a failed run claims its files");
    stderr
}

/// The checkpoint's step, and the steps of the loss lines.
fn history(out: &Path) -> (u64, Vec<u64>) {
    let checkpoint = minnow_nn::Checkpoint::load(&out.join("checkpoint.safetensors")).expect("the checkpoint loads");
    let text = std::fs::read_to_string(out.join("metrics.jsonl")).unwrap();
    let steps = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v.get("loss").is_some())
        .filter_map(|v| v["step"].as_u64())
        .collect();
    (checkpoint.meta("step").unwrap().parse().unwrap(), steps)
}

/// Resumes the broken run and holds its history and checkpoint to the
/// uninterrupted one's.
fn resumed_equals_straight(root: &Path, broken: &Path, straight: &Path) {
    let (saved, steps) = history(broken);
    // The history reaches the checkpoint: every step up to it, once.
    assert!(saved >= 100 && steps.len() as u64 >= saved, "checkpoint {saved}, {} loss lines", steps.len());
    assert!(steps.iter().take(saved as usize).copied().eq(1..=saved), "the history up to step {saved} has gaps");
    succeeds(train(root, broken, true));
    let read = |dir: &Path| std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert!(read(broken) == read(straight), "the resumed run's metrics.jsonl differs from the uninterrupted one's");
    common::assert_same_checkpoints(straight, broken);
}

/// `chattr` on `path`; false where it cannot (not root, not ext2/3/4).
fn chattr(flag: &str, path: &Path) -> bool {
    Command::new("chattr").arg(flag).arg(path).status().is_ok_and(|s| s.success())
}

/// Makes a file writable again however the test ends.
struct Mutable(PathBuf);

impl Drop for Mutable {
    fn drop(&mut self) {
        chattr("-i", &self.0);
    }
}

#[test]
fn an_immutable_metrics_file_stops_the_run_and_a_resume_loses_no_line() {
    let root = root("immutable");
    let probe = root.join("probe");
    std::fs::write(&probe, "").unwrap();
    if !chattr("+i", &probe) {
        eprintln!("skipped: `chattr +i` needs root and an ext2/3/4 file system under {}", root.display());
        return;
    }
    chattr("-i", &probe);
    let (straight, broken) = (root.join("straight"), root.join("broken"));
    succeeds(train(&root, &straight, false));

    let metrics = broken.join("metrics.jsonl");
    let guard = Mutable(metrics.clone());
    let run = broken_midway(&root, &broken, || assert!(chattr("+i", &metrics)));
    let stderr =
        failed_saying(&run, &["metrics.jsonl: Operation not permitted", "the run's history could not be written"]);
    assert!(stderr.contains(&metrics.display().to_string()), "{stderr}");
    drop(guard);

    resumed_equals_straight(&root, &broken, &straight);
    std::fs::remove_dir_all(&root).unwrap();
}

/// Unmounts the tmpfs however the test ends.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_stops_the_run_and_a_resume_once_there_is_room_loses_no_line() {
    let root = root("full");
    let disk = root.join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"]).arg(&disk).output();
    if !mounted.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: cannot mount a tmpfs to fill (needs root): {mounted:?}");
        return;
    }
    let _mounted = Mounted(disk.clone());
    let (straight, broken) = (root.join("straight"), disk.join("broken"));
    succeeds(train(&root, &straight, false));

    let filler = disk.join("filler");
    let run = broken_midway(&root, &broken, || {
        use std::io::Write;
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 64 << 10];
        while file.write_all(&block).is_ok() {}
    });
    failed_saying(&run, &["No space left on device"]);
    std::fs::remove_file(&filler).unwrap();

    resumed_equals_straight(&root, &broken, &straight);
    drop(_mounted);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_run_directory_deleted_or_moved_midway_stops_the_run_saying_it_is_gone() {
    let root = root("gone");
    let (straight, moved, deleted) = (root.join("straight"), root.join("moved"), root.join("deleted"));
    succeeds(train(&root, &straight, false));

    // Moved: the run stops at its next checkpoint rather than make an
    // empty directory in the old place, and resumes from the new one.
    let out = root.join("run");
    let run = broken_midway(&root, &out, || std::fs::rename(&out, &moved).unwrap());
    let gone = format!("the run directory {} is gone (deleted or moved", out.display());
    failed_saying(&run, &[&gone]);
    assert!(!out.exists(), "the run made its directory again");
    resumed_equals_straight(&root, &moved, &straight);

    let run = broken_midway(&root, &deleted, || std::fs::remove_dir_all(&deleted).unwrap());
    let gone = format!("the run directory {} is gone (deleted or moved", deleted.display());
    failed_saying(&run, &[&gone]);
    assert!(!deleted.exists(), "the run made its directory again");
    std::fs::remove_dir_all(&root).unwrap();
}
