//! Datasets of numeric features with class labels: a CSV reader that
//! names the line and column of any bad value, a deterministic train/test
//! split, and a seeded batch iterator that writes fixed-size batches into
//! the caller's preallocated buffers and can be saved and resumed exactly.

use crate::{NnError, Result};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use std::io::BufRead;

/// Rows of `width` features (row-major) with a class label each.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// `len() * width` features, row-major.
    pub features: Vec<f32>,
    /// A class per row.
    pub labels: Vec<u32>,
    /// Features per row.
    pub width: usize,
    /// Classes (labels are below it).
    pub classes: usize,
}

fn data_error(detail: String) -> NnError {
    NnError::Data(detail)
}

fn bad_value(line: usize, column: usize, detail: String) -> NnError {
    NnError::BadValue { line, column, detail }
}

impl Dataset {
    /// Reads CSV rows of `width` numbers followed by an integer label in
    /// `0..classes`; no header. Blank lines are skipped.
    pub fn from_csv(reader: impl BufRead, width: usize, classes: usize) -> Result<Self> {
        if width == 0 || classes == 0 {
            return Err(data_error(format!("width and classes must be > 0, found {width} and {classes}")));
        }
        let (mut features, mut labels) = (Vec::new(), Vec::new());
        crate::csv::for_each_row(reader, width + 1, &format!("{width} features and a label"), |line, fields| {
            for (column, field) in fields[..width].iter().enumerate() {
                features.push(crate::csv::number(line, column, field)?);
            }
            let label_field = fields[width];
            let label: u32 = label_field
                .parse()
                .map_err(|_| bad_value(line, width + 1, format!("label '{label_field}' is not a class index")))?;
            if label as usize >= classes {
                return Err(data_error(format!("line {line}: label {label} is out of range for {classes} classes")));
            }
            labels.push(label);
            Ok(())
        })?;
        Ok(Self { features, labels, width, classes })
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The features of row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.features[i * self.width..(i + 1) * self.width]
    }

    /// Multiplies every feature by `factor` (e.g. 1/16 for 4-bit pixels).
    pub fn scale(&mut self, factor: f32) {
        self.features.iter_mut().for_each(|v| *v *= factor);
    }

    /// Splits rows into (train, test) by index: `is_test(i)` picks the test
    /// rows, e.g. `|i| i % 5 == 0`.
    pub fn split(&self, is_test: impl Fn(usize) -> bool) -> (Dataset, Dataset) {
        let empty = || Dataset { features: Vec::new(), labels: Vec::new(), width: self.width, classes: self.classes };
        let (mut train, mut test) = (empty(), empty());
        for i in 0..self.len() {
            let part = if is_test(i) { &mut test } else { &mut train };
            part.features.extend_from_slice(self.row(i));
            part.labels.push(self.labels[i]);
        }
        (train, test)
    }
}

/// Rows of features with their targets, as [`Batches`] reads them: a
/// class label per row ([`Dataset`]) or a row of real values
/// ([`RegressionDataset`](crate::RegressionDataset)).
pub trait Examples {
    /// A label (`u32`) or a real target (`f32`).
    type Target: Copy;
    /// Features per row.
    fn width(&self) -> usize;
    /// Targets per row.
    fn target_width(&self) -> usize;
    /// The features of row `i`.
    fn features(&self, i: usize) -> &[f32];
    /// The targets of row `i`.
    fn targets(&self, i: usize) -> &[Self::Target];
}

/// Shuffled fixed-size batches over a dataset, epoch after epoch. The last
/// partial batch of an epoch is dropped, so every batch has the same shape;
/// the order is reshuffled (seeded) at each epoch. Serialisable for resume.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Batches {
    order: Vec<u32>,
    position: usize,
    batch: usize,
    epoch: u64,
    rng: Pcg64Mcg,
}

impl Batches {
    /// Batches of `batch` rows out of `len`, shuffled by `seed`.
    pub fn new(len: usize, batch: usize, seed: u64) -> Result<Self> {
        if batch == 0 || batch > len {
            return Err(data_error(format!("batch size must be in 1..={len}, found {batch}")));
        }
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut order: Vec<u32> = (0..len as u32).collect();
        order.shuffle(&mut rng);
        Ok(Self { order, position: 0, batch, epoch: 0, rng })
    }

    /// Completed epochs.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Rows per batch.
    pub fn batch_size(&self) -> usize {
        self.batch
    }

    /// Batches handed out since the start (each epoch hands out
    /// [`per_epoch`](Self::per_epoch)): a resumed run checks its step
    /// count against it.
    pub fn served(&self) -> u64 {
        self.epoch * self.per_epoch() as u64 + (self.position / self.batch) as u64
    }

    /// Batches per epoch.
    pub fn per_epoch(&self) -> usize {
        self.order.len() / self.batch
    }

    /// Writes the next batch's features into `x` (batch x width) and
    /// targets into `y` (batch x target width: one label per row for a
    /// [`Dataset`]). Allocates nothing.
    pub fn next_into<D: Examples>(&mut self, data: &D, x: &mut [f32], y: &mut [D::Target]) {
        let (width, outputs) = (data.width(), data.target_width());
        assert!(
            x.len() == self.batch * width && y.len() == self.batch * outputs,
            "Batches::next_into: buffers of {} and {} for batch {} x width {width} and {outputs} targets",
            x.len(),
            y.len(),
            self.batch,
        );
        if self.position + self.batch > self.order.len() {
            self.order.shuffle(&mut self.rng);
            self.position = 0;
            self.epoch += 1;
        }
        let picks = &self.order[self.position..self.position + self.batch];
        for ((x_row, y_row), &i) in x.chunks_exact_mut(width).zip(y.chunks_exact_mut(outputs)).zip(picks) {
            x_row.copy_from_slice(data.features(i as usize));
            y_row.copy_from_slice(data.targets(i as usize));
        }
        self.position += self.batch;
    }

    /// The iterator's whole state, as JSON for checkpoint metadata.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain data always serialises")
    }

    /// Reads the state [`to_json`](Self::to_json) wrote for batches of
    /// `batch` rows out of `len`; saved state that does not fit them (an
    /// order that is not a shuffle of `0..len`, another batch size, a
    /// position past the end) is an error, never a later panic.
    pub fn from_json(text: &str, len: usize, batch: usize) -> Result<Self> {
        let bad = |detail: String| NnError::BadState { what: "batch iterator", detail };
        let saved: Self = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if saved.batch != batch {
            return Err(bad(format!("batch size {}, expected {batch}", saved.batch)));
        }
        if saved.order.len() != len {
            return Err(bad(format!("an order of {} rows, expected {len}", saved.order.len())));
        }
        let mut seen = vec![false; len];
        for &i in &saved.order {
            match seen.get_mut(i as usize) {
                Some(s) if !*s => *s = true,
                _ => return Err(bad(format!("row {i} in the order: not a shuffle of 0..{len}"))),
            }
        }
        if saved.position > len {
            return Err(bad(format!("position {} past the {len} rows", saved.position)));
        }
        Ok(saved)
    }
}
