//! `cargo xtask train [TASK]`: trains a task end to end with a progress
//! bar, JSON-lines metrics, a PNG learning curve and checkpoints in --out.

use crate::error::XtaskError;
use indicatif::{ProgressBar, ProgressStyle};
use minnow_cli::{Series, learning_curves};
use minnow_dist::Collective;
use minnow_train::sinks::{JsonLines, TensorBoard};
use minnow_train::{Event, Observer};
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub(crate) use minnow_cli::TrainArgs;

/// The task a bare `cargo xtask train` runs.
const DEFAULT_TASK: &str = "logic-ca";

/// Every task, what it is, and whether it is built yet.
pub(crate) const TASKS: &[(&str, &str, bool)] = &[
    ("digits-mlp", "MLP on the UCI digits (8x8 images), target >= 97% test accuracy", true),
    ("digits-cnn", "Conv2d network on the UCI digits, target >= 98% test accuracy", true),
    ("digits-lstm", "LSTM reading the digits row by row, target >= 95% test accuracy", true),
    ("logic-ca", "soft logic-gate cellular automaton learning the checkerboard (docs/LOGIC_CA.md)", true),
    ("dqn-cube", "DQN on the 2x2x2 cube from scrambles, with a curriculum", true),
    ("dqn-2048", "DQN playing 2048", true),
    ("ntuple-2048", "n-tuple network playing 2048, TD(0) on afterstates, one view", true),
    ("cube-solver", "2x2x2 cube cost-to-go by value iteration, for `cargo xtask solve cube`", true),
    ("dqn-cartpole", "DQN on CartPole-v1, target mean return >= 475 within 100k steps", true),
];

pub fn run(args: TrainArgs) -> Result<(), XtaskError> {
    let task = args.task.clone().unwrap_or_else(|| DEFAULT_TASK.to_string());
    let registry = minnow_tasks::registry();
    if registry.get(&task).is_some() {
        return minnow_cli::train(&args, &registry, &crate::workspace_root()).map_err(|e| match e {
            minnow_cli::CliError::Dist(e @ minnow_dist::DistError::NotCompiled) => {
                format!("{e} (through cargo: `mpirun -np K cargo xtask-mpi train {task} --distributed`)").into()
            }
            e => e.into(),
        });
    }
    if task == "list" {
        minnow_cli::train(&args, &registry, &crate::workspace_root())?;
        for (name, what, built) in TASKS.iter().filter(|(name, _, _)| registry.get(name).is_none()) {
            println!("  {name:<14} {}{what}", if *built { "" } else { "[not built yet] " });
        }
        return Ok(());
    }
    if args.until_first && args.sweep_seeds.is_none() {
        return Err("train: --until-first stops a seed sweep: pass --sweep-seeds FIRST..LAST too".to_string().into());
    }
    let world = minnow_dist::world(args.distributed).map_err(|e| match e {
        minnow_dist::DistError::NotCompiled => {
            format!("{e} (through cargo: `mpirun -np K cargo xtask-mpi train {task} --distributed`)").into()
        }
        e => XtaskError::from(e),
    })?;
    let result = train_task(&task, &args, &world);
    minnow_cli::run_returned();
    // A rank that failed alone would leave the others waiting in a
    // collective: the whole job ends with it. (A stop is agreed by every
    // rank in the step, so they all return.)
    if let Err(e) = &result
        && world.size() > 1
        && !matches!(e, XtaskError::Train(minnow_train::TrainError::Stopped { .. }))
    {
        eprintln!("error on rank {} of {}: {}", world.rank(), world.size(), e.chain());
        world.abort(1);
    }
    result
}

/// The tasks that train as several MPI ranks.
const DISTRIBUTED: &str = "digits-mlp, digits-cnn, digits-lstm, dqn-cartpole, dqn-cube, dqn-2048 (data-parallel), \
                           logic-ca --sweep-seeds and az-connect4, az-backgammon (a learner and self-play actors)";

