//! Helpers for other crates' tests (the `testing` feature). The property
//! behind each task's crafted-metadata test: a checkpoint
//! whose one metadata value was replaced by a crafted one
//! ([`minnow_nn::testing::crafted_metadata`]) is refused on resume, or the
//! resumed run trains (and evaluates) on to its end; never a panic.

use crate::{Cadence, Run};
use minnow_nn::Checkpoint;
use minnow_nn::testing::{ScratchDir, write_crafted};

/// A checkpoint of `run` after `steps` training steps (the clean file
/// the crafted ones are made from).
pub fn checkpoint_after(mut run: impl Run, steps: u64) -> Checkpoint {
    let dir = ScratchDir::new(&format!("clean-{}", run.task()));
    let path = dir.join("clean.safetensors");
    while run.step() < steps {
        run.train_step(&mut crate::Metrics::new()).unwrap();
    }
    crate::save(&run, &path).unwrap();
    Checkpoint::load(&path).unwrap()
}

/// Writes `saved` with `key` set to `value` and resumes `run` (freshly
/// built from its config) from it; if that is accepted, drives it to its
/// end (an error on the way is a refusal too).
pub fn resume_crafted(saved: &Checkpoint, key: &str, value: String, mut run: impl Run, cadence: Cadence) {
    let dir = ScratchDir::new(&format!("crafted-{}", run.task()));
    let path = write_crafted(saved, key, value, &dir);
    if crate::resume(&mut run, &path).is_ok() {
        let _ = crate::drive(&mut run, cadence, None, &mut ());
    }
}
