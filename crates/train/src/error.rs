/// What can go wrong in a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Nn(#[from] minnow_nn::NnError),
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    #[error(transparent)]
    Dist(#[from] minnow_dist::DistError),
    #[error("invalid config: {field}: expected {expected}, found {found}")]
    Config { field: &'static str, expected: &'static str, found: String },
    #[error("{}", path.display())]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error("cannot resume: the checkpoint was trained with {saved}, this run is {current}")]
    ConfigMismatch { saved: String, current: String },
    #[error("run checkpoint: metadata '{key}' is not a number")]
    BadCounter { key: String },
    #[error(
        "{}: expected a run checkpoint of format '{}', found {found}",
        path.display(),
        crate::checkpoint::FORMAT
    )]
    CheckpointFormat { path: std::path::PathBuf, found: String },
    #[error("the checkpoint is of task '{saved}', expected '{current}'")]
    WrongTask { saved: String, current: String },
    #[error("run checkpoint: metadata '{key}' is unreadable: {detail}")]
    BadState { key: String, detail: String },
    #[error("{}: record {record} of the event file is corrupt: {detail}", path.display())]
    CorruptEvents { path: std::path::PathBuf, record: usize, detail: String },
    /// A training step's loss came out NaN or infinite (a learning rate
    /// too large, say): nothing was updated from it.
    #[error("training step {step}: the loss is not finite ({value}); lower the learning rate")]
    NonFiniteLoss { step: u64, value: f32 },
    /// The run's state went non-finite: no checkpoint is written over the
    /// last good one. (`first_bad` names the tensor in the message; it is
    /// not the error's `source`, which a front end would print again.)
    #[error(
        "step {step}: the run's state is not finite, so no checkpoint was written over the last good one: {first_bad}"
    )]
    NonFinite { step: u64, first_bad: minnow_nn::NnError },
    /// A config whose buffers would not fit in memory, refused before
    /// anything is allocated.
    #[error(
        "{what} needs about {needed} of memory, more than the {available} this machine has available \
         (MemAvailable in /proc/meminfo); choose smaller sizes"
    )]
    OutOfMemory { what: String, needed: String, available: String },
    /// A stop was requested (Ctrl-C, SIGTERM): the run saved its checkpoint
    /// at `step` and stopped.
    #[error("stopped at step {step} as asked; the checkpoint is saved (continue with --resume)")]
    Stopped { step: u64 },
    /// An error of the task being trained (an environment, a learner).
    #[error(transparent)]
    Task(Box<dyn std::error::Error + Send + Sync>),
}

impl TrainError {
    /// Wraps an error of the task being trained.
    pub fn task(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Task(Box::new(error))
    }

    /// Names `path` in an I/O error: `.map_err(TrainError::io(path))`.
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| Self::Io { path: path.to_path_buf(), source }
    }
}

pub type Result<T, E = TrainError> = std::result::Result<T, E>;
