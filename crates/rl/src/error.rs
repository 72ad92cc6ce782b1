/// What a caller can get wrong: a configuration value out of range, a
/// transition or batch of the wrong shape, a minibatch larger than what is
/// stored, saved state that does not fit the receiver; and what can go
/// wrong while learning (a network or environment error, divergence).
#[derive(Debug, thiserror::Error)]
pub enum RlError {
    /// A config value or count out of range, from the workspace's one
    /// range check (`minnow_config::Check`), naming the config, the key,
    /// the expected and the found value.
    #[error(transparent)]
    Config(#[from] minnow_config::ConfigError),
    /// A slice of the wrong length.
    #[error("{op}: {what} has {found} values, expected {expected}")]
    Length {
        /// The function that checked it.
        op: &'static str,
        /// The slice checked.
        what: &'static str,
        /// The length it needs.
        expected: usize,
        /// The length it has.
        found: usize,
    },
    /// A NaN or infinite input.
    #[error("{op}: {what} is {found}, expected a finite value")]
    NonFinite {
        /// The function that checked it.
        op: &'static str,
        /// The input checked.
        what: &'static str,
        /// The value found.
        found: f32,
    },
    /// An action index out of range.
    #[error("{op}: action {found} is out of range, expected < {expected}")]
    Action {
        /// The function that checked it.
        op: &'static str,
        /// The number of actions (the bound).
        expected: u32,
        /// The action found.
        found: u32,
    },
    /// A minibatch larger than the stored transitions.
    #[error("sample: batch of {batch} requested from {len} stored transitions, expected at most {len}")]
    BatchTooLarge {
        /// Transitions requested.
        batch: usize,
        /// Transitions stored.
        len: usize,
    },
    /// A minibatch larger than the `Batch` it is sampled into.
    #[error("sample: batch of {batch} does not fit the Batch buffers, which hold at most {capacity}")]
    BatchCapacity {
        /// Transitions requested.
        batch: usize,
        /// Transitions the `Batch` holds.
        capacity: usize,
    },
    /// A `Batch` whose observation or mask width differs from the buffer's.
    #[error("sample: Batch has {what} {found}, the replay buffer has {expected}")]
    BatchShape {
        /// The width that differs (`obs_size` or `mask_size`).
        what: &'static str,
        /// The buffer's width.
        expected: usize,
        /// The `Batch`'s width.
        found: usize,
    },
    /// A replay slot out of range.
    #[error("update_priorities: index {index} is out of range, expected < {len} (stored transitions)")]
    Index {
        /// The slot given.
        index: u32,
        /// Transitions stored.
        len: usize,
    },
    /// Saved state that does not fit the receiver (an array or a key
    /// missing, of the wrong size or with values out of range).
    #[error("restore '{name}': {detail}")]
    State {
        /// The array or metadata key that does not fit.
        name: String,
        /// What does not fit.
        detail: String,
    },
    /// The network failed: a layer config, a checkpoint, or an op on the
    /// graph (`NnError::Autodiff`).
    #[error(transparent)]
    Network(#[from] minnow_nn::NnError),
    /// The optimiser refused its state (a parameter layout, a checkpoint)
    /// or a gradient (NaN or infinite, naming the parameter).
    #[error(transparent)]
    Optimizer(minnow_optim::OptimError),
    /// The environment refused an action or a state.
    #[error(transparent)]
    Env(#[from] minnow_envs::EnvError),
    /// The loss became NaN or infinite.
    #[error("training diverged at update {update}: the loss is {loss}; lower the learning rate or clip gradients")]
    Diverged {
        /// The update whose loss it was.
        update: u64,
        /// The loss found.
        loss: f32,
    },
    /// The run checkpoint refused (it cannot be read, is of another task
    /// or config, or holds state that does not fit).
    #[error(transparent)]
    Checkpoint(#[from] minnow_train::TrainError),
    /// A checkpoint whose contents do not fit this run (the message names
    /// the file and the key), or a save asked for off a checkpoint boundary.
    #[error("{0}")]
    Resume(String),
    /// A checkpoint file refused by the run-checkpoint reader (another
    /// task, no format tag, a bad counter).
    #[error("{}", path.display())]
    CheckpointFile {
        /// The file.
        path: std::path::PathBuf,
        /// Why it was refused.
        source: minnow_train::TrainError,
    },
    /// A checkpoint's saved config that does not parse or is out of range.
    #[error("{}: checkpoint metadata 'config'", path.display())]
    SavedConfig {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The process group of a distributed run failed, or a rank sent what
    /// does not decode.
    #[error(transparent)]
    Dist(#[from] minnow_dist::DistError),
    /// A distributed self-play run on too few ranks.
    #[error(
        "distributed self-play needs at least 2 ranks (rank 0 learns, every other rank plays), found {ranks}: \
         launch with `mpirun -np K` for K >= 2, or train in one process without --distributed"
    )]
    TooFewRanks {
        /// Ranks in the job.
        ranks: usize,
    },
    /// A puzzle whose goal no search can reach.
    #[error("{puzzle}: the goal cannot be reached from the start")]
    Unreachable {
        /// The puzzle's name.
        puzzle: &'static str,
    },
    /// A DQN option that needs an environment capability the environment lacks.
    #[error("{env}: DqnConfig.{option} needs DqnEnv::{needs}, which {env} does not provide")]
    NoModel {
        /// The environment's name.
        env: &'static str,
        /// The `DqnConfig` option that needs it.
        option: &'static str,
        /// The `DqnEnv` method it needs.
        needs: &'static str,
    },
}

/// A result whose error is [`RlError`].
pub type Result<T, E = RlError> = std::result::Result<T, E>;

/// A range error is a config error; any other is the optimiser's.
impl From<minnow_optim::OptimError> for RlError {
    fn from(e: minnow_optim::OptimError) -> Self {
        match e {
            minnow_optim::OptimError::Config(e) => RlError::Config(e),
            e => RlError::Optimizer(e),
        }
    }
}

/// A graph error is a network error.
impl From<minnow_autodiff::Error> for RlError {
    fn from(e: minnow_autodiff::Error) -> Self {
        RlError::Network(e.into())
    }
}
