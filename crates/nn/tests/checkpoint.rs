//! Checkpoints: round trips, mismatches, and corrupt files that must give
//! errors, never panics.

use minnow_nn::testing::ScratchDir;
use minnow_nn::{Checkpoint, CheckpointWriter, MlpConfig, Params};
use proptest::prelude::*;
use rand::SeedableRng;

fn model(sizes: &[usize], seed: u64) -> Params {
    let mut params = Params::new();
    MlpConfig::new(sizes).init(&mut params, "net", &mut rand_pcg::Pcg64Mcg::seed_from_u64(seed)).unwrap();
    params
}

fn saved_bytes() -> Vec<u8> {
    let dir = ScratchDir::new("ckpt");
    let path = dir.join("model.safetensors");
    CheckpointWriter::new().params(&model(&[3, 4, 2], 1)).meta("step", "7").save(&path).unwrap();
    std::fs::read(path).unwrap()
}

#[test]
fn round_trip_restores_every_value_and_metadata() {
    let dir = ScratchDir::new("ckpt");
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
    let dir = ScratchDir::new("ckpt");
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
    let dir = ScratchDir::new("ckpt");
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
    fn bit_flips_are_errors_never_panics_nor_silent_changes(at in 0usize..10_000, bit in 0u8..8) {
        let clean = saved_bytes();
        let mut bytes = clean.clone();
        let at = at % bytes.len();
        bytes[at] ^= 1 << bit;
        // The checksum covers every tensor and metadata value: a flip is an
        // error, or (in a key the reader does not look at, such as the
        // checksum's own name) leaves the content as it was.
        if let Ok(ckpt) = Checkpoint::from_bytes(&bytes) {
            let clean = Checkpoint::from_bytes(&clean).unwrap();
            for name in clean.names() {
                prop_assert_eq!(ckpt.tensor(name), clean.tensor(name), "tensor {}", name);
            }
            prop_assert_eq!(ckpt.meta("step"), Some("7"));
        }
    }
}

#[test]
fn non_finite_tensors_are_refused_when_writing_and_when_reading() {
    let dir = ScratchDir::new("ckpt");
    let path = dir.join("nan.safetensors");
    let err = CheckpointWriter::new().tensor("w", &[2], &[1.0, f32::INFINITY]).save(&path).unwrap_err();
    assert_eq!(err.to_string(), "checkpoint: tensor 'w' holds a non-finite value (inf at index 1)");
    assert!(!path.exists(), "nothing is written");
    // A file holding a NaN, written by something else (no checksum), is
    // refused on load; in one of ours the checksum sees the change first.
    let poisoned = unchecked_bytes(&[("w", &[1.0, f32::NAN])]);
    let err = Checkpoint::from_bytes(&poisoned).unwrap_err().to_string();
    assert!(err.contains("tensor 'w' holds a non-finite value (NaN at index 1)"), "{err}");
    let mut bytes = saved_bytes();
    let end = bytes.len();
    bytes[end - 4..].copy_from_slice(&f32::NAN.to_le_bytes());
    let err = Checkpoint::from_bytes(&bytes).unwrap_err().to_string();
    assert!(err.contains("does not match its checksum"), "{err}");
}

/// A safetensors file written without minnow's checksum (by an older
/// minnow, or another tool).
fn unchecked_bytes(tensors: &[(&str, &[f32])]) -> Vec<u8> {
    let data: Vec<(String, Vec<u8>, usize)> = tensors
        .iter()
        .map(|(name, values)| (name.to_string(), values.iter().flat_map(|v| v.to_le_bytes()).collect(), values.len()))
        .collect();
    let views = data.iter().map(|(name, bytes, len)| {
        (name.clone(), safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![*len], bytes).unwrap())
    });
    safetensors::serialize(views, Some([("step".to_string(), "3".to_string())].into())).unwrap()
}

