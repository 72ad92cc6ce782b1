/// What can go wrong in a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// An error of the network crate (a dataset, a checkpoint file).
    #[error(transparent)]
    Nn(#[from] minnow_nn::NnError),
    /// An error of the autodiff tape.
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
    /// An optimiser or schedule config out of range.
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    /// An error of the process group (a distributed run).
    #[error(transparent)]
    Dist(#[from] minnow_dist::DistError),
    /// A config value out of range, from the workspace's one check
    /// (`minnow_config::Check`).
    #[error(transparent)]
    Config(#[from] minnow_config::ConfigError),
    /// A file that could not be read or written.
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    #[error("cannot resume: the checkpoint was trained with {saved}, this run is {current}")]
    /// A resume under a config whose identity differs from the
    /// checkpoint's.
    ConfigMismatch {
        /// The checkpoint's config identity (or the part that differs).
        saved: String,
        /// This run's (or the part that differs).
        current: String,
    },
    #[error("run checkpoint: metadata '{key}' is not a number")]
    /// A checkpoint counter that does not parse as a number.
    BadCounter {
        /// The metadata key.
        key: String,
    },
    #[error(
        "{}: expected a run checkpoint of format '{}', found {found}",
        path.display(),
        crate::checkpoint::FORMAT
    )]
    /// A file that is not a run checkpoint of this format (an older
    /// layout, say).
    CheckpointFormat {
        /// The file.
        path: std::path::PathBuf,
        /// The format tag it carries, or a note that it has none.
        found: String,
    },
    #[error("the checkpoint is of task '{saved}', expected '{current}'")]
    /// A checkpoint of another task.
    WrongTask {
        /// The checkpoint's task.
        saved: String,
        /// This run's task.
        current: String,
    },
    #[error("run checkpoint: metadata '{key}' is unreadable: {detail}")]
    /// A checkpoint entry that does not decode or disagrees with the rest.
    BadState {
        /// The metadata key.
        key: String,
        /// What is wrong with it.
        detail: String,
    },
    #[error("{}: record {record} of the event file is corrupt: {detail}", path.display())]
    /// A TensorBoard event file whose record fails its checksum or framing.
    CorruptEvents {
        /// The event file.
        path: std::path::PathBuf,
        /// The record's index, from 0.
        record: usize,
        /// What is wrong with it.
        detail: String,
    },
    /// A metrics file (the run's history) could not be written: the run
    /// stopped rather than train on without it. Its last checkpoint was
    /// written after the history up to it was synced, so a resume continues
    /// with no line lost or repeated. (`error` is in the message, not the
    /// error's `source`, so that the file and the system's words come
    /// first.)
    #[error(
        "{}: {error}: the run's history could not be written at step {step}, so the run stopped; its last \
         checkpoint matches the history written (continue with --resume once the file can be written)",
        path.display()
    )]
    History {
        /// The metrics file.
        path: std::path::PathBuf,
        /// The step of the last record the run had for it.
        step: u64,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The run directory was deleted or moved while the run was writing
    /// into it: the run stopped at its next write rather than write into
    /// files nobody will find (or make the directory again, empty).
    #[error("the run directory {} is gone (deleted or moved while the run was writing into it), so the run stopped", dir.display())]
    RunDirGone {
        /// Where the directory was.
        dir: std::path::PathBuf,
    },
    /// A resume whose step budget is at or below its checkpoint's step:
    /// nothing is left to train, refused before anything is written.
    #[error(
        "cannot resume: the run is already at step {step} (its checkpoint), and this run's budget is {total} \
         steps; ask for more than {step} to train on"
    )]
    NothingToResume {
        /// The checkpoint's step.
        step: u64,
        /// The resumed run's total.
        total: u64,
    },
    /// A training step's loss came out NaN or infinite (a learning rate
    /// too large, say): nothing was updated from it.
    #[error("training step {step}: the loss is not finite ({value}); lower the learning rate")]
    NonFiniteLoss {
        /// The step (counting from 1).
        step: u64,
        /// The loss it computed.
        value: f32,
    },
    /// A training step's gradient came out NaN or infinite while its loss
    /// was finite (a learning rate too large, say): the optimiser refused
    /// it and nothing was updated.
    #[error("training step {step}: {refused}; lower the learning rate")]
    NonFiniteGradient {
        /// The step (counting from 1).
        step: u64,
        /// The optimiser's refusal, naming the parameter. (Not the error's
        /// `source`: the message holds it already.)
        refused: minnow_optim::OptimError,
    },
    /// The run's state went non-finite: no checkpoint is written over the
    /// last good one. (`first_bad` names the tensor in the message; it is
    /// not the error's `source`, which a front end would print again.)
    #[error(
        "step {step}: the run's state is not finite, so no checkpoint was written over the last good one: {first_bad}"
    )]
    NonFinite {
        /// The step the checkpoint was for.
        step: u64,
        /// The first tensor found non-finite.
        first_bad: minnow_nn::NnError,
    },
    /// A config whose buffers would not fit in memory, refused before
    /// anything is allocated.
    #[error(
        "{what} needs about {needed} of memory, more than the {available} this machine has available \
         (MemAvailable in /proc/meminfo); choose smaller sizes"
    )]
    OutOfMemory {
        /// What was to be allocated.
        what: String,
        /// The estimate, human-readable (`3.2 GiB`).
        needed: String,
        /// The memory available, human-readable.
        available: String,
    },
    /// A stop was requested (Ctrl-C, SIGTERM): the run saved its checkpoint
    /// at `step` and stopped.
    #[error("stopped at step {step} as asked; the checkpoint is saved (continue with --resume)")]
    Stopped {
        /// The last step taken (and saved).
        step: u64,
    },
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

/// A result whose error is a [`TrainError`].
pub type Result<T, E = TrainError> = std::result::Result<T, E>;
