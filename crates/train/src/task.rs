//! A task: what `train NAME` runs. It names itself, owns its config (the
//! preset, JSON laid over it, its checks) and trains through a
//! [`Session`], which the front end provides: the run directory, resume,
//! the progress, the metrics files and the learning curve, and the
//! process group of a distributed run. The shipped tasks and a program's
//! own are entries of the same [`Registry`], trained by the same command
//! line.

use crate::{Cadence, Metrics, Observer, Progress, Run, RunCheckpoint, Timing};
use minnow_dist::Collective;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::any::Any;
use std::path::Path;
use std::rc::Rc;

/// A task's failure: any error, its sources kept (a stopped run stays a
/// [`TrainError::Stopped`](crate::TrainError::Stopped) the front end can
/// recognise).
pub type TaskError = Box<dyn std::error::Error + Send + Sync>;

/// A task that trains by name.
pub trait Task: Sync {
    /// The config: the preset, a file's keys laid over it, the run's
    /// identity on resume and in `config.json`.
    type Config: Serialize + DeserializeOwned + Clone + Send + 'static;

    /// The name `train NAME` takes (`digits-mlp`).
    fn name(&self) -> &str;

    /// One line on what it trains and to what target.
    fn about(&self) -> &str;

    /// The preset.
    fn defaults(&self) -> Self::Config;

    /// The preset with `overrides` (a `--config` file) laid over it
    /// ([`layered`](crate::config::layered): unknown keys refused by path).
    fn config(&self, overrides: &Value) -> Result<Self::Config, serde_json::Error> {
        crate::config::layered(self.defaults(), overrides)
    }

    /// Sets the run's seed (`--seed`).
    fn set_seed(&self, config: &mut Self::Config, seed: u64);

    /// Sets the steps to train for (`--steps`), in the task's own unit.
    fn set_steps(&self, config: &mut Self::Config, steps: u64);

    /// Refuses a config the run could not train, naming the key.
    fn check(&self, config: &Self::Config) -> Result<(), TaskError> {
        let _ = config;
        Ok(())
    }

    /// Refuses to train distributed (`--distributed`) as `ranks`
    /// processes when the task's way of training distributed cannot,
    /// before anything is written.
    fn check_ranks(&self, ranks: usize) -> Result<(), TaskError> {
        let _ = ranks;
        Ok(())
    }

    /// The run directory's default name (`runs/NAME`).
    fn run_name(&self, config: &Self::Config) -> String {
        let _ = config;
        self.name().to_string()
    }

    /// How the task trains as several processes (`"data-parallel"`), if
    /// it does: then [`Session::world`] may hold more than one rank.
    fn distributed(&self) -> Option<&str> {
        None
    }

    /// Trains: builds the run (resumed when the session is resuming),
    /// drives it through the session and reports its final evaluation.
    fn train(&self, config: &Self::Config, session: &mut dyn Session) -> Result<(), TaskError>;

    /// Trains each seed in turn with nothing written, a table row per
    /// seed (`--sweep-seeds`), if the task has such a table.
    fn sweep(&self, config: &Self::Config, sweep: &Sweep, world: &dyn Collective) -> Result<(), TaskError> {
        let _ = (config, sweep, world);
        Err(format!("--sweep-seeds: {} has no seed sweep", self.name()).into())
    }

    /// Evaluates a saved agent (`eval NAME`), if the task has an
    /// evaluation: typically [`saved_config`](Task::saved_config), the
    /// weights from the checkpoint, then the task's final suite.
    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError> {
        let _ = request;
        Err("no evaluation: the task does not implement `Task::evaluate`".into())
    }

    /// The config a checkpoint of this task was trained with: its saved
    /// identity laid over the preset (so the keys free on a resume, such
    /// as budgets and evaluation settings, take the preset's values), then
    /// `overrides` (an `eval --config` file), checked.
    fn saved_config(&self, checkpoint: &RunCheckpoint, overrides: &Value) -> Result<Self::Config, TaskError> {
        let identity: Value = serde_json::from_str(checkpoint.identity()?)
            .map_err(|e| format!("{}: metadata 'config_identity' is not JSON: {e}", checkpoint.path().display()))?;
        let saved = crate::config::layered(self.defaults(), &identity).map_err(|e| {
            format!("{}: its config does not fit task {}: {e}", checkpoint.path().display(), self.name())
        })?;
        let config = crate::config::layered(saved, overrides)?;
        self.check(&config)?;
        Ok(config)
    }
}

