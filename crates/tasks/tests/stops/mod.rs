//! Training a task with a stop after a chosen step and resuming it: a
//! [`Session`] that stops its drive where told (as a Ctrl-C, SIGTERM or
//! SIGUSR1 would), keeps the metrics lines as the command line's sinks
//! do (a resume keeps the lines up to its checkpoint's step), and writes
//! into a scratch directory, which is compared with an unstopped run's
//! file by file: checkpoints tensor by tensor and key by key, JSON value
//! by value, anything else byte for byte, leaving out what says how an
//! invocation went (wall-clock times, whether it resumed).

use minnow_dist::{Collective, Solo};
use minnow_nn::testing::ScratchDir;
use minnow_train::{
    AnyTask, Cadence, Configured, Event, Metrics, Observer, Run, RunCheckpoint, RunCheckpointWriter, Session,
    TaskError, Timing, TrainError, View,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Mutex;

/// Metric and JSON keys that hold wall-clock time or throughput (the
/// suffixes `.ci/same-run` leaves out), or say whether the last
/// invocation resumed (cube-solver's `eval.json`): facts about an
/// invocation, not the run, left out of every comparison.
const INVOCATION: [&str; 5] = ["seconds", "games_per_min", "simulations_per_s", "per_s", "resumed"];

/// Where a run is stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Never: the run trains to its end.
    Never,
    /// After the driver's `k`th training step (from 1).
    AfterStep(u64),
    /// After the drive, during the task's final suite (the process is
    /// killed: the checkpoint at the end is all that is left).
    InFinalSuite,
}

/// A finished run: its directory and its metrics lines.
struct Outcome {
    dir: ScratchDir,
    /// `(step, line)`, in the order the sinks would write them.
    lines: Vec<(u64, String)>,
    /// Training steps the driver took in the first drive.
    steps: u64,
    /// Whether the stop ended the first invocation, and a second resumed.
    resumed: bool,
}

/// Trains `task` once, stopped at `stop` and then resumed (if the stop
/// ended it early), and returns what the run left behind.
fn train(task: &dyn AnyTask, config: &Configured, stop: Stop) -> Outcome {
    let dir = ScratchDir::new(&format!("stop-{}", task.name()));
    let mut session = StopSession::new(&dir, false, stop);
    let first = task.train(config, &mut session);
    let steps = session.steps;
    let resumed = match first {
        Ok(()) => false,
        Err(e) if stop != Stop::Never && stopped(&*e) => {
            let lines = std::mem::take(&mut session.lines);
            session = StopSession::new(&dir, true, Stop::Never);
            session.lines = lines;
            task.train(config, &mut session)
                .unwrap_or_else(|e| panic!("{}: resuming after {stop:?}: {e}", task.name()));
            true
        }
        Err(e) => panic!("{}: {stop:?}: {e}", task.name()),
    };
    Outcome { dir, lines: session.lines, steps, resumed }
}

fn stopped(e: &(dyn std::error::Error + 'static)) -> bool {
    matches!(e.downcast_ref::<TrainError>(), Some(TrainError::Stopped { .. }))
}

/// Asserts that `stopped` left the same run behind as `straight`.
fn assert_same(task: &str, stop: Stop, straight: &Outcome, stopped: &Outcome) {
    let lines = |o: &Outcome| o.lines.iter().map(|(_, l)| l.clone()).collect::<Vec<_>>();
    let (a, b) = (lines(straight), lines(stopped));
    if a != b {
        let first = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        panic!(
            "{task}, stopped {stop:?}: the metrics differ from line {first} ({} lines, stopped {}):\n  straight {:?}\n  stopped  {:?}",
            a.len(),
            b.len(),
            a.get(first),
            b.get(first)
        );
    }
    let (files_a, files_b) = (files(&straight.dir), files(&stopped.dir));
    let names = |f: &BTreeMap<PathBuf, Contents>| f.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&files_a), names(&files_b), "{task}, stopped {stop:?}: the files written differ");
    for (name, contents) in &files_a {
        if let Some(difference) = contents.difference(&files_b[name]) {
            panic!("{task}, stopped {stop:?}: {} differs: {difference}", name.display());
        }
    }
}

