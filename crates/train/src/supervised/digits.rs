//! Supervised classification of the digits: the `digits-mlp` task (and the
//! CNN and LSTM variants), presets of the supervised run: Adam on
//! cross-entropy, evaluated by test accuracy.

use super::run::{Split, Supervised, SupervisedConfig};
use crate::{Observer, Result};
use minnow_config::Found;
use minnow_nn::{
    Dataset, DigitsCnn, DigitsCnnConfig, DigitsLstm, DigitsLstmConfig, Forward, Graph, Mlp, MlpConfig, Module, ParamId,
    Params, Var,
};
use minnow_optim::{AdamConfig, ScheduleConfig};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Which network classifies the 8x8 images.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// 64 -> hidden -> hidden -> 10, ReLU.
    Mlp,
    /// Two 3x3 convolutions with ReLU and 2x2 max-pooling, then an MLP
    /// (`minnow_nn::DigitsCnn`).
    Cnn,
    /// An LSTM reading the image row by row, 8 steps of 8 pixels
    /// (`minnow_nn::DigitsLstm`).
    Lstm,
}

/// How the learning rate moves over the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `lr` throughout.
    Constant,
    /// Cosine decay from `lr` to 0 over `steps`.
    Cosine,
}

/// Every hyperparameter of a digits run. Unknown fields in a config file
/// are an error (a typo must not silently fall back to a default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DigitsConfig {
    /// The network (default the MLP).
    pub model: Model,
    /// Hidden width of the MLP.
    pub hidden: usize,
    /// Images per training batch, 1..=1437 (default 32).
    pub batch: usize,
    /// Training steps (batches).
    pub steps: u64,
    /// Adam learning rate.
    pub lr: f32,
    /// How `lr` moves over the run (default constant).
    pub schedule: LrSchedule,
    /// Adam weight decay (L2, PyTorch's coupled form).
    pub weight_decay: f32,
    /// Steps between test-set evaluations.
    pub eval_every: u64,
    /// Steps between checkpoints.
    pub checkpoint_every: u64,
    /// Seeds the initial weights and the batch order.
    pub seed: u64,
}

impl Default for DigitsConfig {
    fn default() -> Self {
        Self {
            model: Model::Mlp,
            hidden: 128,
            batch: 32,
            steps: 3000,
            lr: 1e-3,
            schedule: LrSchedule::Constant,
            weight_decay: 0.0,
            eval_every: 250,
            checkpoint_every: 1000,
            seed: 0,
        }
    }
}

impl DigitsConfig {
    /// The defaults of the `digits-cnn` task.
    pub fn cnn() -> Self {
        Self {
            model: Model::Cnn,
            hidden: 64,
            batch: 32,
            lr: 3e-3,
            schedule: LrSchedule::Cosine,
            steps: 1320,
            ..Self::default()
        }
    }

    /// The defaults of the `digits-lstm` task.
    pub fn lstm() -> Self {
        Self {
            model: Model::Lstm,
            hidden: 64,
            batch: 32,
            lr: 1e-2,
            schedule: LrSchedule::Cosine,
            steps: 880,
            ..Self::default()
        }
    }

    /// An error naming the first field out of its range.
    pub fn validate(&self) -> Result<()> {
        let check = minnow_config::Check("DigitsConfig");
        let bad = |field, expected, found: String| Err(check.error(field, expected, Found::Text(found)).into());
        if self.hidden == 0 {
            return bad("hidden", "a width > 0", self.hidden.to_string());
        }
        if self.batch == 0 || self.batch > 1437 {
            return bad("batch", "1..=1437 (the training set)", self.batch.to_string());
        }
        if self.steps == 0 {
            return bad("steps", "> 0", "0".into());
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return bad("lr", "a finite rate > 0", self.lr.to_string());
        }
        if !(self.weight_decay >= 0.0 && self.weight_decay.is_finite()) {
            return bad("weight_decay", "a finite value >= 0", self.weight_decay.to_string());
        }
        if self.eval_every == 0 || self.checkpoint_every == 0 {
            return bad("eval_every/checkpoint_every", "> 0", "0".into());
        }
        Ok(())
    }

    /// Refuses a network whose [`memory_bytes`](Self::memory_bytes)
    /// exceed what the machine has available.
    pub fn check_fits(&self) -> Result<()> {
        let what = format!("the digits {:?} network (hidden {})", self.model, self.hidden).to_lowercase();
        crate::memory::check_fits(&what, self.memory_bytes())
    }

    /// The memory a run of this config needs, roughly, in bytes: each
    /// parameter four times (value, gradient, Adam's two moments) and the
    /// activations of the larger of a training and an evaluation batch.
    pub fn memory_bytes(&self) -> f64 {
        let h = self.hidden as f64;
        let params = match self.model {
            Model::Mlp => 64.0 * h + h + h * h + h + 10.0 * h + 10.0,
            Model::Cnn => {
                let [c1, c2] = DigitsCnnConfig::default().channels.map(|c| c as f64);
                9.0 * c1 + c1 + 9.0 * c1 * c2 + c2 + 4.0 * c2 * h + h + 10.0 * h + 10.0
            }
            Model::Lstm => 4.0 * h * (8.0 + h) + 8.0 * h + 10.0 * h + 10.0,
        };
        // Per example and hidden unit: a few dozen floats on the tape (8
        // steps of an LSTM's gates), a generous bound for the MLP and CNN.
        let activations = self.batch.max(EVAL_BATCH) as f64 * h * 64.0;
        4.0 * (4.0 * params + activations)
    }

