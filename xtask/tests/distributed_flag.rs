//! A build without MPI asked to train distributed says how to build and
//! launch, and trains nothing; asked to train distributed a task that
//! never does, it says that instead.
#![cfg(not(feature = "mpi"))]

use std::process::Command;

/// Runs `train TASK --distributed`, asserts that it failed and wrote
/// nothing, and returns its stderr.
fn train_distributed(task: &str) -> String {
    let out = std::env::temp_dir().join(format!("minnow-xtask-no-mpi-{task}-{}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["train", task, "--distributed", "--out"])
        .arg(&out)
        .output()
        .expect("xtask runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{task}: {stderr}");
    assert!(!out.exists(), "{task}: nothing is written");
    stderr
}

#[test]
fn distributed_without_mpi_support_says_how_to_build_and_launch() {
    for task in ["digits-mlp", "dqn-cartpole"] {
        let stderr = train_distributed(task);
        assert!(stderr.contains("no MPI support: build with the cargo feature `mpi` (`--features mpi`"), "{stderr}");
        assert!(stderr.contains("mpirun -np K"), "{stderr}");
        assert!(stderr.contains(&format!("`mpirun -np K cargo xtask-mpi train {task} --distributed`")), "{stderr}");
    }
}

/// A task that never trains distributed says so first: how to build with
/// MPI is no help for it.
#[test]
fn distributed_on_a_task_that_never_trains_so_says_that_first() {
    for task in ["td-backgammon", "cube-solver"] {
        let stderr = train_distributed(task);
        assert!(
            stderr.contains(&format!("train: '{task}' does not train distributed; these do: digits-mlp")),
            "{stderr}"
        );
        assert!(!stderr.contains("MPI"), "{task}: {stderr}");
    }
}
