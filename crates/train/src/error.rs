/// What can go wrong in a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Nn(#[from] minnow_nn::NnError),
    #[error(transparent)]
    Autodiff(#[from] minnow_autodiff::Error),
    #[error(transparent)]
    Optim(#[from] minnow_optim::OptimError),
    #[error("invalid config: {field}: expected {expected}, found {found}")]
    Config { field: &'static str, expected: &'static str, found: String },
    #[error("{}", path.display())]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error("cannot resume: the checkpoint was trained with {saved}, this run is {current}")]
    ConfigMismatch { saved: String, current: String },
    #[error("cannot resume: metadata '{key}' is not a number")]
    BadCounter { key: String },
}

pub type Result<T, E = TrainError> = std::result::Result<T, E>;
