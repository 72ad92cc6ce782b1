//! The run driver: any task that can take a step, evaluate itself and
//! save into / restore from a run checkpoint is trained by the same loop,
//! with the same cadence (evaluate every N steps, checkpoint every N
//! steps), the same resume and the same metrics sinks.

use crate::checkpoint::{RunCheckpoint, RunCheckpointWriter};
use crate::{Event, Observer, Result};
use std::path::Path;
use std::time::Instant;

/// Named values of one step or one evaluation. The driver keeps one list
/// with room reserved and clears it before each call, so filling it in a
/// steady-state step does not allocate.
pub type Metrics = Vec<(&'static str, f64)>;

/// Room the driver reserves for a step's or an evaluation's metrics.
const METRICS_ROOM: usize = 32;

/// A training run of some task.
///
/// A task of one's own, driven with its cadence and its metrics: here
/// gradient descent on (x - 3)², evaluated every 10 steps, checkpointed
/// to a scratch directory and resumed from it.
///
/// ```
/// use minnow_train::{Cadence, Event, Metrics, Observer, Result, Run, RunCheckpoint, RunCheckpointWriter, drive, resume};
///
/// struct Fit { x: f32, step: u64 }
///
/// impl Run for Fit {
///     fn task(&self) -> &str { "fit" }
///     fn identity(&self) -> String { "lr 0.1".into() }
///     fn step(&self) -> u64 { self.step }
///     fn total(&self) -> u64 { 30 }
///     fn train_step(&mut self, metrics: &mut Metrics) -> Result<()> {
///         self.x -= 0.1 * 2.0 * (self.x - 3.0);
///         self.step += 1;
///         metrics.push(("loss", ((self.x - 3.0) * (self.x - 3.0)) as f64));
///         Ok(())
///     }
///     fn evaluate(&mut self, metrics: &mut Metrics) -> Result<()> {
///         metrics.push(("x", self.x as f64));
///         Ok(())
///     }
///     fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
///         checkpoint.json("x", &self.x);
///         Ok(())
///     }
///     fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
///         self.x = checkpoint.json("x")?;
///         self.step = checkpoint.step()?;
///         Ok(())
///     }
/// }
///
/// let dir = std::env::temp_dir().join(format!("minnow-run-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("fit.ckpt");
/// let cadence = Cadence { eval_every: 10, checkpoint_every: 30, eval_at_end: false };
/// let mut run = Fit { x: 0.0, step: 0 };
/// drive(&mut run, cadence, Some(&path), &mut ())?;
/// assert!((run.x - 3.0).abs() < 1e-2);
///
/// let mut again = Fit { x: 0.0, step: 0 };
/// resume(&mut again, &path)?;
/// assert_eq!((again.x, again.step), (run.x, 30));
/// std::fs::remove_dir_all(&dir).unwrap();
///
/// // An observer sees every step, evaluation and checkpoint.
/// struct Evals(Vec<u64>);
/// impl Observer for Evals {
///     fn observe(&mut self, event: Event<'_>) -> Result<()> {
///         if let Event::Eval { step, .. } = event {
///             self.0.push(step);
///         }
///         Ok(())
///     }
/// }
/// let mut evals = Evals(Vec::new());
/// drive(&mut Fit { x: 0.0, step: 0 }, cadence, None, &mut evals)?;
/// assert_eq!(evals.0, [10, 20, 30]);
/// # Ok::<(), minnow_train::TrainError>(())
/// ```
pub trait Run {
    /// The task's name; a checkpoint resumes only into the same task.
    fn task(&self) -> &str;

    /// The config fields that shape the computation, as text: a checkpoint
    /// resumes only under the same (step counts and cadences may change).
    fn identity(&self) -> String;

    /// Steps done so far: the x axis of every metric. A step may count
    /// more than one (a vector of environments steps them all).
    fn step(&self) -> u64;

    /// The step at which the run is complete.
    fn total(&self) -> u64;

    /// Whether the run ends before its total (a time budget spent). Asked
    /// after every step; a run that ends early is checkpointed (and, with
    /// `eval_at_end`, evaluated) as at its total.
    fn ends_early(&self) -> bool {
        false
    }

    /// One training step. Its metrics go into `metrics`, which arrives
    /// empty; a step that leaves it empty logs nothing.
    fn train_step(&mut self, metrics: &mut Metrics) -> Result<()>;

    /// Evaluates the model now, the headline metric first.
    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<()>;

    /// Writes everything needed to continue exactly: parameters, optimiser
    /// state, RNG streams, counters, and whatever is in flight (the driver
    /// writes the header). Called after any step, not only on the
    /// cadence, since a stop may come after any: a run resumed from it
    /// must go on as if it had never stopped.
    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()>;

    /// Whether to stop after the step just taken: whether this process was
    /// asked to ([`request_stop`](crate::request_stop)). A run of several
    /// processes answers what they agreed in the step, so that all stop
    /// after the same one.
    fn stop_requested(&self) -> bool {
        crate::stop_requested()
    }

    /// The inverse of `save`, into a run freshly built from the same config.
    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<()>;
}

/// How often the driver evaluates and checkpoints, in steps. A step that
/// crosses a multiple of `eval_every` is followed by an evaluation, one
/// that crosses a multiple of `checkpoint_every` (or ends the run) by a
/// checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cadence {
    /// Steps between evaluations, > 0.
    pub eval_every: u64,
    /// Steps between checkpoints, > 0.
    pub checkpoint_every: u64,
    /// Also evaluate after the last step (when the task does not run a
    /// final evaluation of its own).
    pub eval_at_end: bool,
}

