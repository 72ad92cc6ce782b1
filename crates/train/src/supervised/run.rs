//! Supervised training of any model on any dataset: batches drawn in a
//! seeded order, Adam on the objective's loss, the test metric on the
//! cadence, checkpoints that resume exactly, and data-parallel ranks.

use super::objective::{Objective, Scratch};
use crate::{Cadence, Metrics, Result, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use minnow_autodiff::Var;
use minnow_config::Found;
use minnow_dist::{Collective, DataParallel};
use minnow_nn::{Batches, Forward, Params, Tape};
use minnow_optim::{Adam, AdamConfig, Optimizer, Schedule, ScheduleConfig};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Rows per forward pass of an evaluation.
const EVAL_BATCH: usize = 128;

/// How a supervised run trains (the model and the data are the caller's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SupervisedConfig {
    /// Rows per training batch, at most the training set.
    pub batch: usize,
    /// Training steps (batches).
    pub steps: u64,
    /// Adam's settings (its `lr` is the schedule's at step 0).
    pub optimizer: AdamConfig,
    /// The learning rate over the steps.
    pub schedule: ScheduleConfig,
    /// Steps between evaluations on the test split.
    pub eval_every: u64,
    /// Steps between checkpoints.
    pub checkpoint_every: u64,
    /// Seeds the batch order, and each step's graph (`shuffle_seed + step`)
    /// for a model's dropout masks.
    pub shuffle_seed: u64,
}

impl Default for SupervisedConfig {
    fn default() -> Self {
        Self {
            batch: 32,
            steps: 1000,
            optimizer: AdamConfig::default(),
            schedule: ScheduleConfig::constant(AdamConfig::default().lr),
            eval_every: 100,
            checkpoint_every: 1000,
            shuffle_seed: 0,
        }
    }
}

impl SupervisedConfig {
    /// A run of `model` (its parameters in `params`) on `train`, evaluated
    /// on `test`.
    pub fn build<M, D>(&self, model: M, params: Params, train: D, test: D) -> Result<Supervised<M, D>>
    where
        M: Forward<Output = Var>,
        D: Objective,
    {
        let check = minnow_config::Check("SupervisedConfig");
        let bad = |field, expected, found: String| Err(check.error(field, expected, Found::Text(found)).into());
        if self.steps == 0 {
            return bad("steps", "> 0", "0".into());
        }
        if self.eval_every == 0 || self.checkpoint_every == 0 {
            return bad("eval_every/checkpoint_every", "> 0", "0".into());
        }
        if train.width() != test.width() || train.target_width() != test.target_width() {
            let found = format!(
                "train {}x{}, test {}x{}",
                train.width(),
                train.target_width(),
                test.width(),
                test.target_width()
            );
            return bad("test", "the training split's feature and target widths", found);
        }
        let schedule = self.schedule.build()?;
        let adam = self.optimizer.build(&params)?;
        let batches = Batches::new(train.rows(), self.batch, self.shuffle_seed)?;
        let (width, targets) = (train.width(), train.target_width());
        Ok(Supervised {
            model,
            params,
            adam,
            schedule,
            tape: Tape::new(),
            batches,
            x: vec![0.0; self.batch * width],
            y: vec![D::Target::default(); self.batch * targets],
            train,
            test,
            step: 0,
            last_loss: f32::NAN,
            scratch: Scratch::new(EVAL_BATCH),
            parallel: None,
            stop_agreed: false,
            identity: crate::config_identity(self, &["steps", "eval_every", "checkpoint_every"]),
            config_text: serde_json::to_string(self).expect("a config always serialises"),
            task: "supervised".into(),
            config: self.clone(),
        })
    }

    /// When to evaluate and checkpoint.
    pub fn cadence(&self) -> Cadence {
        Cadence { eval_every: self.eval_every, checkpoint_every: self.checkpoint_every, eval_at_end: true }
    }
}

/// Which part of the data to evaluate on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The rows trained on.
    Train,
    /// The held-out rows.
    Test,
}

