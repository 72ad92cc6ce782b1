//! Training runs on top of the engine: one driver for every task (a task
//! implements [`Run`]; [`drive`] does the cadence, the checkpoints and the
//! resume), one run-checkpoint layout ([`RunCheckpoint`]), and the metrics
//! sinks a front end listens to (JSON lines, TensorBoard event files), the
//! [`Task`] a command line trains by name, and [`supervised`] training of
//! any model on any dataset (the digits classifiers are presets of it).
//!
//! A config is JSON laid over the task's defaults; a key the config does
//! not have is refused by name, so a typo cannot fall back to a default:
//!
//! ```
//! use minnow_train::supervised::DigitsConfig;
//!
//! let config: DigitsConfig = serde_json::from_str(r#"{"hidden": 64, "steps": 500}"#).unwrap();
//! assert_eq!((config.hidden, config.steps), (64, 500));
//! assert_eq!(config.batch, DigitsConfig::default().batch); // the rest: defaults
//! config.validate()?;
//!
//! let typo = serde_json::from_str::<DigitsConfig>(r#"{"hiden": 64}"#).unwrap_err();
//! assert!(typo.to_string().starts_with("unknown field `hiden`"), "{typo}");
//!
//! let zero = DigitsConfig { batch: 0, ..DigitsConfig::default() };
//! assert!(zero.validate().unwrap_err().to_string().contains("batch"));
//! # Ok::<(), minnow_train::TrainError>(())
//! ```

#![warn(missing_docs)]

pub mod checkpoint;
pub mod config;
mod cpu;
mod error;
mod events;
pub mod memory;
pub mod progress;
mod run;
pub mod sinks;
#[doc(hidden)]
pub mod stdout;
mod stop;
pub mod supervised;
pub mod task;
#[cfg(feature = "testing")]
pub mod testing;

pub use checkpoint::{RunCheckpoint, RunCheckpointWriter, config_identity, describe_difference};
pub use cpu::cpu_seconds;
pub use error::{Result, TrainError};
pub use events::{Event, Observer};
pub use progress::{Progress, with_progress};
pub use run::{Cadence, Metrics, Run, Timing, drive, resume, save};
use stop::Driving;
pub use stop::{request_stop, request_stop_held, stop_requested};
pub use task::{
    AnyTask, Configured, Evaluate, Evaluation, Registry, Session, Sweep, Task, TaskError, View, resume_training,
    write_json,
};

/// Reads the UCI digits from `data/digits.csv.gz` (pixels scaled to [0, 1])
/// and splits it as documented: rows with `i % 5 == 0` are the test set.
pub fn load_digits(path: &std::path::Path) -> Result<(minnow_nn::Dataset, minnow_nn::Dataset)> {
    let file = std::fs::File::open(path).map_err(TrainError::io(path))?;
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    let mut data = minnow_nn::Dataset::from_csv(reader, 64, 10)?;
    data.scale(1.0 / 16.0);
    Ok(data.split(|i| i % 5 == 0))
}
