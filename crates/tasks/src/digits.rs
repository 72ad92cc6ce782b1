//! `digits-mlp`, `digits-cnn`, `digits-lstm`: supervised classification of
//! the UCI digits (8x8 images), presets of the supervised run; data-parallel
//! as several ranks (every rank trains the same steps on its share of each
//! batch, rank 0 alone writes).

use crate::data::{DataNotFound, data_path};
use minnow_train::supervised::{DigitsConfig, DigitsRun};
use minnow_train::{Cadence, Session, Task, TaskError, View};
use std::path::PathBuf;
use std::time::Instant;

/// A digits classifier task: its name, its line and its preset.
#[derive(Clone, Copy, Debug)]
pub struct Digits {
    name: &'static str,
    about: &'static str,
    preset: fn() -> DigitsConfig,
}

impl Digits {
    /// The MLP, target >= 97% test accuracy.
    pub const MLP: Digits = Digits {
        name: "digits-mlp",
        about: "MLP on the UCI digits (8x8 images), target >= 97% test accuracy",
        preset: DigitsConfig::default,
    };
    /// The convolutional network, target >= 98%.
    pub const CNN: Digits = Digits {
        name: "digits-cnn",
        about: "Conv2d network on the UCI digits, target >= 98% test accuracy",
        preset: DigitsConfig::cnn,
    };
    /// The LSTM reading the rows, target >= 95%.
    pub const LSTM: Digits = Digits {
        name: "digits-lstm",
        about: "LSTM reading the digits row by row, target >= 95% test accuracy",
        preset: DigitsConfig::lstm,
    };
}

/// The UCI digits: `digits.csv.gz` in the data directory
/// ([`data_path`]).
pub fn digits_path() -> Result<PathBuf, DataNotFound> {
    data_path("digits.csv.gz", "the UCI digits")
}

impl Task for Digits {
    type Config = DigitsConfig;

    fn name(&self) -> &str {
        self.name
    }

    fn about(&self) -> &str {
        self.about
    }

    fn defaults(&self) -> DigitsConfig {
        (self.preset)()
    }

    fn set_seed(&self, config: &mut DigitsConfig, seed: u64) {
        config.seed = seed;
    }

    fn set_steps(&self, config: &mut DigitsConfig, steps: u64) {
        config.steps = steps;
    }

    fn check(&self, config: &DigitsConfig) -> Result<(), TaskError> {
        config.validate()?;
        // Refused before the run directory is made (the run checks again).
        Ok(config.check_fits()?)
    }

    fn distributed(&self) -> Option<&str> {
        Some("data-parallel")
    }

    fn train(&self, config: &DigitsConfig, session: &mut dyn Session) -> Result<(), TaskError> {
        let (train, test) = minnow_train::load_digits(&digits_path()?)?;
        let mut run = DigitsRun::new(config.clone(), train, test)?;
        session.resume(&mut run)?;
        let world = session.world().clone();
        if world.size() > 1 {
            run = run.distributed(world.clone())?;
        }
        let root = world.rank() == 0;
        if let Some(out) = session.out() {
            match world.size() {
                1 => minnow_train::outln!("training {} -> {}", self.name, out.display()),
                ranks => {
                    minnow_train::outln!("training {} on {ranks} ranks, data-parallel -> {}", self.name, out.display())
                }
            }
        }
        let started = Instant::now();
        let cadence =
            Cadence { eval_every: config.eval_every, checkpoint_every: config.checkpoint_every, eval_at_end: true };
        session.drive(&mut run, cadence, View { headline: "test_accuracy", show: &[], observer: &mut () })?;
        let summary = run.summary()?;
        if root {
            minnow_train::outln!(
                "{}: {} steps in {:.1} s; test accuracy {:.2}% (train {:.2}%), final loss {:.4}",
                self.name,
                summary.steps,
                started.elapsed().as_secs_f64(),
                100.0 * summary.test_accuracy,
                100.0 * summary.train_accuracy,
                summary.final_loss
            );
        }
        Ok(())
    }
}