/// What `eval NAME` asks of a task.
pub struct Evaluate<'a> {
    /// The checkpoint: a run's, or a shipped agent (its weights alone).
    pub checkpoint: &'a Path,
    /// Games (episodes, positions) per match, instead of the task's own
    /// number.
    pub games: Option<usize>,
    /// Keys laid over the saved config (search settings, precision).
    pub overrides: &'a Value,
    /// Where long matches show their progress.
    pub progress: &'a dyn Progress,
}

/// What an evaluation found: its figures by name, and the table that
/// shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// The figures (`greedy_return`, `win_rate`).
    pub figures: Metrics,
    /// The table to print.
    pub table: String,
}

/// A seed sweep's range and stop rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sweep {
    /// The seeds, in order.
    pub seeds: Vec<u64>,
    /// Stop after the first seed that meets the task's target.
    pub until_first: bool,
}

/// What a task trains through: given by the front end (the command line,
/// a test), one per run.
pub trait Session {
    /// The processes of this run (one, unless distributed).
    fn world(&self) -> &Rc<dyn Collective>;

    /// Whether the run continues from the checkpoint in its directory.
    fn resuming(&self) -> bool;

    /// Where the run writes (metrics, checkpoints, `config.json`): on the
    /// rank that writes (rank 0), else `None`.
    fn out(&self) -> Option<&Path>;

    /// The run checkpoint's path (every rank reads it to resume).
    fn checkpoint(&self) -> &Path;

    /// Restores `run` from the checkpoint when resuming
    /// ([`resume_training`]); else nothing.
    fn resume(&self, run: &mut dyn Run) -> crate::Result<()> {
        if self.resuming() { resume_training(run, self.checkpoint()) } else { Ok(()) }
    }

    /// Trains `run` to its total on `cadence` (checkpoints on the rank
    /// that writes), with the front end's progress and metrics files;
    /// `view` says what to show.
    fn drive(&mut self, run: &mut dyn Run, cadence: Cadence, view: View<'_>) -> crate::Result<Timing>;

    /// An evaluation after the drive (a final suite), on the curve and in
    /// the metrics like one during it; an error if they cannot be written.
    fn record(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> crate::Result<()>;

    /// Writes `contents` as `out/file`, atomically (a kill leaves the old
    /// file or the new one); nothing on a rank that does not write. For
    /// JSON, [`write_json`].
    fn write(&self, file: &str, contents: &[u8]) -> Result<(), TaskError>;

    /// Draws named series of (step, value) points side by side into the
    /// PNG `out/file`; nothing on a rank that does not write.
    fn plot(&self, file: &str, title: &str, series: &[(&str, &[(f64, f64)])]) -> Result<(), TaskError>;

    /// Where long work after the drive (a final suite's matches) shows
    /// its progress; nothing shown unless the front end draws it.
    fn progress(&self) -> &dyn Progress {
        &()
    }
}

/// Restores `run` from `checkpoint` to train on ([`resume`](crate::resume)),
/// refused when the budget was lowered below the checkpoint's step
/// ([`TrainError::NothingToResume`](crate::TrainError::NothingToResume)).
/// A checkpoint at the total resumes: a run stopped in its final suite
/// finishes it.
pub fn resume_training(run: &mut dyn Run, checkpoint: &Path) -> crate::Result<()> {
    crate::resume(run, checkpoint)?;
    let (step, total) = (run.step(), run.total());
    if step > total {
        return Err(crate::TrainError::NothingToResume { step, total });
    }
    Ok(())
}

/// Writes `value` as pretty JSON into the session's `out/file`, its
/// fields in their declared order.
pub fn write_json(session: &dyn Session, file: &str, value: &impl Serialize) -> Result<(), TaskError> {
    session.write(file, serde_json::to_string_pretty(value)?.as_bytes())
}

/// What the front end shows of a drive.
pub struct View<'a> {
    /// The metric plotted beside the loss (`test_accuracy`).
    pub headline: &'static str,
    /// The metrics the progress line shows, latest values.
    pub show: &'a [&'static str],
    /// Also told every event (a task's own tallies).
    pub observer: &'a mut dyn Observer,
}

