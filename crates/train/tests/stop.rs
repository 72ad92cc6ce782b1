//! A stop request (what the front end's Ctrl-C / SIGTERM handler sends)
//! ends a run after its current step with a checkpoint, and the resumed
//! run ends exactly where an uninterrupted one does. Its own test binary:
//! the request is process-wide.

use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

struct Walk {
    step: u64,
    total: u64,
    rng: Pcg64Mcg,
    sum: f64,
    /// The step during which the stop request arrives.
    stop_at: Option<u64>,
}

impl Walk {
    fn new(total: u64) -> Self {
        Self { step: 0, total, rng: Pcg64Mcg::seed_from_u64(11), sum: 0.0, stop_at: None }
    }
}

impl Run for Walk {
    fn task(&self) -> &str {
        "walk"
    }

    fn identity(&self) -> String {
        "walk".into()
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn total(&self) -> u64 {
        self.total
    }

    fn train_step(&mut self, _: &mut Metrics) -> Result<(), TrainError> {
        self.sum += self.rng.random::<f64>();
        self.step += 1;
        if self.stop_at == Some(self.step) {
            assert!(minnow_train::request_stop(), "a running driver takes the request");
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        metrics.push(("sum", self.sum));
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        checkpoint.rng("walk", &self.rng).json("sum", &self.sum).counter("step", self.step);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        (self.rng, self.sum, self.step) =
            (checkpoint.rng("walk")?, checkpoint.json("sum")?, checkpoint.counter("step")?);
        Ok(())
    }
}

#[test]
fn a_stop_request_checkpoints_the_step_and_the_resumed_run_ends_identically() {
    let dir = std::env::temp_dir().join(format!("minnow-stop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
}