/// Where the driver's time went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// Wall seconds in training steps.
    pub train_seconds: f64,
    /// Wall seconds in evaluations.
    pub eval_seconds: f64,
    /// Wall seconds writing checkpoints (and persisting the observer).
    pub checkpoint_seconds: f64,
}

/// Whether going from step `before` to `after` crossed a multiple of `every`.
fn crossed(before: u64, after: u64, every: u64) -> bool {
    before / every != after / every
}

/// Trains `run` from where it stands to its total, evaluating and
/// checkpointing (to `checkpoint`, if given) on the cadence and telling
/// `observer` everything. After [`request_stop`](crate::request_stop) it
/// finishes the step under way and the evaluation due after it,
/// checkpoints and returns [`TrainError::Stopped`](crate::TrainError::Stopped):
/// resumed from that checkpoint, the run ends bit for bit as one that
/// never stopped. An observer's error (a metrics file that cannot be
/// written) ends the run with that error, its last checkpoint the one its
/// history was made durable for.
pub fn drive(
    run: &mut dyn Run,
    cadence: Cadence,
    checkpoint: Option<&Path>,
    observer: &mut dyn Observer,
) -> Result<Timing> {
    assert!(cadence.eval_every > 0 && cadence.checkpoint_every > 0, "drive: cadences must be > 0, found {cadence:?}");
    let total = run.total();
    let mut metrics = Metrics::with_capacity(METRICS_ROOM);
    let mut timing = Timing::default();
    let _driving = crate::Driving::start();
    // The checkpoint's directory is made now, once: a checkpoint never
    // makes it again, so one deleted or moved while the run writes is an
    // error, not an empty directory holding the checkpoint alone.
    let dir = checkpoint.and_then(Path::parent).filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).map_err(crate::TrainError::io(dir))?;
    }
    while run.step() < total && !run.ends_early() {
        let before = run.step();
        let started = Instant::now();
        metrics.clear();
        run.train_step(&mut metrics).map_err(|e| match e {
            crate::TrainError::Autodiff(minnow_autodiff::Error::NonFiniteLoss { value }) => {
                crate::TrainError::NonFiniteLoss { step: before + 1, value }
            }
            crate::TrainError::Optim(refused @ minnow_optim::OptimError::NonFiniteGradient { .. }) => {
                crate::TrainError::NonFiniteGradient { step: before + 1, refused }
            }
            e => e,
        })?;
        timing.train_seconds += started.elapsed().as_secs_f64();
        let step = run.step();
        if !metrics.is_empty() {
            observer.observe(Event::Step { step, total, metrics: &metrics })?;
        }
        let stop = run.stop_requested();
        let done = step >= total || run.ends_early();
        // A stop evaluates first: the checkpoint is then the one an
        // unstopped run holds after this step, and the evaluation (its
        // metrics line, what it records in the run) is never lost.
        if crossed(before, step, cadence.eval_every) || (done && cadence.eval_at_end) {
            let started = Instant::now();
            metrics.clear();
            run.evaluate(&mut metrics)?;
            timing.eval_seconds += started.elapsed().as_secs_f64();
            observer.observe(Event::Eval { step, metrics: &metrics })?;
        }
        let on_cadence = crossed(before, step, cadence.checkpoint_every) || done;
        if let Some(path) = checkpoint
            && (on_cadence || stop)
        {
            let started = Instant::now();
            // A history that cannot be made durable stops the run here,
            // before a checkpoint gets ahead of it.
            observer.persist()?;
            write_checkpoint(run, path, minnow_nn::replace_atomically).map_err(|e| match (e, dir) {
                (
                    crate::TrainError::Nn(minnow_nn::NnError::Io { kind: std::io::ErrorKind::NotFound, .. }),
                    Some(dir),
                ) if !dir.is_dir() => crate::TrainError::RunDirGone { dir: dir.to_path_buf() },
                (e, _) => e,
            })?;
            timing.checkpoint_seconds += started.elapsed().as_secs_f64();
            observer.observe(Event::Checkpoint { step, path })?;
        }
        if stop && !done {
            return Err(crate::TrainError::Stopped { step });
        }
    }
    Ok(timing)
}

/// Writes `run`'s checkpoint to `path` (its directory made if missing).
pub fn save(run: &dyn Run, path: &Path) -> Result<()> {
    write_checkpoint(run, path, minnow_nn::write_atomically)
}

/// Writes `run`'s checkpoint to `path` with `write`, once it is whole (a
/// non-finite state writes nothing).
fn write_checkpoint(run: &dyn Run, path: &Path, write: fn(&Path, &[u8]) -> minnow_nn::Result<()>) -> Result<()> {
    let mut writer = RunCheckpointWriter::new(run.task(), &run.identity(), run.step());
    run.save(&mut writer)?;
    let bytes = writer.into_bytes().map_err(|e| match e {
        crate::TrainError::Nn(first_bad @ minnow_nn::NnError::NonFinite { .. }) => {
            crate::TrainError::NonFinite { step: run.step(), first_bad }
        }
        e => e,
    })?;
    Ok(write(path, &bytes)?)
}

/// Restores `run` (freshly built from its config) from the checkpoint at
/// `path`, which must be of the same task and config identity.
pub fn resume(run: &mut dyn Run, path: &Path) -> Result<()> {
    let checkpoint = RunCheckpoint::load(path, run.task(), &run.identity())?;
    run.restore(&checkpoint)?;
    let saved = checkpoint.step()?;
    if run.step() != saved {
        let detail = format!("the run restored to step {}, the checkpoint is at step {saved}", run.step());
        return Err(crate::TrainError::BadState { key: "step".into(), detail });
    }
    Ok(())
}
