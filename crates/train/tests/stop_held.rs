//! A held stop request (SIGUSR1's): one made before any driver runs is
//! kept, and the next run stops after its first step with a checkpoint
//! it resumes from; the run after that starts afresh. Its own test
//! binary: the request is process-wide.

mod common;

use common::Walk;
use minnow_nn::testing::ScratchDir;
use minnow_train::{Cadence, TrainError};

#[test]
fn a_request_before_the_run_starts_stops_it_after_its_first_step() {
    let dir = ScratchDir::new("stop-held");
    let path = dir.join("checkpoint.safetensors");
    let cadence = Cadence { eval_every: 1000, checkpoint_every: 1000, eval_at_end: true };

    assert!(!minnow_train::request_stop_held(), "no driver runs yet");
    let mut early = Walk::new(20);
    let err = minnow_train::drive(&mut early, cadence, Some(&path), &mut ()).unwrap_err();
    assert!(matches!(err, TrainError::Stopped { step: 1 }), "{err}");

    // The request was answered: the resumed run goes to its end.
    let mut resumed = Walk::new(20);
    minnow_train::resume(&mut resumed, &path).unwrap();
    assert_eq!(resumed.step, 1);
    minnow_train::drive(&mut resumed, cadence, None, &mut ()).unwrap();
    assert_eq!(resumed.step, 20);
}
