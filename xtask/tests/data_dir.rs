//! A binary finds the repository's data at run time, not through the
//! source path compiled into it (which a copied binary, or one built on
//! another machine, does not have): `MINNOW_DATA`, or `data/` in the
//! working directory or a directory above it. Where it finds nothing, the
//! error says where it looked and how to point it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A copy of the binary, away from the repository.
fn copied(root: &Path) -> PathBuf {
    let binary = root.join("xtask");
    std::fs::copy(env!("CARGO_BIN_EXE_xtask"), &binary).unwrap();
    binary
}

/// `eval az-connect4` (the shipped agent, one game, one simulation: it
/// reads every Pons set) from `cwd`, with `MINNOW_DATA` set to `data`.
fn eval_from(binary: &Path, cwd: &Path, data: Option<&Path>) -> Output {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut cmd = Command::new(binary);
    cmd.args(["eval", "az-connect4", "--games", "1", "--simulations", "1", "--checkpoint"])
        .arg(repo.join("agents/az-connect4/agent.safetensors"))
        .current_dir(cwd)
        .env_remove("MINNOW_DATA");
    if let Some(data) = data {
        cmd.env("MINNOW_DATA", data);
    }
    cmd.output().expect("xtask runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn eval_finds_pons_positions_where_the_user_points_or_says_where_it_looked() {
    let root = minnow_nn::testing::ScratchDir::new("xtask-data");
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let binary = copied(&root);
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("data");

    let lost = eval_from(&binary, &elsewhere, None);
    assert_eq!(lost.status.code(), Some(1), "{}", stderr(&lost));
    let said = format!(
        "Pascal Pons' connect-four test positions (data/connect4-pons) not found: looked for data/connect4-pons in \
         {} and every directory above it; run from the repository, or set MINNOW_DATA to its data directory",
        elsewhere.display()
    );
    assert!(stderr(&lost).contains(&said), "{}", stderr(&lost));

    let wrong = eval_from(&binary, &elsewhere, Some(&root.join("nowhere")));
    let said = format!("MINNOW_DATA is {0}, and {0}/connect4-pons does not exist", root.join("nowhere").display());
    assert!(stderr(&wrong).contains(&said), "{}", stderr(&wrong));

    // Pointed at by MINNOW_DATA, or a data directory above the working one.
    std::os::unix::fs::symlink(&data, root.join("data")).unwrap();
    for found in [eval_from(&binary, &elsewhere, Some(&data)), eval_from(&binary, &elsewhere, None)] {
        assert!(found.status.success(), "{}", stderr(&found));
        assert!(String::from_utf8_lossy(&found.stdout).contains("beginning easy          1000"), "{found:?}");
    }
}
