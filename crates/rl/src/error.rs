/// What a caller can get wrong: a configuration value out of range, a
/// transition or batch of the wrong shape, a minibatch larger than what is
/// stored, saved state that does not fit the receiver; and what can go
/// wrong while learning (a network or environment error, divergence).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RlError {
    #[error("{config}.{field}: expected {expected}, found {found}")]
    InvalidValue { config: &'static str, field: &'static str, expected: &'static str, found: f32 },
    #[error("{config}.{field}: expected {expected}, found {found}")]
    InvalidCount { config: &'static str, field: &'static str, expected: &'static str, found: u64 },
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
    #[error(transparent)]
    Optimizer(#[from] minnow_optim::OptimError),
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

/// A graph error is a network error.
impl From<minnow_autodiff::Error> for RlError {
    fn from(e: minnow_autodiff::Error) -> Self {
        RlError::Network(e.into())
    }
}

/// Range checks for one config struct, naming it in every error.
pub(crate) struct Check(pub &'static str);

impl Check {
    pub fn value(&self, field: &'static str, expected: &'static str, found: f32) -> RlError {
        RlError::InvalidValue { config: self.0, field, expected, found }
    }

    pub fn count(&self, field: &'static str, expected: &'static str, found: u64) -> RlError {
        RlError::InvalidCount { config: self.0, field, expected, found }
    }

    /// In [0, 1] (probabilities, discounts, exponents such as alpha).
    pub fn unit_closed(&self, field: &'static str, v: f32) -> Result<()> {
        if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(self.value(field, "a value in [0, 1]", v)) }
    }

    /// In (0, 1] (a per-step decay factor).
    pub fn fraction(&self, field: &'static str, v: f32) -> Result<()> {
        if v > 0.0 && v <= 1.0 { Ok(()) } else { Err(self.value(field, "a value in (0, 1]", v)) }
    }

    /// Finite and > 0 (eps).
    pub fn positive(&self, field: &'static str, v: f32) -> Result<()> {
        if v.is_finite() && v > 0.0 { Ok(()) } else { Err(self.value(field, "a finite value > 0", v)) }
    }

    /// `lo <= v <= hi` for a count.
    pub fn count_in(&self, field: &'static str, expected: &'static str, v: u64, lo: u64, hi: u64) -> Result<()> {
        if (lo..=hi).contains(&v) { Ok(()) } else { Err(self.count(field, expected, v)) }
    }
}
