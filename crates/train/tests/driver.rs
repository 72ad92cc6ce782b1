//! The run driver on a toy run whose step counts 3: evaluations and
//! checkpoints follow the crossings of their cadences, and a resume from a
//! checkpoint continues the RNG stream and counters exactly; a run whose
//! state goes non-finite stops with an error and keeps its last good
//! checkpoint.

use minnow_train::{Cadence, Event, Metrics, Observer, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

struct Toy {
    step: u64,
    total: u64,
    /// Ends the run early once the step reaches it (a stand-in for a time budget).
    budget: u64,
    rng: Pcg64Mcg,
    sum: f64,
    width: usize,
    /// The step at which `sum` turns NaN, as a diverging loss would.
    poison_at: Option<u64>,
    /// The step from which the optimiser refuses a non-finite gradient.
    refuse_from: Option<u64>,
}

impl Toy {
    fn new(total: u64, width: usize) -> Self {
        Self {
            step: 0,
            total,
            budget: u64::MAX,
            rng: Pcg64Mcg::seed_from_u64(7),
            sum: 0.0,
            width,
            poison_at: None,
            refuse_from: None,
        }
    }
}

impl Run for Toy {
    fn task(&self) -> &str {
        "toy"
    }

    fn identity(&self) -> String {
        format!("width={}", self.width)
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn total(&self) -> u64 {
        self.total
    }

    fn ends_early(&self) -> bool {
        self.step >= self.budget
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        if self.refuse_from.is_some_and(|s| self.step >= s) {
            let refused = minnow_optim::OptimError::NonFiniteGradient { name: "w".into(), index: 2, value: f32::NAN };
            return Err(refused.into());
        }
        self.sum += self.rng.random::<f64>();
        self.step += 3;
        if self.poison_at == Some(self.step) {
            self.sum = f64::NAN;
        }
        metrics.push(("sum", self.sum));
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        metrics.push(("half", self.sum / 2.0));
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        checkpoint.rng("toy", &self.rng).json("sum", &self.sum).counter("step", self.step);
        checkpoint.tensor("sum", &[1], &[self.sum as f32]);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.rng = checkpoint.rng("toy")?;
        self.sum = checkpoint.json("sum")?;
        self.step = checkpoint.counter("step")?;
        Ok(())
    }
}

#[derive(Default)]
struct Record(Vec<String>);

impl Observer for Record {
    fn observe(&mut self, event: Event<'_>) -> Result<(), TrainError> {
        self.0.push(match event {
            Event::Step { step, .. } => format!("step {step}"),
            Event::Eval { step, .. } => format!("eval {step}"),
            Event::Checkpoint { step, .. } => format!("checkpoint {step}"),
        });
        Ok(())
    }

    fn persist(&mut self) -> Result<(), TrainError> {
        self.0.push("persist".into());
        Ok(())
    }
}

#[test]
fn cadence_follows_crossings_and_resume_is_exact() {
    let dir = std::env::temp_dir().join(format!("minnow-driver-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("checkpoint.safetensors");
    let cadence = Cadence { eval_every: 5, checkpoint_every: 10, eval_at_end: true };

    let mut straight = Toy::new(20, 4);
    let mut record = Record::default();
    minnow_train::drive(&mut straight, cadence, Some(&path), &mut record).unwrap();
    let events = record.0.iter().filter(|e| !e.starts_with("step")).cloned().collect::<Vec<_>>();
    // The metrics observed are made durable before each checkpoint is written.
    let expected = ["eval 6", "eval 12", "persist", "checkpoint 12", "eval 15", "eval 21", "persist", "checkpoint 21"];
    assert_eq!(events, expected);
    assert_eq!(record.0.iter().filter(|e| e.starts_with("step")).count(), 7);

    // Stopped at its checkpoint at step 12 and resumed.
    let mut first = Toy::new(12, 4);
    minnow_train::drive(&mut first, cadence, Some(&path), &mut ()).unwrap();
    let mut resumed = Toy::new(20, 4);
    minnow_train::resume(&mut resumed, &path).unwrap();
    assert_eq!(resumed.step(), 12);
    minnow_train::drive(&mut resumed, cadence, None, &mut ()).unwrap();
    assert_eq!((resumed.step, resumed.sum.to_bits()), (straight.step, straight.sum.to_bits()));

    let err = minnow_train::resume(&mut Toy::new(20, 5), &path).unwrap_err().to_string();
    assert_eq!(err, "cannot resume: the checkpoint was trained with width=4, this run is width=5");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn non_finite_state_is_never_saved_and_the_last_good_checkpoint_stays() {
    let dir = std::env::temp_dir().join(format!("minnow-driver-nan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("checkpoint.safetensors");
    let cadence = Cadence { eval_every: 100, checkpoint_every: 6, eval_at_end: false };
    let mut run = Toy::new(30, 4);
    run.poison_at = Some(15);
    let err = minnow_train::drive(&mut run, cadence, Some(&path), &mut ()).unwrap_err();
    assert!(matches!(err, TrainError::NonFinite { step: 18, .. }), "{err}");
    let text = err.to_string();
    assert!(text.starts_with("step 18:") && text.contains("tensor 'sum' holds a non-finite value (NaN"), "{text}");
    // The checkpoint of step 12 is untouched and resumes.
    let mut resumed = Toy::new(30, 4);
    minnow_train::resume(&mut resumed, &path).unwrap();
    assert_eq!(resumed.step(), 12);
    assert!(resumed.sum.is_finite());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A step whose gradient the optimiser refuses stops the run naming the
/// step and the parameter, as a non-finite loss does.
#[test]
fn a_refused_gradient_stops_the_run_naming_the_step() {
    let cadence = Cadence { eval_every: 100, checkpoint_every: 100, eval_at_end: false };
    let mut run = Toy { refuse_from: Some(9), ..Toy::new(30, 4) };
    let err = minnow_train::drive(&mut run, cadence, None, &mut ()).unwrap_err();
    assert!(matches!(err, TrainError::NonFiniteGradient { step: 10, .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "training step 10: parameter 'w': the gradient is not finite (NaN at index 2); refusing to update, \
         nothing was changed; lower the learning rate"
    );
    assert_eq!(run.step(), 9);
}

#[test]
fn a_run_that_ends_early_is_checkpointed_and_evaluated_as_at_its_end() {
    let dir = std::env::temp_dir().join(format!("minnow-driver-early-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("checkpoint.safetensors");
    let cadence = Cadence { eval_every: 100, checkpoint_every: 100, eval_at_end: true };
    let mut run = Toy { budget: 7, ..Toy::new(30, 4) };
    let mut record = Record::default();
    minnow_train::drive(&mut run, cadence, Some(&path), &mut record).unwrap();
    assert_eq!(record.0, ["step 3", "step 6", "step 9", "eval 9", "persist", "checkpoint 9"]);
    // Out of budget from the start: nothing runs.
    let mut record = Record::default();
    minnow_train::drive(&mut run, cadence, Some(&path), &mut record).unwrap();
    assert!(record.0.is_empty(), "{:?}", record.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An observer that cannot write (a metrics file refused) at its `n`th
/// persist, or at the step event of `step`.
struct Refuses {
    persist: u32,
    step: Option<u64>,
    record: Record,
}

impl Observer for Refuses {
    fn observe(&mut self, event: Event<'_>) -> Result<(), TrainError> {
        if let Event::Step { step, .. } = event
            && self.step == Some(step)
        {
            return Err(refused(step));
        }
        self.record.observe(event)
    }

    fn persist(&mut self) -> Result<(), TrainError> {
        self.persist -= 1;
        if self.persist == 0 { Err(refused(0)) } else { self.record.persist() }
    }
}

fn refused(step: u64) -> TrainError {
    let error = std::io::Error::from_raw_os_error(1);
    TrainError::History { path: "metrics.jsonl".into(), step, error }
}

/// A history that cannot be written stops the run at once: no step is
/// trained after the failed write, and no checkpoint is written past the
/// history made durable.
#[test]
fn a_history_that_cannot_be_written_stops_the_run_before_its_next_checkpoint() {
    let dir = minnow_nn::testing::ScratchDir::new("driver-unwritten");
    let path = dir.join("checkpoint.safetensors");
    let cadence = Cadence { eval_every: 100, checkpoint_every: 6, eval_at_end: false };
    let checkpoint_step = || minnow_nn::Checkpoint::load(&path).unwrap().meta("step").unwrap().to_string();

    let mut run = Toy::new(30, 4);
    let mut observer = Refuses { persist: 2, step: None, record: Record::default() };
    let err = minnow_train::drive(&mut run, cadence, Some(&path), &mut observer).unwrap_err();
    assert!(err.to_string().starts_with("metrics.jsonl: Operation not permitted (os error 1): "), "{err}");
    assert_eq!(observer.record.0, ["step 3", "step 6", "persist", "checkpoint 6", "step 9", "step 12"]);
    assert_eq!((run.step(), checkpoint_step()), (12, "6".to_string()));

    std::fs::remove_file(&path).unwrap();
    let mut run = Toy::new(30, 4);
    let mut observer = Refuses { persist: u32::MAX, step: Some(9), record: Record::default() };
    let err = minnow_train::drive(&mut run, cadence, Some(&path), &mut observer).unwrap_err();
    assert!(matches!(err, TrainError::History { step: 9, .. }), "{err}");
    assert_eq!(observer.record.0, ["step 3", "step 6", "persist", "checkpoint 6"]);
    assert_eq!((run.step(), checkpoint_step()), (9, "6".to_string()));
}

/// Deletes the run's directory when it sees the step `at`.
struct Deletes<'a> {
    dir: &'a std::path::Path,
    at: u64,
}

impl Observer for Deletes<'_> {
    fn observe(&mut self, event: Event<'_>) -> Result<(), TrainError> {
        if let Event::Step { step, .. } = event
            && step == self.at
        {
            std::fs::remove_dir_all(self.dir).unwrap();
        }
        Ok(())
    }
}

/// A checkpoint never makes its directory again: one deleted while the
/// run writes stops the run saying so, and stays gone.
#[test]
fn a_deleted_run_directory_stops_the_run_and_is_not_made_again() {
    let scratch = minnow_nn::testing::ScratchDir::new("driver-gone");
    let dir = scratch.join("run");
    let cadence = Cadence { eval_every: 100, checkpoint_every: 6, eval_at_end: false };
    let mut run = Toy::new(30, 4);
    let err = minnow_train::drive(
        &mut run,
        cadence,
        Some(&dir.join("checkpoint.safetensors")),
        &mut Deletes { dir: &dir, at: 9 },
    )
    .unwrap_err();
    assert!(matches!(&err, TrainError::RunDirGone { dir: gone } if *gone == dir), "{err}");
    assert_eq!(run.step(), 12);
    assert!(!dir.exists(), "the checkpoint made the directory again");
}