/// A supervised run in progress.
pub struct Supervised<M, D: Objective> {
    model: M,
    params: Params,
    adam: Adam,
    schedule: Schedule,
    tape: Tape,
    batches: Batches,
    train: D,
    test: D,
    step: u64,
    last_loss: f32,
    x: Vec<f32>,
    y: Vec<D::Target>,
    scratch: Scratch,
    /// This rank's part when the run is one of several (data-parallel).
    parallel: Option<DataParallel>,
    /// Whether the ranks agreed in the last step to stop after it.
    stop_agreed: bool,
    config: SupervisedConfig,
    /// The run checkpoint's task, the config fields that shape the
    /// computation, and the config as saved.
    task: String,
    identity: String,
    config_text: String,
}

impl<M, D: Objective> std::fmt::Debug for Supervised<M, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervised").field("task", &self.task).field("step", &self.step).finish_non_exhaustive()
    }
}

impl<M: Forward<Output = Var>, D: Objective> Supervised<M, D> {
    /// Names the run for its checkpoint: a checkpoint resumes only into a
    /// run of the same `task` and `identity`; `config` is saved beside it.
    pub fn named(mut self, task: &str, identity: String, config: String) -> Self {
        (self.task, self.identity, self.config_text) = (task.to_string(), identity, config);
        self
    }

    /// Trains as one rank of `comm`, data-parallel: every rank draws the
    /// same batch, computes the gradient on its share of the rows, and one
    /// fixed-order sum of the gradients gives every rank the same step the
    /// whole batch would (up to the order of the additions).
    pub fn distributed(mut self, comm: Rc<dyn Collective>) -> Result<Self> {
        self.parallel = Some(DataParallel::new(comm, self.config.batch, self.params.grads().len())?);
        Ok(self)
    }

    /// Training steps taken.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The model's parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// How it trains.
    pub fn config(&self) -> &SupervisedConfig {
        &self.config
    }

    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The loss of the last training batch.
    pub fn last_loss(&self) -> f32 {
        self.last_loss
    }

    /// One training step on the next batch; returns the loss.
    pub fn train_step(&mut self) -> Result<f32> {
        self.batches.next_into(&self.train, &mut self.x, &mut self.y);
        let rows = self.parallel.as_ref().map_or(0..self.config.batch, DataParallel::rows);
        let (width, targets) = (self.train.width(), self.train.target_width());
        self.params.zero_grads();
        let loss = {
            let mut g = self.tape.graph(&mut self.params);
            // A function of the step, so a resumed run draws the same masks.
            g.set_seed(self.config.shuffle_seed.wrapping_add(self.step));
            let x = g.input(&[rows.len(), width], &self.x[rows.start * width..rows.end * width])?;
            let prediction = self.model.forward(&mut g, x)?;
            let loss = D::loss(&mut g, prediction, &self.y[rows.start * targets..rows.end * targets])?;
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
        self.last_loss = loss;
        Ok(loss)
    }

    /// The objective's metric on `which` (accuracy, or mean squared error).
    pub fn metric(&mut self, which: Split) -> Result<f32> {
        let data = match which {
            Split::Train => &self.train,
            Split::Test => &self.test,
        };
        let mut sum = 0.0;
        for start in (0..data.rows()).step_by(EVAL_BATCH) {
            let end = (start + EVAL_BATCH).min(data.rows());
            let mut g = self.tape.inference(&self.params);
            let x = g.input(&[end - start, data.width()], data.feature_rows(start..end))?;
            let prediction = self.model.forward(&mut g, x)?;
            sum += D::score(g.value(prediction), data.target_rows(start..end), &mut self.scratch);
        }
        Ok(D::metric(sum, data.rows(), data.target_width()))
    }
}

impl<M: Forward<Output = Var>, D: Objective> Run for Supervised<M, D> {
    fn task(&self) -> &str {
        &self.task
    }

    fn identity(&self) -> String {
        self.identity.clone()
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
        let loss = Supervised::train_step(self)?;
        metrics.push(("loss", loss as f64));
        Ok(())
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<()> {
        metrics.push((D::METRIC, self.metric(Split::Test)? as f64));
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        checkpoint
            .params("model", &self.params)
            .optimizer("optimizer", &self.adam, &self.params)?
            .meta("config", self.config_text.clone())
            .meta("batches", self.batches.to_json());
        Ok(())
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
        checkpoint.restore_params("model", &mut self.params)?;
        checkpoint.restore_optimizer("optimizer", &mut self.adam, &self.params)?;
        let (rows, batch) = (self.train.rows(), self.batches.batch_size());
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