fn train_task(task: &str, args: &TrainArgs, world: &Rc<dyn Collective>) -> Result<(), XtaskError> {
    let distributed = args.distributed || world.size() > 1;
    let task = task.to_string();
    match TASKS.iter().find(|(name, _, _)| *name == task) {
        None => Err(XtaskError::UnknownTask { task }),
        Some((_, what, false)) => Err(format!("train: task '{task}' is not built yet: {what}").into()),
        Some(_) if args.sweep_seeds.is_some() && task != "logic-ca" => {
            Err(format!("train: --sweep-seeds is for logic-ca, not '{task}'").into())
        }
        Some(_)
            if distributed
                && !(task.starts_with("digits-")
                    || task.starts_with("dqn-")
                    || task.starts_with("az-")
                    || args.sweep_seeds.is_some()) =>
        {
            Err(format!("train: '{task}' does not train distributed yet; these do: {DISTRIBUTED}").into())
        }
        Some(_) if args.sweep_seeds.is_some() => Ok(crate::logic_sweep::sweep(args, world.as_ref())?),
        // The task files still report errors as text.
        Some(_) if task.starts_with("dqn-") => crate::dqn_task::train_dqn(&task, args, world),
        Some(_) if task == "ntuple-2048" => crate::ntuple_task::train_ntuple(args),
        Some(_) if task == crate::cube_task::TASK => Ok(crate::cube_task::train_cube_solver(args)?),
        Some(_) if task == "logic-ca" => Ok(crate::logic_task::train_logic_ca(args)?),
        Some(_) => Err(XtaskError::UnknownTask { task }),
    }
}

/// Refuses to start unless every rank was given the same task, `--resume`
/// and config (the error names the first differing key).
pub(crate) fn agree_on_config(
    world: &dyn Collective,
    task: &str,
    args: &TrainArgs,
    config: &impl serde::Serialize,
) -> Result<(), XtaskError> {
    let identity = serde_json::json!({ "task": task, "resume": args.resume, "config": config });
    minnow_dist::agree(world, &identity.to_string(), minnow_train::describe_difference)?;
    Ok(())
}

/// The run directory as rank 0 of a run sees it ([`run_dir`]: checked and
/// locked); the other ranks, which write nothing, only its paths.
pub(crate) fn rank_run_dir(root: bool, args: &TrainArgs, name: &str) -> Result<(PathBuf, PathBuf), XtaskError> {
    if root { run_dir(args, name) } else { Ok(run_paths(args, name)) }
}

/// A run's directory (`--out`, or `runs/NAME`) and its checkpoint's path,
/// as they are: nothing checked or created.
pub(crate) fn run_paths(args: &TrainArgs, name: &str) -> (PathBuf, PathBuf) {
    let out = args.out.clone().unwrap_or_else(|| crate::workspace_root().join("runs").join(name));
    let checkpoint = out.join("checkpoint.safetensors");
    (out, checkpoint)
}

