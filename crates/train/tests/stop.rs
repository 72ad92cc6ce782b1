//! A stop request (what the front end's Ctrl-C / SIGTERM handler sends)
//! ends a run after its current step with a checkpoint, and the resumed
//! run ends exactly where an uninterrupted one does. Its own test binary:
//! the request is process-wide.

mod common;

use common::Walk;
use minnow_nn::testing::ScratchDir;
use minnow_train::{Cadence, Run, TrainError};

#[test]
fn a_stop_request_checkpoints_the_step_and_the_resumed_run_ends_identically() {
    let dir = ScratchDir::new("stop");
    let path = dir.join("checkpoint.safetensors");
    // Checkpoints would come only at the end: the stop must write its own.
    let cadence = Cadence { eval_every: 1000, checkpoint_every: 1000, eval_at_end: true };

    let mut straight = Walk::new(30);
    minnow_train::drive(&mut straight, cadence, None, &mut ()).unwrap();

    let mut stopped = Walk::new(30);
    stopped.stop_at = Some(9);
    let err = minnow_train::drive(&mut stopped, cadence, Some(&path), &mut ()).unwrap_err();
    assert!(matches!(err, TrainError::Stopped { step: 9 }), "{err}");
    assert!(err.to_string().contains("--resume"), "{err}");
    // No driver runs now: a request goes unanswered and is dropped.
    assert!(!minnow_train::request_stop());

    let mut resumed = Walk::new(30);
    minnow_train::resume(&mut resumed, &path).unwrap();
    assert_eq!(resumed.step(), 9);
    minnow_train::drive(&mut resumed, cadence, None, &mut ()).unwrap();
    assert_eq!((resumed.step, resumed.sum.to_bits()), (straight.step, straight.sum.to_bits()));
}
