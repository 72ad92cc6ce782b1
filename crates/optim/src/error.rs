/// What a caller can get wrong: a configuration value out of range, a
/// parameter store of another layout, or checkpoint state that does not fit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptimError {
    /// A config value out of range.
    #[error("{config}.{field}: expected {expected}, found {found}")]
    InvalidValue {
        /// The config struct.
        config: &'static str,
        /// The field.
        field: &'static str,
        /// What it should be.
        expected: &'static str,
        /// What it was.
        found: f32,
    },
    /// A config count out of range.
    #[error("{config}.{field}: expected {expected}, found {found}")]
    InvalidCount {
        /// The config struct.
        config: &'static str,
        /// The field.
        field: &'static str,
        /// What it should be.
        expected: &'static str,
        /// What it was.
        found: u64,
    },
    /// Nesterov momentum without momentum, or with dampening.
    #[error(
        "{config}.nesterov: expected momentum > 0 and dampening = 0, \
         found momentum {momentum} and dampening {dampening}"
    )]
    Nesterov {
        /// The config struct.
        config: &'static str,
        /// The momentum given.
        momentum: f32,
        /// The dampening given.
        dampening: f32,
    },
    /// A store that is not the one the optimiser was built for.
    #[error("parameter layout differs from the one the optimizer was built for: {detail}")]
    LayoutMismatch {
        /// The first difference.
        detail: String,
    },
    /// Saved state under a name this optimiser does not keep.
    #[error("{optimizer} has no state named '{name}'; expected one of: {expected}")]
    UnknownState {
        /// The optimiser.
        optimizer: &'static str,
        /// The name given.
        name: String,
        /// The names it keeps.
        expected: String,
    },
    /// Saved state of the wrong length.
    #[error("state '{name}': expected {expected} values, found {found}")]
    StateLength {
        /// The state's name.
        name: String,
        /// Its length here.
        expected: usize,
        /// The saved length.
        found: usize,
    },
    /// A gradient holding NaN or an infinity (training has diverged, or
    /// NaN came in with the data): the step or clipping was refused and
    /// nothing was updated.
    #[error(
        "parameter '{name}': the gradient is not finite ({value} at index {index}); \
         refusing to update, nothing was changed"
    )]
    NonFiniteGradient {
        /// The parameter's name in its store.
        name: String,
        /// Where the first non-finite value is, flat within the parameter.
        index: usize,
        /// The value.
        value: f32,
    },
    /// Saved state that a checkpoint lacks.
    #[error("state '{name}' is missing")]
    MissingState {
        /// The state's name.
        name: String,
    },
}

/// The optimisers' result.
pub type Result<T, E = OptimError> = std::result::Result<T, E>;

/// Range checks for one config struct, naming it in every error: the
/// workspace's one validation helper (the crates above use it too, and
/// wrap its errors). `Check("DqnConfig").unit_closed("gamma", 1.5)` is the
/// error "DqnConfig.gamma: expected a value in [0, 1], found 1.5"; nested
/// keys are named by their path (`"replay.capacity"`).
#[derive(Clone, Copy, Debug)]
pub struct Check(pub &'static str);

impl Check {
    /// The error for a value out of range.
    pub fn value(&self, field: &'static str, expected: &'static str, found: f32) -> OptimError {
        OptimError::InvalidValue { config: self.0, field, expected, found }
    }

    /// The error for a count out of range.
    pub fn count(&self, field: &'static str, expected: &'static str, found: u64) -> OptimError {
        OptimError::InvalidCount { config: self.0, field, expected, found }
    }

    /// `lo <= v <= hi` for a count, `expected` saying so in words.
    pub fn count_in(&self, field: &'static str, expected: &'static str, v: u64, lo: u64, hi: u64) -> Result<()> {
        if (lo..=hi).contains(&v) { Ok(()) } else { Err(self.count(field, expected, v)) }
    }

    /// Finite (dampening, gamma-like factors with no sign rule).
    pub fn finite(&self, field: &'static str, v: f32) -> Result<()> {
        if v.is_finite() { Ok(()) } else { Err(self.value(field, "a finite value", v)) }
    }

    /// Finite and >= 0 (learning rates, weight decay, momentum).
    pub fn non_negative(&self, field: &'static str, v: f32) -> Result<()> {
        if v.is_finite() && v >= 0.0 { Ok(()) } else { Err(self.value(field, "a finite value >= 0", v)) }
    }

    /// Finite and > 0 (eps).
    pub fn positive(&self, field: &'static str, v: f32) -> Result<()> {
        if v.is_finite() && v > 0.0 { Ok(()) } else { Err(self.value(field, "a finite value > 0", v)) }
    }

    /// In [0, 1) (Adam's betas).
    pub fn unit_open(&self, field: &'static str, v: f32) -> Result<()> {
        if (0.0..1.0).contains(&v) { Ok(()) } else { Err(self.value(field, "a value in [0, 1)", v)) }
    }

    /// In [0, 1] (RMSprop's alpha).
    pub fn unit_closed(&self, field: &'static str, v: f32) -> Result<()> {
        if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(self.value(field, "a value in [0, 1]", v)) }
    }

    /// In (0, 1] (a warm-up's start factor).
    pub fn fraction(&self, field: &'static str, v: f32) -> Result<()> {
        if v > 0.0 && v <= 1.0 { Ok(()) } else { Err(self.value(field, "a value in (0, 1]", v)) }
    }

    /// A step count >= 1.
    pub fn at_least_one(&self, field: &'static str, v: u64) -> Result<()> {
        self.count_in(field, "at least 1", v, 1, u64::MAX)
    }
}
