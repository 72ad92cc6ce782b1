//! What a supervised run fits: a class per row (cross-entropy, scored by
//! accuracy) or real values per row (mean squared error).

use minnow_autodiff::{Graph, Result, Var};
use minnow_kernels::row_max_argmax;
use minnow_nn::{Dataset, Examples, RegressionDataset};
use std::ops::Range;

/// A dataset whose targets say how to train and score a model on it.
pub trait Objective: Examples<Target: Default> {
    /// The evaluation's metric in the metrics (`test_accuracy`); the
    /// headline of the learning curve.
    const METRIC: &'static str;

    /// The features of `rows`, row-major.
    fn feature_rows(&self, rows: Range<usize>) -> &[f32];

    /// The targets of `rows`, row-major.
    fn target_rows(&self, rows: Range<usize>) -> &[Self::Target];

    /// Rows.
    fn rows(&self) -> usize;

    /// The training loss of `prediction` against `targets`.
    fn loss(g: &mut Graph<'_>, prediction: Var, targets: &[Self::Target]) -> Result<Var>;

    /// The metric's sum over a block of rows (`prediction` row-major,
    /// `targets` theirs), using `scratch` (one slot per row).
    fn score(prediction: &[f32], targets: &[Self::Target], scratch: &mut Scratch) -> f64;

    /// The metric of a whole split from the sum of its blocks' scores.
    fn metric(sum: f64, rows: usize, target_width: usize) -> f32;
}

/// Room for scoring a block of rows.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    max: Vec<f32>,
    argmax: Vec<u32>,
}

impl Scratch {
    /// Room for blocks of up to `rows` rows.
    pub fn new(rows: usize) -> Self {
        Self { max: vec![0.0; rows], argmax: vec![0; rows] }
    }
}

impl Objective for Dataset {
    const METRIC: &'static str = "test_accuracy";

    fn feature_rows(&self, rows: Range<usize>) -> &[f32] {
        &self.features[rows.start * self.width..rows.end * self.width]
    }

    fn target_rows(&self, rows: Range<usize>) -> &[u32] {
        &self.labels[rows]
    }

    fn rows(&self) -> usize {
        self.len()
    }

    fn loss(g: &mut Graph<'_>, logits: Var, classes: &[u32]) -> Result<Var> {
        g.cross_entropy(logits, classes, None)
    }

    /// Rows whose largest logit is at their class.
    fn score(logits: &[f32], classes: &[u32], scratch: &mut Scratch) -> f64 {
        let rows = classes.len();
        let (max, argmax) = (&mut scratch.max[..rows], &mut scratch.argmax[..rows]);
        row_max_argmax(logits, logits.len() / rows.max(1), max, argmax);
        argmax.iter().zip(classes).filter(|(p, c)| p == c).count() as f64
    }

    /// The share classified right.
    fn metric(correct: f64, rows: usize, _: usize) -> f32 {
        correct as usize as f32 / rows.max(1) as f32
    }
}

impl Objective for RegressionDataset {
    const METRIC: &'static str = "test_mse";

    fn feature_rows(&self, rows: Range<usize>) -> &[f32] {
        &self.features[rows.start * self.width..rows.end * self.width]
    }

    fn target_rows(&self, rows: Range<usize>) -> &[f32] {
        &self.targets[rows.start * self.outputs..rows.end * self.outputs]
    }

    fn rows(&self) -> usize {
        self.len()
    }

    fn loss(g: &mut Graph<'_>, prediction: Var, targets: &[f32]) -> Result<Var> {
        g.mse(prediction, targets, None)
    }

    /// The squared errors.
    fn score(prediction: &[f32], targets: &[f32], _: &mut Scratch) -> f64 {
        prediction.iter().zip(targets).map(|(p, t)| (*p as f64 - *t as f64).powi(2)).sum()
    }

    /// The mean squared error per target value.
    fn metric(squared: f64, rows: usize, outputs: usize) -> f32 {
        (squared / (rows * outputs).max(1) as f64) as f32
    }
}
