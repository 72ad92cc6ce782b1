//! A run for the stop tests: a seeded random walk whose sum shows whether
//! a resumed run ended where an uninterrupted one does.

use minnow_train::{Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub struct Walk {
    pub step: u64,
    total: u64,
    rng: Pcg64Mcg,
    pub sum: f64,
    /// The step during which the stop request arrives.
    pub stop_at: Option<u64>,
}

impl Walk {
    pub fn new(total: u64) -> Self {
        Self { step: 0, total, rng: Pcg64Mcg::seed_from_u64(11), sum: 0.0, stop_at: None }
    }
}

impl Run for Walk {
    fn task(&self) -> &str {
        "walk"
    }

    fn identity(&self) -> String {
        "walk".into()
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn total(&self) -> u64 {
        self.total
    }

    fn train_step(&mut self, _: &mut Metrics) -> Result<(), TrainError> {
        self.sum += self.rng.random::<f64>();
        self.step += 1;
        if self.stop_at == Some(self.step) {
            assert!(minnow_train::request_stop(), "a running driver takes the request");
        }
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        metrics.push(("sum", self.sum));
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        checkpoint.rng("walk", &self.rng).json("sum", &self.sum).counter("step", self.step);
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        (self.rng, self.sum, self.step) =
            (checkpoint.rng("walk")?, checkpoint.json("sum")?, checkpoint.counter("step")?);
        Ok(())
    }
}
