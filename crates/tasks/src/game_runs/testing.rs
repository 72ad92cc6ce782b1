//! The checks every game-per-step task's run must pass on its own
//! learner: crafted checkpoint metadata is refused or trains on, and a
//! window its games cannot hold is refused, naming it.

use super::{GameLearner, GameRun, Tallies};
use minnow_nn::Checkpoint;

/// Resumes `run` (freshly built) from `saved` with metadata `key` set to
/// `value`; if that is accepted, drives it to its end. Never a panic.
pub(crate) fn resume_crafted<L: GameLearner>(saved: &Checkpoint, key: &str, value: String, run: GameRun<L>) {
    let cadence = run.cadence();
    minnow_train::testing::resume_crafted(saved, key, value, run, cadence);
}

/// Resumes runs built by `new_run` from `saved` (at `step` games) with
/// windows crafted from an empty one, one field at a time, and asserts
/// each is refused naming what it holds: more games than the run played,
/// each count past what one game can add, a negative squared error.
pub(crate) fn refuses_windows_it_cannot_hold<L: GameLearner>(
    saved: &Checkpoint,
    step: u64,
    new_run: impl Fn() -> GameRun<L>,
) {
    let dir = minnow_nn::testing::ScratchDir::new(&format!("window-{}", L::TASK));
    let path = dir.join("window.safetensors");
    let refused = |edits: &[(&str, serde_json::Value)]| {
        let mut window = serde_json::to_value(L::Tallies::default()).unwrap();
        for (key, value) in edits {
            window[*key] = value.clone();
        }
        saved.rewrite(&["window"]).meta("window", window.to_string()).save(&path).unwrap();
        minnow_train::resume(&mut new_run(), &path).unwrap_err().to_string()
    };
    let err = refused(&[("games", u64::MAX.into())]);
    assert!(err.contains("metadata 'window'") && err.contains(&format!("more than the run's {step}")), "{err}");
    for count in L::Tallies::default().counts() {
        let err = refused(&[("games", 1.into()), (count.key, u64::MAX.into())]);
        assert!(err.contains(&format!("{} = {}", count.key, u64::MAX)) && err.contains("more than 1 games"), "{err}");
    }
    let err = refused(&[("squared_error", (-0.5).into())]);
    assert!(err.contains("squared_error -0.5"), "{err}");
}