/// A run's directory (`--out`, or `runs/NAME`), created if missing, and
/// its checkpoint's path, once the flags agree with what the directory
/// holds: `--resume` needs a checkpoint there, a new run refuses one.
/// The directory is locked for the rest of the process (a second live run
/// into it is refused) and temporary files a killed run left are removed.
pub(crate) fn run_dir(args: &TrainArgs, name: &str) -> Result<(PathBuf, PathBuf), XtaskError> {
    let (out, checkpoint) = run_paths(args, name);
    std::fs::create_dir_all(&out).map_err(XtaskError::io(&out))?;
    lock(&out)?;
    for entry in std::fs::read_dir(&out).map_err(XtaskError::io(&out))?.flatten() {
        if entry.file_name().to_string_lossy().ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    match (args.resume, checkpoint.exists()) {
        (true, false) => Err(XtaskError::NoCheckpoint { path: checkpoint }),
        (false, true) => Err(XtaskError::RunExists { out }),
        _ => Ok((out, checkpoint)),
    }
}

/// Takes `out`'s advisory lock until the process ends (again, harmlessly,
/// if this process already holds it: a test may train and then resume).
fn lock(out: &std::path::Path) -> Result<(), XtaskError> {
    static HELD: std::sync::Mutex<Vec<(PathBuf, std::fs::File)>> = std::sync::Mutex::new(Vec::new());
    let path = out.join(crate::error::LOCK_FILE);
    let key = std::fs::canonicalize(out).map_err(XtaskError::io(out))?;
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if held.iter().any(|(p, _)| *p == key) {
        return Ok(());
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(XtaskError::io(&path))?;
    match file.try_lock() {
        Ok(()) => {
            held.push((key, file));
            Ok(())
        }
        Err(std::fs::TryLockError::WouldBlock) => Err(XtaskError::RunLocked { out: out.to_path_buf() }),
        Err(std::fs::TryLockError::Error(e)) => Err(XtaskError::io(&path)(e)),
    }
}

/// Writes `value` as pretty JSON to `path` atomically (a kill leaves the
/// old file or the new one, never half of one).
pub(crate) fn write_json<T: serde::Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), XtaskError> {
    let text = serde_json::to_string_pretty(value).expect("run files are plain data and always serialise");
    Ok(minnow_nn::write_atomically(path, text.as_bytes())?)
}

/// Training game `k` of a run seeded `seed` starts from this seed.
pub(crate) fn game_seed(seed: u64, k: u64) -> u64 {
    seed.rotate_left(32) ^ k
}

/// The task's defaults with the `--config` file (if any) laid over them key
/// by key, nested sections included (`{"mcts": {"simulations": 200}}`
/// changes that one field and keeps the preset's others); unknown keys are
/// errors.
pub(crate) fn layered<T: serde::Serialize + serde::de::DeserializeOwned>(
    defaults: T,
    path: Option<&Path>,
) -> Result<T, XtaskError> {
    let Some(path) = path else { return Ok(defaults) };
    let config = |source| XtaskError::Config { path: path.to_path_buf(), source };
    let text = std::fs::read_to_string(path).map_err(XtaskError::io(path))?;
    let overrides: serde_json::Value = serde_json::from_str(&text).map_err(config)?;
    let serde_json::Value::Object(overrides) = overrides else {
        return Err(XtaskError::ConfigNotObject { path: path.to_path_buf() });
    };
    let mut merged = serde_json::to_value(defaults).map_err(config)?;
    let overrides = serde_json::Value::Object(overrides);
    merge(&mut merged, overrides.clone());
    serde_json::from_value(merged).map_err(|e| config(with_key_path(e, &overrides)))
}

/// Lays `overrides` over `into` key by key. An object naming its variant
/// (`"kind"`) replaces the old one whole: a new variant keeps none of the
/// old one's fields.
fn merge(into: &mut serde_json::Value, overrides: serde_json::Value) {
    match (into, overrides) {
        (serde_json::Value::Object(fields), serde_json::Value::Object(overrides))
            if !overrides.contains_key("kind") =>
        {
            for (key, value) in overrides {
                match fields.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        fields.insert(key, value);
                    }
                }
            }
        }
        (into, overrides) => *into = overrides,
    }
}

/// serde names an unknown key without its section; this names it by its
/// path in the `--config` file (`dqn.replay.capcity`). A value error that
/// starts with its key (`inference: expected "f32" or "bf16", found
/// "bf17"`) gets the key's path the same way (`mcts.inference: ...`).
fn with_key_path(e: serde_json::Error, overrides: &serde_json::Value) -> serde_json::Error {
    let text = e.to_string();
    if let Some((key, rest)) = text.strip_prefix("unknown field `").and_then(|t| t.split_once('`')) {
        return match key_path(overrides, key) {
            Some(path) if path != key => serde::de::Error::custom(format!("unknown field `{path}`{rest}")),
            _ => e,
        };
    }
    let Some((key, rest)) = text.split_once(": ") else { return e };
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return e;
    }
    match key_path(overrides, key) {
        Some(path) if path != key => serde::de::Error::custom(format!("{path}: {rest}")),
        _ => e,
    }
}