/// A file's contents as compared.
#[derive(Debug, PartialEq)]
enum Contents {
    /// A safetensors file: its metadata (values as JSON where they parse)
    /// and its tensors (dtype, shape and bytes), the checksum left out.
    Checkpoint(BTreeMap<String, Value>, BTreeMap<String, (Value, Vec<u8>)>),
    Json(Value),
    Bytes(Vec<u8>),
}

impl Contents {
    fn read(path: &Path) -> Self {
        let bytes = std::fs::read(path).unwrap();
        match path.extension().and_then(|e| e.to_str()) {
            Some("safetensors") => checkpoint(&bytes),
            Some("json") => Contents::Json(without_invocation(serde_json::from_slice(&bytes).unwrap())),
            _ => Contents::Bytes(bytes),
        }
    }

    fn difference(&self, other: &Self) -> Option<String> {
        match (self, other) {
            (Contents::Checkpoint(meta_a, tensors_a), Contents::Checkpoint(meta_b, tensors_b)) => {
                let keys = meta_a.keys().chain(meta_b.keys());
                let meta = keys.filter(|k| meta_a.get(*k) != meta_b.get(*k)).map(|k| format!("metadata {k}"));
                let keys = tensors_a.keys().chain(tensors_b.keys());
                let tensors = keys.filter(|k| tensors_a.get(*k) != tensors_b.get(*k)).map(|k| format!("tensor {k}"));
                let differ: Vec<String> = meta.chain(tensors).collect();
                (!differ.is_empty()).then(|| differ.join(", "))
            }
            _ => (self != other).then(|| format!("{self:?}\nstopped: {other:?}")),
        }
    }
}

fn checkpoint(bytes: &[u8]) -> Contents {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut header: serde_json::Map<String, Value> = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let body = &bytes[8 + n..];
    let mut meta = BTreeMap::new();
    if let Some(Value::Object(entries)) = header.remove("__metadata__") {
        for (key, value) in entries {
            let text = value.as_str().unwrap().to_string();
            let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
            meta.insert(key, without_invocation(value));
        }
    }
    meta.remove("checksum");
    let tensors = header
        .into_iter()
        .map(|(name, t)| {
            let (start, end) = (t["data_offsets"][0].as_u64().unwrap(), t["data_offsets"][1].as_u64().unwrap());
            let bytes = body[start as usize..end as usize].to_vec();
            (name, (serde_json::json!([t["dtype"], t["shape"]]), bytes))
        })
        .collect();
    Contents::Checkpoint(meta, tensors)
}

fn without_invocation(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter().filter(|(k, _)| !is_invocation(k)).map(|(k, v)| (k, without_invocation(v))).collect(),
        ),
        Value::Array(values) => Value::Array(values.into_iter().map(without_invocation).collect()),
        v => v,
    }
}

fn is_invocation(key: &str) -> bool {
    INVOCATION.iter().any(|suffix| key.ends_with(suffix))
}

/// Every file under `dir`, by its path in it.
fn files(dir: &Path) -> BTreeMap<PathBuf, Contents> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.insert(path.strip_prefix(dir).unwrap().to_path_buf(), Contents::read(&path));
            }
        }
    }
    found
}

/// The session a test trains a task through.
struct StopSession {
    world: Rc<dyn Collective>,
    resuming: bool,
    out: PathBuf,
    checkpoint: PathBuf,
    stop: Stop,
    lines: Vec<(u64, String)>,
    /// Training steps of the last drive.
    steps: u64,
}

impl StopSession {
    fn new(dir: &Path, resuming: bool, stop: Stop) -> Self {
        let (out, checkpoint) = (dir.to_path_buf(), dir.join("checkpoint.safetensors"));
        Self { world: Rc::new(Solo), resuming, out, checkpoint, stop, lines: Vec::new(), steps: 0 }
    }

