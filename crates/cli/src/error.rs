//! What the command line can fail with: a task's error with its sources,
//! and the files, flags and configs the command line itself handles.

use std::path::PathBuf;

/// The advisory lock file a live run holds in its directory.
pub const LOCK_FILE: &str = ".lock";

/// A failed command; [`chain`] prints it with its causes.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The task's own failure (a stopped run among them).
    #[error("{task}")]
    Task {
        /// The task's name.
        task: String,
        /// What failed.
        source: minnow_train::TaskError,
    },
    /// The run driver's (resume, a stop, a checkpoint).
    #[error(transparent)]
    Train(#[from] minnow_train::TrainError),
    /// The process group's (no MPI support, ranks that disagree).
    #[error(transparent)]
    Dist(#[from] minnow_dist::DistError),
    /// A file or directory that could not be read or written.
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A `--config` file that is not a JSON object of the config's keys,
    /// or names a key or value the config refuses.
    #[error("--config {}{}", path.display(), line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Config {
        /// The file.
        path: PathBuf,
        /// The line of the refused key, when the error names one.
        line: Option<usize>,
        /// What is wrong in it, the key named by its path.
        source: serde_json::Error,
    },
    /// A task name the registry does not hold.
    #[error("unknown task '{task}'; `train list` shows the tasks")]
    UnknownTask {
        /// The name given.
        task: String,
    },
    /// Flags that do not go together, or a task asked for what it cannot do.
    #[error("train: {0}")]
    Usage(String),
    /// An `--out` that cannot be made a directory because of a path in it:
    /// a file, or a symbolic link to nothing.
    #[error("--out {}: {detail}", out.display())]
    BadOut {
        /// The run directory asked for.
        out: PathBuf,
        /// Which path is in the way, and how.
        detail: String,
    },
    /// `--resume` with no checkpoint in `--out`.
    #[error("--resume: no checkpoint at {}", path.display())]
    NoCheckpoint {
        /// Where the checkpoint should be.
        path: PathBuf,
    },
    /// A new run into an `--out` that already holds one.
    #[error("{} already holds a run: pass --resume to continue it, or --out for a new one", out.display())]
    RunExists {
        /// The run directory.
        out: PathBuf,
    },
    /// Another live process is training into the same `--out`.
    #[error("{} is in use by another run (its lock file {LOCK_FILE} is held); wait for it, or pass another --out", out.display())]
    RunLocked {
        /// The run directory.
        out: PathBuf,
    },
    /// `eval` with no checkpoint where it looked.
    #[error("no checkpoint at {}: train the task first, or pass --checkpoint", path.display())]
    NoAgent {
        /// Where it looked.
        path: PathBuf,
    },
    /// A `MINNOW_SIMD` that names no level.
    #[error(transparent)]
    Simd(#[from] minnow_kernels::UnknownSimdLevel),
    /// A PNG plot that could not be drawn.
    #[error("plot {}: {detail}", path.display())]
    Plot {
        /// The PNG.
        path: PathBuf,
        /// What the plotting library said.
        detail: String,
    },
}

impl CliError {
    /// A task's failure: a `--config` file's bad key named with the file,
    /// anything else with the task.
    pub fn of_task(task: &str, config: Option<&std::path::Path>, error: minnow_train::TaskError) -> Self {
        match (error.downcast::<serde_json::Error>(), config) {
            (Ok(source), Some(path)) => {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                let line =
                    minnow_train::config::error_key(&source).and_then(|key| minnow_train::config::line_of(&text, &key));
                CliError::Config { path: path.to_path_buf(), line, source: *source }
            }
            (Ok(source), None) => CliError::Task { task: task.to_string(), source },
            (Err(source), _) => CliError::Task { task: task.to_string(), source },
        }
    }

    /// An I/O failure at `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| CliError::Io { path, source }
    }

    /// Whether the run was stopped on request (Ctrl-C, SIGUSR1) after
    /// writing its checkpoint, rather than failing.
    pub fn is_stop(&self) -> bool {
        if let CliError::Train(minnow_train::TrainError::Stopped { .. }) = self {
            return true;
        }
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = source {
            if let Some(minnow_train::TrainError::Stopped { .. }) = e.downcast_ref() {
                return true;
            }
            source = e.source();
        }
        false
    }
}

/// `error` and each of its sources, joined by ": ".
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// Prints a command's error with its causes and returns the exit code: 130
/// for a run `stopped` with its checkpoint (what a shell reports for
/// Ctrl-C), else failure.
pub fn exit_on_error(error: &dyn std::error::Error, stopped: bool) -> std::process::ExitCode {
    if stopped {
        eprintln!("{}", chain(error));
        std::process::ExitCode::from(130)
    } else {
        eprintln!("error: {}", chain(error));
        std::process::ExitCode::FAILURE
    }
}
