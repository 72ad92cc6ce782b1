//! Training runs on top of the engine: configs with documented defaults,
//! the training loop, evaluation, checkpoints that resume exactly, and the
//! events a front end (the `cargo xtask train` progress bar, metrics file
//! and plot) listens to. The first tasks are supervised: the digits
//! classifiers.

mod error;
mod events;
pub mod supervised;

pub use error::{Result, TrainError};
pub use events::{Event, Observer};

/// Reads the UCI digits from `data/digits.csv.gz` (pixels scaled to [0, 1])
/// and splits it as documented: rows with `i % 5 == 0` are the test set.
pub fn load_digits(path: &std::path::Path) -> Result<(minnow_nn::Dataset, minnow_nn::Dataset)> {
    let file = std::fs::File::open(path).map_err(|source| TrainError::Io { path: path.to_path_buf(), source })?;
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    let mut data = minnow_nn::Dataset::from_csv(reader, 64, 10)?;
    data.scale(1.0 / 16.0);
    Ok(data.split(|i| i % 5 == 0))
}
