//! Flags and settings the command line refuses with a message that says
//! what is wrong, before anything is trained or written.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("minnow-xtask-usage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

/// Runs `cargo xtask ARGS`, asserts that it is refused cleanly, and
/// returns what it printed to stderr.
fn refused(cmd: &mut Command) -> String {
    let output = cmd.output().expect("xtask runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{cmd:?} must be refused: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn xtask(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(args);
    cmd
}

fn train_into(out: &Path) -> Command {
    let mut cmd = xtask(&["train", "digits-mlp", "--steps", "1", "--out"]);
    cmd.arg(out);
    cmd
}

/// An `--out` that is a symbolic link to nothing (or a file, or below
/// one) says so, where the system says only "File exists".
#[test]
fn an_out_that_cannot_be_a_directory_says_which_path_is_in_the_way() {
    let root = root("out");
    let (link, nowhere, file) = (root.join("link"), root.join("nowhere"), root.join("file"));
    std::os::unix::fs::symlink(&nowhere, &link).unwrap();
    std::fs::write(&file, "").unwrap();
    let err = refused(&mut train_into(&link));
    let said =
        format!("--out {0}: {0} is a symbolic link to {1}, which does not exist", link.display(), nowhere.display());
    assert!(err.contains(&said), "{err}");
    let err = refused(&mut train_into(&link.join("run")));
    assert!(err.contains(&format!("{} is a symbolic link to", link.display())), "{err}");
    let err = refused(&mut train_into(&file.join("run")));
    assert!(err.contains(&format!("{} is a file, not a directory", file.display())), "{err}");
    assert!(!nowhere.exists());
    std::fs::remove_dir_all(&root).unwrap();
}

/// `MINNOW_SIMD` takes the names it documents, lower case; anything else
/// is refused naming them, before anything runs.
#[test]
fn a_minnow_simd_that_names_no_level_is_refused_listing_the_levels() {
    let root = root("simd");
    for bad in ["garbage", "Scalar"] {
        let out = root.join(bad);
        let err = refused(train_into(&out).env("MINNOW_SIMD", bad));
        let said = format!("error: MINNOW_SIMD=\"{bad}\": expected one of scalar, avx2, avx512");
        assert!(err.starts_with(&said), "{err}");
        assert!(!out.exists(), "{bad}: nothing is written");
        let err = refused(xtask(&["eval", "cube-solver", "--games", "1"]).env("MINNOW_SIMD", bad));
        assert!(err.starts_with(&said), "{err}");
    }
    for good in ["scalar", "avx2", ""] {
        let output = train_into(&root.join(format!("run-{good}"))).env("MINNOW_SIMD", good).output().unwrap();
        assert!(output.status.success(), "{good}: {}", String::from_utf8_lossy(&output.stderr));
    }
    std::fs::remove_dir_all(&root).unwrap();
}
