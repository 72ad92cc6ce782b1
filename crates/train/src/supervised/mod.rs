//! Supervised training: any model that implements `Forward` on any
//! dataset of classes ([`minnow_nn::Dataset`]) or real targets
//! ([`minnow_nn::RegressionDataset`]), through [`SupervisedConfig::build`];
//! the digits tasks are presets of it ([`DigitsRun`]).

mod digits;
mod objective;
mod run;

pub use digits::{DigitsConfig, DigitsNetwork, DigitsRun, LrSchedule, Model, Summary};
pub use objective::{Objective, Scratch};
pub use run::{Split, Supervised, SupervisedConfig};
