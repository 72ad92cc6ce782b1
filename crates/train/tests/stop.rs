//! A stop request (what the front end's Ctrl-C / SIGTERM handler sends)
//! ends a run after its current step (and the evaluation due there) with a
//! checkpoint, and the resumed run ends exactly where an uninterrupted one
//! does, whatever the step. Its own test binary, its tests one at a time:
//! the request is process-wide.

mod common;

use common::Walk;
use minnow_nn::testing::ScratchDir;
use minnow_train::{Cadence, Event, Observer, Run, TrainError};
use std::sync::{Mutex, MutexGuard};

#[test]
fn a_stop_request_checkpoints_the_step_and_the_resumed_run_ends_identically() {
    let _alone = alone();
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

/// The evaluations a drive reports, as (step, the sum's bits).
struct Evals(Vec<(u64, u64)>);

impl Observer for Evals {
    fn observe(&mut self, event: Event<'_>) -> Result<(), TrainError> {
        if let Event::Eval { step, metrics } = event {
            self.0.push((step, metrics[0].1.to_bits()));
        }
        Ok(())
    }
}

#[test]
fn a_stop_after_any_step_keeps_its_evaluation_and_the_resumed_run_ends_identically() {
    let _alone = alone();
    let cadence = Cadence { eval_every: 5, checkpoint_every: 7, eval_at_end: true };
    let mut straight = Walk::new(30);
    let mut evals = Evals(Vec::new());
    minnow_train::drive(&mut straight, cadence, None, &mut evals).unwrap();
    for k in 1..30 {
        let dir = ScratchDir::new("stop-every");
        let path = dir.join("checkpoint.safetensors");
        let mut stopped = Walk::new(30);
        stopped.stop_at = Some(k);
        let mut seen = Evals(Vec::new());
        let err = minnow_train::drive(&mut stopped, cadence, Some(&path), &mut seen).unwrap_err();
        assert!(matches!(err, TrainError::Stopped { step } if step == k), "{err}");
        let mut resumed = Walk::new(30);
        minnow_train::resume(&mut resumed, &path).unwrap();
        minnow_train::drive(&mut resumed, cadence, None, &mut seen).unwrap();
        // The evaluation due at a stop's step comes before its checkpoint:
        // none is lost, none is repeated.
        assert_eq!(seen.0, evals.0, "stopped after step {k}");
        assert_eq!(resumed.sum.to_bits(), straight.sum.to_bits(), "stopped after step {k}");
    }
}

/// One test at a time: a stop request reaches every driver of the process.
fn alone() -> MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
