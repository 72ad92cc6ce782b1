//! Supervised classification of the digits: the `digits-mlp` task (and the
//! CNN and LSTM variants), trained with Adam on cross-entropy, evaluated by
//! test accuracy, checkpointed with everything needed to resume exactly.

use crate::{Cadence, Metrics, Observer, Result, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use minnow_dist::{Collective, DataParallel};
use minnow_kernels::row_max_argmax;
use minnow_nn::{
    Batches, Dataset, DigitsCnn, DigitsCnnConfig, DigitsLstm, DigitsLstmConfig, Graph, Mlp, MlpConfig, Params, Tape,
    Var,
};
use minnow_optim::{Adam, AdamConfig, Optimizer, Schedule, ScheduleConfig};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::rc::Rc;

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
        let bad = |field, expected, found| Err(TrainError::Config { field, expected, found });
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

enum Network {
    Mlp(Mlp),
    Cnn(DigitsCnn),
    Lstm(DigitsLstm),
}

impl Network {
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> minnow_autodiff::Result<Var> {
        match self {
            Network::Mlp(mlp) => mlp.forward(g, x),
            Network::Cnn(cnn) => cnn.forward(g, x),
            Network::Lstm(lstm) => lstm.forward(g, x),
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

/// A digits run in progress.
pub struct DigitsRun {
    config: DigitsConfig,
    network: Network,
    params: Params,
    adam: Adam,
    schedule: Schedule,
    tape: Tape,
    batches: Batches,
    train: Dataset,
    test: Dataset,
    step: u64,
    last_loss: f32,
    x: Vec<f32>,
    y: Vec<u32>,
    eval_max: Vec<f32>,
    eval_arg: Vec<u32>,
    /// This rank's part when the run is one of several (data-parallel).
    parallel: Option<DataParallel>,
    /// Whether the ranks agreed in the last step to stop after it.
    stop_agreed: bool,
}

impl std::fmt::Debug for DigitsRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DigitsRun").field("config", &self.config).field("step", &self.step).finish_non_exhaustive()
    }
}

const EVAL_BATCH: usize = 128;

impl DigitsRun {
    /// A fresh run: the network initialised from the seed.
    pub fn new(config: DigitsConfig, train: Dataset, test: Dataset) -> Result<Self> {
        config.validate()?;
        let what = format!("the digits {:?} network (hidden {})", config.model, config.hidden).to_lowercase();
        crate::memory::check_fits(&what, config.memory_bytes())?;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(config.seed);
        let mut params = Params::new();
        let network = match config.model {
            Model::Mlp => Network::Mlp(MlpConfig::new(&[64, config.hidden, config.hidden, 10]).init(
                &mut params,
                "mlp",
                &mut rng,
            )?),
            Model::Cnn => Network::Cnn(DigitsCnnConfig { hidden: config.hidden, ..DigitsCnnConfig::default() }.init(
                &mut params,
                "cnn",
                &mut rng,
            )?),
            Model::Lstm => {
                Network::Lstm(DigitsLstmConfig { hidden: config.hidden }.init(&mut params, "lstm", &mut rng)?)
            }
        };
        let schedule = match config.schedule {
            LrSchedule::Constant => ScheduleConfig::constant(config.lr),
            LrSchedule::Cosine => ScheduleConfig::cosine(config.lr, config.steps, 0.0),
        }
        .build()?;
        let adam =
            AdamConfig { lr: config.lr, weight_decay: config.weight_decay, ..AdamConfig::default() }.build(&params)?;
        let batches = Batches::new(train.len(), config.batch, config.seed.wrapping_add(1))?;
        let (x, y) = (vec![0.0; config.batch * 64], vec![0; config.batch]);
        Ok(Self {
            config,
            network,
            params,
            adam,
            schedule,
            tape: Tape::new(),
            batches,
            train,
            test,
            step: 0,
            last_loss: f32::NAN,
            x,
            y,
            eval_max: vec![0.0; EVAL_BATCH],
            eval_arg: vec![0; EVAL_BATCH],
            parallel: None,
            stop_agreed: false,
        })
    }

    /// Trains as one rank of `comm`, data-parallel: every rank draws the
    /// same batch, computes the gradient on its share of the rows, and one
    /// fixed-order sum of the gradients gives every rank the same step the
    /// whole batch would (up to the order of the additions).
    pub fn distributed(mut self, comm: Rc<dyn Collective>) -> Result<Self> {
        self.parallel = Some(DataParallel::new(comm, self.config.batch, self.params.grads().len())?);
        Ok(self)
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

    /// Training steps taken.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The network's parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// One training step on the next batch; returns the loss.
    pub fn train_step(&mut self) -> Result<f32> {
        self.batches.next_into(&self.train, &mut self.x, &mut self.y);
        let rows = self.parallel.as_ref().map_or(0..self.config.batch, DataParallel::rows);
        self.params.zero_grads();
        let loss = {
            let mut g = self.tape.graph(&mut self.params);
            let x = g.input(&[rows.len(), 64], &self.x[rows.start * 64..rows.end * 64])?;
            let logits = self.network.forward(&mut g, x)?;
            let loss = g.cross_entropy(logits, &self.y[rows], None)?;
            g.backward(loss)?;
            g.scalar(loss)
        };
        let loss = match &mut self.parallel {
            Some(parallel) => {
                let agreed = parallel.reduce(self.params.grads_mut(), loss, crate::stop_requested())?;
                self.stop_agreed = agreed.stop;
                agreed.loss
            }
            None => loss,
        };
        self.schedule.apply(&mut self.adam);
        self.adam.step(&mut self.params)?;
        self.step += 1;
        Ok(loss)
    }

    /// Share of `data` classified correctly.
    pub fn accuracy(&mut self, which: Split) -> Result<f32> {
        let data = match which {
            Split::Train => &self.train,
            Split::Test => &self.test,
        };
        let mut correct = 0usize;
        for start in (0..data.len()).step_by(EVAL_BATCH) {
            let rows = EVAL_BATCH.min(data.len() - start);
            let mut g = self.tape.inference(&self.params);
            let x = g.input(&[rows, 64], &data.features[start * 64..(start + rows) * 64])?;
            let logits = self.network.forward(&mut g, x)?;
            row_max_argmax(g.value(logits), 10, &mut self.eval_max[..rows], &mut self.eval_arg[..rows]);
            correct += self.eval_arg[..rows].iter().zip(&data.labels[start..]).filter(|(p, l)| p == l).count();
        }
        Ok(correct as f32 / data.len().max(1) as f32)
    }

    /// Trains to `config.steps`, evaluating and checkpointing on the way
    /// (and at the end) and telling `observer` everything.
    pub fn run(&mut self, checkpoint: Option<&Path>, observer: &mut dyn Observer) -> Result<Summary> {
        let cadence = Cadence {
            eval_every: self.config.eval_every,
            checkpoint_every: self.config.checkpoint_every,
            eval_at_end: true,
        };
        crate::drive(self, cadence, checkpoint, observer)?;
        self.summary()
    }

    /// The accuracies as the run stands.
    pub fn summary(&mut self) -> Result<Summary> {
        Ok(Summary {
            steps: self.step,
            train_accuracy: self.accuracy(Split::Train)?,
            test_accuracy: self.accuracy(Split::Test)?,
            final_loss: self.last_loss,
        })
    }
}

impl Run for DigitsRun {
    fn task(&self) -> &str {
        "digits"
    }

    fn identity(&self) -> String {
        self.config.identity()
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn total(&self) -> u64 {
        self.config.steps
    }

    fn stop_requested(&self) -> bool {
        match self.parallel {
            Some(_) => self.stop_agreed,
            None => crate::stop_requested(),
        }
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<()> {
        self.last_loss = DigitsRun::train_step(self)?;
        metrics.push(("loss", self.last_loss as f64));
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<()> {
        metrics.push(("test_accuracy", self.accuracy(Split::Test)? as f64));
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        checkpoint
            .params("model", &self.params)
            .optimizer("optimizer", &self.adam, &self.params)?
            .json("config", &self.config)
            .meta("batches", self.batches.to_json());
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
        checkpoint.restore_params("model", &mut self.params)?;
        checkpoint.restore_optimizer("optimizer", &mut self.adam, &self.params)?;
        let (rows, batch) = (self.train.len(), self.batches.batch_size());
        self.batches = Batches::from_json(checkpoint.raw().require_meta("batches")?, rows, batch)?;
        self.step = checkpoint.step()?;
        // One batch and one Adam step per training step: crafted counts
        // that disagree would continue a different run.
        let (served, adam) = (self.batches.served(), self.adam.step_count());
        if served != self.step || adam != self.step {
            let detail = format!(
                "step {}, but the batch order has served {served} batches and Adam has taken {adam} steps",
                self.step
            );
            return Err(TrainError::BadState { key: "step".into(), detail });
        }
        Ok(())
    }
}

/// Which part of the data to evaluate on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The rows trained on (4 of every 5).
    Train,
    /// The held-out rows (`i % 5 == 0`).
    Test,
}