#[test]
fn a_checksum_detects_corrupted_data_and_files_without_one_still_load() {
    let mut bytes = saved_bytes();
    let clean = Checkpoint::from_bytes(&bytes).unwrap();
    assert_eq!(clean.meta(minnow_nn::CHECKSUM_KEY).map(str::len), Some(16));
    // One tensor value nudged by one ulp: still finite, still a valid file.
    let end = bytes.len();
    let last = f32::from_le_bytes(bytes[end - 4..].try_into().unwrap());
    bytes[end - 4..].copy_from_slice(&f32::from_bits(last.to_bits() ^ 1).to_le_bytes());
    let err = Checkpoint::from_bytes(&bytes).unwrap_err().to_string();
    assert!(err.starts_with("not a readable checkpoint: the content does not match its checksum"), "{err}");

    let old = Checkpoint::from_bytes(&unchecked_bytes(&[("w", &[1.0, 2.0])])).unwrap();
    assert_eq!((old.tensor("w"), old.meta("step")), (Some(&[1.0f32, 2.0][..]), Some("3")));

    // A checksum that is not 16 hex digits is named.
    let mut garbled = saved_bytes();
    let stored = clean.meta(minnow_nn::CHECKSUM_KEY).unwrap().as_bytes();
    let at = garbled.windows(16).position(|w| w == stored).unwrap();
    garbled[at..at + 16].copy_from_slice(b"zz00000000000000");
    let err = Checkpoint::from_bytes(&garbled).unwrap_err().to_string();
    assert!(err.contains("metadata 'checksum': expected 16 hex digits, found 'zz00000000000000'"), "{err}");
}

#[test]
fn byte_tensors_round_trip_and_are_refused_where_f32_is_expected() {
    let dir = ScratchDir::new("ckpt");
    let path = dir.join("bytes.safetensors");
    let codes: Vec<u8> = (0..=255).collect();
    CheckpointWriter::new().params(&model(&[2, 2], 1)).bytes("codes", &[16, 16], &codes).save(&path).unwrap();
    let ckpt = Checkpoint::load(&path).unwrap();
    assert_eq!(ckpt.bytes("codes"), Some(&codes[..]));
    assert_eq!((ckpt.tensor("codes"), ckpt.bytes("net.0.weight")), (None, None), "each read as its own dtype");
    assert_eq!(ckpt.shape("codes").map(|s| s.dims().to_vec()), Some(vec![16, 16]));
    assert!(ckpt.names().eq(["codes", "net.0.bias", "net.0.weight"]));
    // A copy keeps them, bit for bit.
    let copy = dir.join("copy.safetensors");
    ckpt.rewrite(&["net.0.bias"]).save(&copy).unwrap();
    assert_eq!(Checkpoint::load(&copy).unwrap().bytes("codes"), Some(&codes[..]));
    // Bytes under a parameter's name: the dtype is named, nothing is restored.
    let renamed = dir.join("renamed.safetensors");
    let bias = [7u8; 8];
    let writer = CheckpointWriter::new().tensor("net.0.weight", &[2, 2], &[0.0; 4]);
    writer.bytes("net.0.bias", &[2], &bias[..2]).save(&renamed).unwrap();
    let mut params = model(&[2, 2], 1);
    let before = params.values().to_vec();
    let err = Checkpoint::load(&renamed).unwrap().restore_params(&mut params).unwrap_err();
    assert_eq!(err.to_string(), "checkpoint: tensor 'net.0.bias' holds U8 values, expected F32");
    assert_eq!(params.values(), &before[..]);
}

#[test]
fn other_dtypes_are_refused_naming_the_tensor() {
    let data = [0u8; 4];
    let view = safetensors::tensor::TensorView::new(safetensors::Dtype::I16, vec![2], &data).unwrap();
    let bytes = safetensors::serialize([("w".to_string(), view)], None).unwrap();
    let err = Checkpoint::from_bytes(&bytes).unwrap_err().to_string();
    assert_eq!(err, "not a readable checkpoint: tensor 'w' has dtype I16, expected F32 or U8");
}
