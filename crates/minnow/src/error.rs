//! One error for a program that uses several layers: every crate's error
//! converts into it with `?`, keeping the crate's own message.

/// Any error a minnow call returns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A config value out of range, named by its config and key.
    #[error(transparent)]
    Config(#[from] minnow_config::ConfigError),
    /// A shape that does not fit an op or a layer.
    #[error(transparent)]
    Tensor(#[from] minnow_tensor::TensorError),
    /// The tape: an op's inputs, the graph, the parameters.
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
    /// A layer, a loss, a dataset or a checkpoint.
    #[error(transparent)]
    Nn(#[from] minnow_nn::NnError),
    /// An optimiser, a schedule, or a config value out of range.
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    /// A training run: the driver, its checkpoints and metrics.
    #[error(transparent)]
    Train(#[from] minnow_train::TrainError),
    /// An environment or game given a bad action or position.
    #[cfg(feature = "rl")]
    #[error(transparent)]
    Env(#[from] minnow_envs::EnvError),
    /// Replay, DQN, search or self-play.
    #[cfg(feature = "rl")]
    #[error(transparent)]
    Rl(#[from] minnow_rl::RlError),
    /// A logic-gate cellular automaton or its hard circuit.
    #[cfg(feature = "logic")]
    #[error(transparent)]
    Logic(#[from] minnow_logic::LogicError),
    /// Reading or writing a file of the program's own.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A result whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
