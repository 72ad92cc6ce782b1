//! Crafted run-checkpoint metadata: every value of every key replaced by
//! arbitrary text, numbers out of range or JSON of another shape. Resuming
//! from it is an error or a run of the same shape, never a panic; bytes
//! corrupted on disk are caught by the checksum.

use minnow_nn::Checkpoint;
use minnow_nn::testing::{ScratchDir, crafted_metadata, write_crafted};
use minnow_train::load_digits;
use minnow_train::supervised::{DigitsConfig, DigitsRun};
use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

fn data() -> (minnow_nn::Dataset, minnow_nn::Dataset) {
    static DATA: OnceLock<(minnow_nn::Dataset, minnow_nn::Dataset)> = OnceLock::new();
    DATA.get_or_init(|| load_digits(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/digits.csv.gz")).unwrap())
        .clone()
}

fn config() -> DigitsConfig {
    DigitsConfig { hidden: 8, batch: 16, steps: 30, checkpoint_every: 20, ..DigitsConfig::default() }
}

/// A checkpoint of a short digits run at step 20, made once.
fn saved() -> &'static Checkpoint {
    static SAVED: OnceLock<Checkpoint> = OnceLock::new();
    SAVED.get_or_init(|| {
        let dir = ScratchDir::new("hostile-meta");
        let path = dir.join("clean.safetensors");
        let (train, test) = data();
        let mut run = DigitsRun::new(DigitsConfig { steps: 20, ..config() }, train, test).unwrap();
        run.run(Some(&path), &mut ()).unwrap();
        Checkpoint::load(&path).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn crafted_metadata_resumes_or_is_refused_never_panics((key, value) in crafted_metadata(saved())) {
        let dir = ScratchDir::new("hostile-meta");
        let path = write_crafted(saved(), &key, value.clone(), &dir);
        let (train, test) = data();
        match DigitsRun::resume(config(), train, test, &path) {
            // Whatever it accepted continues to the end of the run.
            Ok(mut run) => {
                run.run(None, &mut ()).map_err(|e| TestCaseError::fail(format!("{key} = {value:?}: {e}")))?;
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn corrupted_bytes_are_refused_or_change_nothing(at in 0usize..1_000_000, bit in 0u8..8) {
        let dir = ScratchDir::new("hostile-meta");
        let clean = dir.join("clean.safetensors");
        saved().rewrite(&[]).save(&clean).unwrap();
        let mut bytes = std::fs::read(&clean).unwrap();
        let at = at % bytes.len();
        bytes[at] ^= 1 << bit;
        let path = dir.join("flipped.safetensors");
        std::fs::write(&path, &bytes).unwrap();
        let (train, test) = data();
        if let Ok(run) = DigitsRun::resume(config(), train.clone(), test.clone(), &path) {
            let original = DigitsRun::resume(config(), train, test, &clean).unwrap();
            prop_assert_eq!(run.params().values(), original.params().values());
            prop_assert_eq!(run.step_count(), original.step_count());
        }
    }
}
