/// What a caller can get wrong: a configuration value out of range, a
/// parameter store of another layout, or checkpoint state that does not fit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptimError {
    /// A config value out of range ([`Check`](crate::Check)'s error).
    #[error(transparent)]
    Config(#[from] minnow_config::ConfigError),
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
