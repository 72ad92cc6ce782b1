//! The command line's error: the library crates' errors converted by `?`,
//! file failures with the path they concern, and (where a command builds
//! its message as text) a plain message.

use std::path::PathBuf;

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
    /// `bench` or `profile` in a debug build, whose timings mean nothing.
    #[error("{command}: refusing to time a debug build; run `cargo xtask {command}` (it builds with --release)")]
    DebugBuild { command: &'static str },
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