/// The first path to `key` in `value`, sections joined by dots.
fn key_path(value: &serde_json::Value, key: &str) -> Option<String> {
    let serde_json::Value::Object(fields) = value else { return None };
    fields.iter().find_map(|(k, v)| if k == key { Some(k.clone()) } else { Some(format!("{k}.{}", key_path(v, key)?)) })
}

/// The terminal progress bar, the metrics sinks (metrics.jsonl and the
/// TensorBoard event file) and the curve data.
pub(crate) struct FrontEnd {
    pub(crate) bar: ProgressBar,
    /// The metric plotted beside the loss (e.g. "test_accuracy").
    accuracy_key: &'static str,
    sinks: (JsonLines, TensorBoard),
    loss: Vec<(f64, f64)>,
    accuracy: Vec<(f64, f64)>,
    last_loss: f64,
    last_accuracy: f64,
}

impl FrontEnd {
    /// Opens the metrics sinks in `out`, keeping only what they hold up to
    /// `step` (a resumed run redoes whatever came after its checkpoint).
    pub(crate) fn open(out: &Path, step: u64, total: u64, accuracy_key: &'static str) -> Result<Self, XtaskError> {
        let jsonl = JsonLines::open(&out.join("metrics.jsonl"), step)?;
        let tensorboard = TensorBoard::open(out, step)?;
        let mut front = Self {
            bar: ProgressBar::new(total),
            accuracy_key,
            sinks: (jsonl, tensorboard),
            loss: Vec::new(),
            accuracy: Vec::new(),
            last_loss: f64::NAN,
            last_accuracy: f64::NAN,
        };
        for value in front.sinks.0.kept().to_vec() {
            front.remember(&value);
        }
        front.bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}) {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        front.bar.set_position(step);
        Ok(front)
    }

    fn remember(&mut self, value: &serde_json::Value) {
        let step = value["step"].as_f64().unwrap_or(0.0);
        if let Some(loss) = value["loss"].as_f64() {
            self.loss.push((step, loss));
        }
        if let Some(acc) = value[self.accuracy_key].as_f64() {
            self.accuracy.push((step, acc));
        }
    }

    fn remember_metrics(&mut self, step: u64, metrics: &[(&'static str, f64)]) {
        for &(name, value) in metrics {
            if name == "loss" {
                self.loss.push((step as f64, value));
                self.last_loss = value;
            } else if name == self.accuracy_key {
                self.accuracy.push((step as f64, value));
                self.last_accuracy = value;
            }
        }
    }

    pub(crate) fn plot(&self, path: &Path, task: &str) -> Result<(), XtaskError> {
        let accuracy_title = self.accuracy_key.replace('_', " ");
        let series = [
            Series { title: "training loss", points: &self.loss },
            Series { title: &accuracy_title, points: &self.accuracy },
        ];
        Ok(learning_curves(path, task, &series)?)
    }
}

impl Observer for FrontEnd {
    fn observe(&mut self, event: Event<'_>) {
        self.sinks.observe(event);
        match event {
            Event::Step { step, metrics, .. } => {
                self.remember_metrics(step, metrics);
                self.bar.set_position(step);
                if self.loss.len().is_multiple_of(25) {
                    let headline = self.accuracy_key.replace('_', " ");
                    self.bar.set_message(format!("loss {:.4}  {headline} {:.4}", self.last_loss, self.last_accuracy));
                }
            }
            Event::Eval { step, metrics } => self.remember_metrics(step, metrics),
            Event::Checkpoint { step, .. } => self.bar.set_message(format!("checkpoint at step {step}")),
        }
    }

    fn persist(&mut self) {
        self.sinks.persist();
    }
}

#[cfg(test)]
#[path = "train_config_tests.rs"]
mod config_tests;
