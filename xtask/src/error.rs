//! The command line's error: the library crates' errors converted by `?`,
//! file and JSON failures with the path they concern, and (while the task
//! files still build their messages as text) a plain message.

use std::path::PathBuf;

/// The advisory lock file a live run holds in its directory.
pub const LOCK_FILE: &str = ".lock";

/// What a `cargo xtask` command can fail with. `main` prints it with its
/// chain of sources.
#[derive(Debug, thiserror::Error)]
pub enum XtaskError {
    #[error(transparent)]
    Nn(#[from] minnow_nn::NnError),
    #[error(transparent)]
    Graph(#[from] minnow_autodiff::Error),
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    #[error(transparent)]
    Rl(#[from] minnow_rl::RlError),
    #[error(transparent)]
    Logic(#[from] minnow_logic::LogicError),
    #[error(transparent)]
    Train(#[from] minnow_train::TrainError),
    #[error(transparent)]
    Env(#[from] minnow_envs::EnvError),
    #[error(transparent)]
    Dist(#[from] minnow_dist::DistError),
    #[error(transparent)]
    Cli(#[from] minnow_cli::CliError),
    /// A file or directory that could not be read or written.
    #[error("{}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// A `--config` file that is not a JSON object of the config's keys.
    #[error("--config {}", path.display())]
    Config { path: PathBuf, source: serde_json::Error },
    /// A `--config` file whose top level is not an object.
    #[error("--config {}: expected a JSON object of config keys", path.display())]
    ConfigNotObject { path: PathBuf },
    /// `cargo xtask train` of a task that does not exist.
    #[error("train: unknown task '{task}'; `cargo xtask train list` shows the tasks")]
    UnknownTask { task: String },
    /// `--resume` with no checkpoint in `--out`.
    #[error("--resume: no checkpoint at {}", path.display())]
    NoCheckpoint { path: PathBuf },
    /// A new run into an `--out` that already holds one.
    #[error("{} already holds a run: pass --resume to continue it, or --out for a new one", out.display())]
    RunExists { out: PathBuf },
    /// Another live process is training into the same `--out`.
    #[error("{} is in use by another run (its lock file {LOCK_FILE} is held); wait for it, or pass another --out", out.display())]
    RunLocked { out: PathBuf },
    /// `bench` or `profile` in a debug build, whose timings mean nothing.
    #[error("{command}: refusing to time a debug build; run `cargo xtask {command}` (it builds with --release)")]
    DebugBuild { command: &'static str },
    /// A PNG plot that could not be drawn.
    #[error("plot {}: {detail}", path.display())]
    Plot { path: PathBuf, detail: String },
    /// A PNG or GIF that could not be encoded.
    #[error("{}: {detail}", path.display())]
    Image { path: PathBuf, detail: String },
    /// A message built as text by code not yet moved to this type.
    #[error("{0}")]
    Message(String),
}

/// A command's result.
pub type Result<T, E = XtaskError> = std::result::Result<T, E>;

impl XtaskError {
    /// An I/O failure at `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| XtaskError::Io { path, source }
    }

    /// Whether a run was stopped on request after writing its checkpoint.
    pub fn is_stop(&self) -> bool {
        match self {
            XtaskError::Train(minnow_train::TrainError::Stopped { .. }) => true,
            XtaskError::Cli(e) => e.is_stop(),
            _ => false,
        }
    }
}

impl From<String> for XtaskError {
    fn from(message: String) -> Self {
        XtaskError::Message(message)
    }
}

/// Lets the task files that still return `Result<_, String>` call the
/// helpers that return [`XtaskError`] with `?`.
impl From<XtaskError> for String {
    fn from(e: XtaskError) -> Self {
        minnow_cli::chain(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::XtaskError;

    #[test]
    fn library_errors_convert_with_question_mark() {
        fn build() -> super::Result<()> {
            let mut params = minnow_nn::Params::new();
            let mut rng = <rand_pcg::Pcg64Mcg as rand::SeedableRng>::seed_from_u64(0);
            minnow_nn::LinearConfig::new(0, 1).init(&mut params, "fc", &mut rng)?;
            Ok(())
        }
        let e = build().unwrap_err();
        assert!(matches!(e, XtaskError::Nn(minnow_nn::NnError::Config { .. })), "{e:?}");
        assert_eq!(minnow_cli::chain(&e), "invalid configuration: fc: Linear needs inputs and outputs > 0, found 0x1");
    }
}