/// A task of any config type: what a [`Registry`] holds.
pub trait AnyTask: Sync {
    /// [`Task::name`].
    fn name(&self) -> &str;
    /// [`Task::about`].
    fn about(&self) -> &str;
    /// [`Task::distributed`].
    fn distributed(&self) -> Option<&str>;
    /// [`Task::check_ranks`].
    fn check_ranks(&self, ranks: usize) -> Result<(), TaskError>;
    /// The config from the preset, `overrides`, `--seed` and `--steps`,
    /// checked.
    fn configure(&self, overrides: &Value, seed: Option<u64>, steps: Option<u64>) -> Result<Configured, TaskError>;
    /// [`Task::train`] on a config [`configure`](AnyTask::configure) made.
    fn train(&self, config: &Configured, session: &mut dyn Session) -> Result<(), TaskError>;
    /// [`Task::sweep`] on a config [`configure`](AnyTask::configure) made.
    fn sweep(&self, config: &Configured, sweep: &Sweep, world: &dyn Collective) -> Result<(), TaskError>;
    /// [`Task::evaluate`].
    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError>;
}

/// A task's config, made and checked, with its JSON (`config.json`, and
/// what every rank of a distributed run must agree on).
pub struct Configured {
    config: Box<dyn Any + Send>,
    /// The config as pretty JSON, its fields in their declared order.
    pub text: String,
    /// The run directory's default name.
    pub run_name: String,
}

impl<T: Task> AnyTask for T {
    fn name(&self) -> &str {
        Task::name(self)
    }

    fn about(&self) -> &str {
        Task::about(self)
    }

    fn distributed(&self) -> Option<&str> {
        Task::distributed(self)
    }

    fn check_ranks(&self, ranks: usize) -> Result<(), TaskError> {
        Task::check_ranks(self, ranks)
    }

    fn configure(&self, overrides: &Value, seed: Option<u64>, steps: Option<u64>) -> Result<Configured, TaskError> {
        let mut config = self.config(overrides)?;
        if let Some(seed) = seed {
            self.set_seed(&mut config, seed);
        }
        if let Some(steps) = steps {
            self.set_steps(&mut config, steps);
        }
        self.check(&config)?;
        let text = serde_json::to_string_pretty(&config)?;
        let run_name = self.run_name(&config);
        Ok(Configured { config: Box::new(config), text, run_name })
    }

    fn train(&self, config: &Configured, session: &mut dyn Session) -> Result<(), TaskError> {
        Task::train(self, typed::<T>(config), session)
    }

    fn sweep(&self, config: &Configured, sweep: &Sweep, world: &dyn Collective) -> Result<(), TaskError> {
        Task::sweep(self, typed::<T>(config), sweep, world)
    }

    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError> {
        Task::evaluate(self, request)
    }
}

impl Configured {
    /// The config as a JSON value.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).expect("a config's own JSON parses")
    }
}

fn typed<T: Task>(config: &Configured) -> &T::Config {
    config.config.downcast_ref().expect("a task is given the config it configured")
}

/// Tasks by name, in the order `train list` shows them.
#[derive(Default)]
pub struct Registry {
    tasks: Vec<Box<dyn AnyTask>>,
    default: Option<String>,
}

impl Registry {
    /// No tasks.
    pub fn new() -> Self {
        Self::default()
    }

    /// With `task` added (replacing one of the same name).
    pub fn with(mut self, task: impl AnyTask + 'static) -> Self {
        self.tasks.retain(|t| t.name() != task.name());
        self.tasks.push(Box::new(task));
        self
    }

    /// With `name` the task a bare `train` runs (else the first).
    pub fn with_default(mut self, name: &str) -> Self {
        self.default = Some(name.to_string());
        self
    }

    /// The task a bare `train` runs.
    pub fn default_task(&self) -> Option<&dyn AnyTask> {
        match &self.default {
            Some(name) => self.get(name),
            None => self.iter().next(),
        }
    }

    /// The task called `name`.
    pub fn get(&self, name: &str) -> Option<&dyn AnyTask> {
        self.tasks.iter().find(|t| t.name() == name).map(|t| t.as_ref())
    }

    /// Every task, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &dyn AnyTask> {
        self.tasks.iter().map(|t| t.as_ref())
    }
}

impl std::fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").field("headline", &self.headline).field("show", &self.show).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Evaluate<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluate")
            .field("checkpoint", &self.checkpoint)
            .field("games", &self.games)
            .field("overrides", &self.overrides)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configured").field("text", &self.text).field("run_name", &self.run_name).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(|t| t.name())).finish()
    }
}