    /// The fields that shape the computation: a checkpoint resumes only
    /// under the same ones (steps and cadences may change).
    fn identity(&self) -> String {
        crate::config_identity(self, &["steps", "eval_every", "checkpoint_every"])
    }
}

/// The network of a digits run.
#[derive(Debug)]
pub enum DigitsNetwork {
    /// The MLP.
    Mlp(Mlp),
    /// The convolutional network.
    Cnn(DigitsCnn),
    /// The LSTM over the rows.
    Lstm(DigitsLstm),
}

impl Module for DigitsNetwork {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        match self {
            DigitsNetwork::Mlp(mlp) => mlp.visit(f),
            DigitsNetwork::Cnn(cnn) => cnn.visit(f),
            DigitsNetwork::Lstm(lstm) => lstm.visit(f),
        }
    }
}

impl Forward for DigitsNetwork {
    type Output = Var;

    fn forward(&self, g: &mut Graph<'_>, x: Var) -> minnow_autodiff::Result<Var> {
        match self {
            DigitsNetwork::Mlp(mlp) => Forward::forward(mlp, g, x),
            DigitsNetwork::Cnn(cnn) => Forward::forward(cnn, g, x),
            DigitsNetwork::Lstm(lstm) => Forward::forward(lstm, g, x),
        }
    }
}

/// Accuracies at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Training steps taken.
    pub steps: u64,
    /// Share of the training set classified right, in [0, 1].
    pub train_accuracy: f32,
    /// Share of the test set classified right, in [0, 1].
    pub test_accuracy: f32,
    /// Mean cross-entropy of the last training batch.
    pub final_loss: f32,
}

/// A digits run: the supervised run of one of the three networks.
pub type DigitsRun = Supervised<DigitsNetwork, Dataset>;

/// Rows per evaluation batch, in the memory estimate.
const EVAL_BATCH: usize = 128;

impl Supervised<DigitsNetwork, Dataset> {
    /// A fresh run: the network initialised from the seed.
    pub fn new(config: DigitsConfig, train: Dataset, test: Dataset) -> Result<Self> {
        config.validate()?;
        config.check_fits()?;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(config.seed);
        let mut params = Params::new();
        let network = match config.model {
            Model::Mlp => DigitsNetwork::Mlp(MlpConfig::new(&[64, config.hidden, config.hidden, 10]).init(
                &mut params,
                "mlp",
                &mut rng,
            )?),
            Model::Cnn => {
                DigitsNetwork::Cnn(DigitsCnnConfig { hidden: config.hidden, ..DigitsCnnConfig::default() }.init(
                    &mut params,
                    "cnn",
                    &mut rng,
                )?)
            }
            Model::Lstm => {
                DigitsNetwork::Lstm(DigitsLstmConfig { hidden: config.hidden }.init(&mut params, "lstm", &mut rng)?)
            }
        };
        let schedule = match config.schedule {
            LrSchedule::Constant => ScheduleConfig::constant(config.lr),
            LrSchedule::Cosine => ScheduleConfig::cosine(config.lr, config.steps, 0.0),
        };
        let supervised = SupervisedConfig {
            batch: config.batch,
            steps: config.steps,
            optimizer: AdamConfig { lr: config.lr, weight_decay: config.weight_decay, ..AdamConfig::default() },
            schedule,
            eval_every: config.eval_every,
            checkpoint_every: config.checkpoint_every,
            shuffle_seed: config.seed.wrapping_add(1),
        };
        let text = serde_json::to_string(&config).expect("a config always serialises");
        Ok(supervised.build(network, params, train, test)?.named("digits", config.identity(), text))
    }

    /// A run continued from a checkpoint written by `save`: parameters,
    /// Adam's moments and step, the batch order and position.
    pub fn resume(config: DigitsConfig, train: Dataset, test: Dataset, path: &Path) -> Result<Self> {
        let mut run = Self::new(config, train, test)?;
        crate::resume(&mut run, path)?;
        Ok(run)
    }

    /// Writes the run checkpoint to `path`.
    pub fn save(&self, path: &Path) -> Result<()> {
        crate::save(self, path)
    }

    /// Share of `which` classified correctly.
    pub fn accuracy(&mut self, which: Split) -> Result<f32> {
        self.metric(which)
    }

    /// Trains to `config.steps`, evaluating and checkpointing on the way
    /// (and at the end) and telling `observer` everything.
    pub fn run(&mut self, checkpoint: Option<&Path>, observer: &mut dyn Observer) -> Result<Summary> {
        let cadence = self.config().cadence();
        crate::drive(self, cadence, checkpoint, observer)?;
        self.summary()
    }

    /// The accuracies as the run stands.
    pub fn summary(&mut self) -> Result<Summary> {
        Ok(Summary {
            steps: self.step_count(),
            train_accuracy: self.accuracy(Split::Train)?,
            test_accuracy: self.accuracy(Split::Test)?,
            final_loss: self.last_loss(),
        })
    }
}
