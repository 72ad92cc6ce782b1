//! Checkpoints: round trips, mismatches, and corrupt files that must give
//! errors, never panics.

use minnow_nn::{Checkpoint, CheckpointWriter, MlpConfig, Params};
use proptest::prelude::*;
use rand::SeedableRng;

fn model(sizes: &[usize], seed: u64) -> Params {
    let mut params = Params::new();
    MlpConfig::new(sizes).init(&mut params, "net", &mut rand_pcg::Pcg64Mcg::seed_from_u64(seed)).unwrap();
    params
}

fn saved_bytes() -> Vec<u8> {
    let dir = tempdir();
    let path = dir.join("model.safetensors");
    CheckpointWriter::new().params(&model(&[3, 4, 2], 1)).meta("step", "7").save(&path).unwrap();
    std::fs::read(path).unwrap()
}

fn tempdir() -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("minnow-ckpt-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn round_trip_restores_every_value_and_metadata() {
    let dir = tempdir();
    let path = dir.join("a.safetensors");
    let original = model(&[3, 4, 2], 1);
    CheckpointWriter::new()
        .params(&original)
        .tensor("adam.m.net.0.weight", &[4, 3], &[0.5; 12])
        .meta("step", "42")
        .save(&path)
        .unwrap();
    let ckpt = Checkpoint::load(&path).unwrap();
    let mut restored = model(&[3, 4, 2], 99);
    assert_ne!(restored.values(), original.values());
    ckpt.restore_params(&mut restored).unwrap();
    assert_eq!(restored.values(), original.values());
    assert_eq!(ckpt.meta("step"), Some("42"));
    assert_eq!(ckpt.tensor("adam.m.net.0.weight"), Some(&[0.5f32; 12][..]));
    assert!(ckpt.require_meta("rng").unwrap_err().to_string().contains("'rng' is missing"));
}

#[test]
fn another_architecture_is_refused_and_nothing_is_overwritten() {
    let dir = tempdir();
    let path = dir.join("b.safetensors");
    CheckpointWriter::new().params(&model(&[3, 4, 2], 1)).save(&path).unwrap();
    let mut wider = model(&[3, 5, 2], 2);
    let before = wider.values().to_vec();
    let err = Checkpoint::load(&path).unwrap().restore_params(&mut wider).unwrap_err();
    assert_eq!(err.to_string(), "checkpoint: tensor 'net.0.weight' has shape [4, 3], the model expects [5, 3]");
    assert_eq!(wider.values(), &before[..]);
    let mut deeper = model(&[3, 4, 4, 2], 2);
    let err = Checkpoint::load(&path).unwrap().restore_params(&mut deeper).unwrap_err();
    assert!(err.to_string().contains("'net.1.weight' has shape [2, 4]"), "{err}");
}

#[test]
fn saving_replaces_atomically_and_leaves_no_temporary() {
    let dir = tempdir();
    let path = dir.join("c.safetensors");
    CheckpointWriter::new().params(&model(&[2, 2], 1)).meta("step", "1").save(&path).unwrap();
    CheckpointWriter::new().params(&model(&[2, 2], 1)).meta("step", "2").save(&path).unwrap();
    assert_eq!(Checkpoint::load(&path).unwrap().meta("step"), Some("2"));
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let err = Checkpoint::load(std::path::Path::new("/nonexistent/x.safetensors")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.safetensors"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn truncated_files_are_errors(cut in 0usize..1000) {
        let bytes = saved_bytes();
        let cut = cut % bytes.len();
        prop_assert!(Checkpoint::from_bytes(&bytes[..cut]).is_err());
    }

    #[test]
    fn bit_flips_never_panic(at in 0usize..10_000, bit in 0u8..8) {
        let mut bytes = saved_bytes();
        let at = at % bytes.len();
        bytes[at] ^= 1 << bit;
        // A flip in the data is still a readable file; one in the header
        // must be an error. Either way: no panic, and a loaded checkpoint
        // either restores into the model or says why not.
        if let Ok(ckpt) = Checkpoint::from_bytes(&bytes) {
            let mut params = model(&[3, 4, 2], 5);
            let _ = ckpt.restore_params(&mut params);
        }
    }
}

#[test]
fn non_finite_tensors_are_refused_when_writing_and_when_reading() {
    let dir = tempdir();
    let path = dir.join("nan.safetensors");
    let err = CheckpointWriter::new().tensor("w", &[2], &[1.0, f32::INFINITY]).save(&path).unwrap_err();
    assert_eq!(err.to_string(), "checkpoint: tensor 'w' holds a non-finite value (inf at index 1)");
    assert!(!path.exists(), "nothing is written");
    // A file holding a NaN (written by something else) is refused on load.
    let bytes = saved_bytes();
    let data_start = bytes.len() - 4;
    let mut poisoned = bytes.clone();
    poisoned[data_start..].copy_from_slice(&f32::NAN.to_le_bytes());
    let err = Checkpoint::from_bytes(&poisoned).unwrap_err().to_string();
    assert!(err.contains("holds a non-finite value (NaN at index"), "{err}");
    assert!(Checkpoint::from_bytes(&bytes).is_ok());
}
