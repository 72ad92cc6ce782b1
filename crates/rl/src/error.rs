/// What a caller can get wrong: a configuration value out of range, a
/// transition or batch of the wrong shape, a minibatch larger than what is
/// stored, saved state that does not fit the receiver; and what can go
/// wrong while learning (a network or environment error, divergence).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RlError {
    /// A config value or count out of range, from the workspace's one
    /// range check (`minnow_optim::Check`): `OptimError::InvalidValue` or
    /// `OptimError::InvalidCount`, naming the config, the key, the
    /// expected and the found value.
    #[error(transparent)]
    Config(minnow_optim::OptimError),
    #[error("{op}: {what} has {found} values, expected {expected}")]
    Length { op: &'static str, what: &'static str, expected: usize, found: usize },
    #[error("{op}: {what} is {found}, expected a finite value")]
    NonFinite { op: &'static str, what: &'static str, found: f32 },
    #[error("{op}: action {found} is out of range, expected < {expected}")]
    Action { op: &'static str, expected: u32, found: u32 },
    #[error("sample: batch of {batch} requested from {len} stored transitions, expected at most {len}")]
    BatchTooLarge { batch: usize, len: usize },
    #[error("sample: batch of {batch} does not fit the Batch buffers, which hold at most {capacity}")]
    BatchCapacity { batch: usize, capacity: usize },
    #[error("sample: Batch has {what} {found}, the replay buffer has {expected}")]
    BatchShape { what: &'static str, expected: usize, found: usize },
    #[error("update_priorities: index {index} is out of range, expected < {len} (stored transitions)")]
    Index { index: u32, len: usize },
    #[error("restore '{name}': {detail}")]
    State { name: String, detail: String },
    /// The network failed: a layer config, a checkpoint, or an op on the
    /// graph (`NnError::Autodiff`).
    #[error(transparent)]
    Network(#[from] minnow_nn::NnError),
    /// The optimiser refused its state (a parameter layout, a checkpoint).
    #[error(transparent)]
    Optimizer(minnow_optim::OptimError),
    #[error(transparent)]
    Env(#[from] minnow_envs::EnvError),
    #[error("training diverged at update {update}: the loss is {loss}; lower the learning rate or clip gradients")]
    Diverged { update: u64, loss: f32 },
    #[error("{0}")]
    Resume(String),
    #[error("{puzzle}: the goal cannot be reached from the start")]
    Unreachable { puzzle: &'static str },
    #[error("{env}: DqnConfig.{option} needs DqnEnv::{needs}, which {env} does not provide")]
    NoModel { env: &'static str, option: &'static str, needs: &'static str },
}

pub type Result<T, E = RlError> = std::result::Result<T, E>;

/// A range error is a config error; any other is the optimiser's.
impl From<minnow_optim::OptimError> for RlError {
    fn from(e: minnow_optim::OptimError) -> Self {
        use minnow_optim::OptimError::{InvalidCount, InvalidValue};
        match e {
            InvalidValue { .. } | InvalidCount { .. } => RlError::Config(e),
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