    fn push_line(&mut self, step: u64, metrics: &[(&'static str, f64)]) {
        let mut line = format!("{step}");
        for (name, value) in metrics.iter().filter(|(name, _)| !is_invocation(name)) {
            line += &format!(" {name}={:016x}", value.to_bits());
        }
        self.lines.push((step, line));
    }
}

impl Session for StopSession {
    fn world(&self) -> &Rc<dyn Collective> {
        &self.world
    }

    fn resuming(&self) -> bool {
        self.resuming
    }

    fn out(&self) -> Option<&Path> {
        Some(&self.out)
    }

    fn checkpoint(&self) -> &Path {
        &self.checkpoint
    }

    fn drive(&mut self, run: &mut dyn Run, cadence: Cadence, view: View<'_>) -> minnow_train::Result<Timing> {
        // What the metrics sinks keep on a resume.
        let start = run.step();
        self.lines.retain(|(step, _)| *step <= start);
        let at = match self.stop {
            Stop::AfterStep(k) => Some(k),
            Stop::Never | Stop::InFinalSuite => None,
        };
        let mut stopping = StopAfter { run, steps: 0, at };
        let mut lines = Lines(Vec::new());
        let driven =
            minnow_train::drive(&mut stopping, cadence, Some(&self.checkpoint), &mut (&mut lines, view.observer));
        self.steps = stopping.steps;
        for (step, metrics) in lines.0 {
            self.push_line(step, &metrics);
        }
        let timing = driven?;
        if self.stop == Stop::InFinalSuite {
            return Err(TrainError::Stopped { step: stopping.run.step() });
        }
        Ok(timing)
    }

    fn record(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> Result<(), TrainError> {
        self.push_line(step, metrics);
        Ok(())
    }

    fn write(&self, file: &str, contents: &[u8]) -> Result<(), TaskError> {
        Ok(minnow_nn::write_atomically(&self.out.join(file), contents)?)
    }

    /// The points, as text in place of the picture.
    fn plot(&self, file: &str, title: &str, series: &[(&str, &[(f64, f64)])]) -> Result<(), TaskError> {
        let points: Vec<_> = series.iter().map(|(name, points)| format!("{name}: {points:?}")).collect();
        self.write(file, format!("{title}\n{}", points.join("\n")).as_bytes())
    }
}

/// The metrics of every step and evaluation, in order.
struct Lines(Vec<(u64, Metrics)>);

impl Observer for Lines {
    fn observe(&mut self, event: Event<'_>) -> Result<(), TrainError> {
        match event {
            Event::Step { step, metrics, .. } | Event::Eval { step, metrics } => self.0.push((step, metrics.to_vec())),
            Event::Checkpoint { .. } => {}
        }
        Ok(())
    }
}

/// A run that asks the driver to stop ([`minnow_train::request_stop`],
/// what the command line's signal handlers call) during its `at`th
/// training step.
struct StopAfter<'a> {
    run: &'a mut dyn Run,
    steps: u64,
    at: Option<u64>,
}

impl Run for StopAfter<'_> {
    fn task(&self) -> &str {
        self.run.task()
    }

    fn identity(&self) -> String {
        self.run.identity()
    }

    fn step(&self) -> u64 {
        self.run.step()
    }

    fn total(&self) -> u64 {
        self.run.total()
    }

    fn ends_early(&self) -> bool {
        self.run.ends_early()
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> minnow_train::Result<()> {
        self.steps += 1;
        self.run.train_step(metrics)?;
        if self.at == Some(self.steps) {
            assert!(minnow_train::request_stop(), "a running driver takes the request");
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> minnow_train::Result<()> {
        self.run.evaluate(metrics)
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> minnow_train::Result<()> {
        self.run.save(checkpoint)
    }

    fn stop_requested(&self) -> bool {
        self.run.stop_requested()
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> minnow_train::Result<()> {
        self.run.restore(checkpoint)
    }
}

/// Trains `task` with `config` straight through, then stopped after each
/// of its steps in turn and resumed, and stopped during its final suite,
/// and asserts every stopped run ends as the straight one did. One task
/// at a time: a stop request reaches every driver of the process.
pub fn check_every_stop(task: &dyn AnyTask, config: &Configured) {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let started = std::time::Instant::now();
    let name = task.name();
    let straight = train(task, config, Stop::Never);
    let steps = straight.steps;
    assert!(steps > 1, "{name}: a run of {steps} steps stops nowhere in between");
    for k in 1..=steps {
        let stopped = train(task, config, Stop::AfterStep(k));
        // A stop after the last step is no stop: the run is complete.
        assert_eq!((stopped.steps, stopped.resumed), (k, k < steps), "{name}: stopped after step {k}");
        assert_same(name, Stop::AfterStep(k), &straight, &stopped);
    }
    let stopped = train(task, config, Stop::InFinalSuite);
    assert!(stopped.resumed, "{name}: stopped in the final suite");
    assert_same(name, Stop::InFinalSuite, &straight, &stopped);
    eprintln!("{name}: stopped after each of {steps} steps in {:.1} s", started.elapsed().as_secs_f64());
}
