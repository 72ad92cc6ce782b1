//! What the resume tests share.

use minnow_nn::Checkpoint;
use std::path::Path;

/// Loads the checkpoints of two run directories and asserts they hold the
/// same tensors, bit for bit; returns them for further checks.
pub fn assert_same_checkpoints(a: &Path, b: &Path) -> (Checkpoint, Checkpoint) {
    let a = Checkpoint::load(&a.join("checkpoint.safetensors")).unwrap();
    let b = Checkpoint::load(&b.join("checkpoint.safetensors")).unwrap();
    let names: Vec<&str> = a.names().collect();
    assert_eq!(names, b.names().collect::<Vec<_>>());
    for name in names {
        assert_eq!(a.tensor(name), b.tensor(name), "{name} differs");
    }
    (a, b)
}
