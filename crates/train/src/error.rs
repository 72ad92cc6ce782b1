/// What can go wrong in a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Nn(#[from] minnow_nn::NnError),
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    #[error("invalid config: {0}")]
    Config(String),
    #[error("{0}")]
    Io(String),
    #[error("cannot resume: {0}")]
    Resume(String),
}

pub type Result<T, E = TrainError> = std::result::Result<T, E>;
