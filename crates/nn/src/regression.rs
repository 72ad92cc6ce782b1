//! A regression dataset: rows of numeric features, each with a row of
//! real-valued targets, read from CSV like the classification [`Dataset`].

use crate::data::Examples;
use crate::{Dataset, NnError, Result};
use std::io::BufRead;

/// Rows of `width` features with `outputs` real targets each (both
/// row-major), for MSE- or Huber-style losses.
#[derive(Clone, Debug, PartialEq)]
pub struct RegressionDataset {
    /// `len() * width` features.
    pub features: Vec<f32>,
    /// `len() * outputs` targets.
    pub targets: Vec<f32>,
    /// Features per row.
    pub width: usize,
    /// Targets per row.
    pub outputs: usize,
}

impl RegressionDataset {
    /// Reads CSV rows of `width` features followed by `outputs` targets; no
    /// header, blank lines skipped. A bad value is named by line and column.
    pub fn from_csv(reader: impl BufRead, width: usize, outputs: usize) -> Result<Self> {
        if width == 0 || outputs == 0 {
            return Err(NnError::Data(format!("width and outputs must be > 0, found {width} and {outputs}")));
        }
        let (mut features, mut targets) = (Vec::new(), Vec::new());
        let what = format!("{width} features and {outputs} targets");
        crate::csv::for_each_row(reader, width + outputs, &what, |line, fields| {
            for (column, field) in fields.iter().enumerate() {
                let value = crate::csv::number(line, column, field)?;
                if column < width { features.push(value) } else { targets.push(value) }
            }
            Ok(())
        })?;
        Ok(Self { features, targets, width, outputs })
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.targets.len() / self.outputs
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The features of row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.features[i * self.width..(i + 1) * self.width]
    }

    /// The targets of row `i`.
    pub fn target(&self, i: usize) -> &[f32] {
        &self.targets[i * self.outputs..(i + 1) * self.outputs]
    }

    /// Splits rows into (train, test) by index, as [`Dataset::split`].
    pub fn split(&self, is_test: impl Fn(usize) -> bool) -> (Self, Self) {
        let empty = || Self { features: Vec::new(), targets: Vec::new(), width: self.width, outputs: self.outputs };
        let (mut train, mut test) = (empty(), empty());
        for i in 0..self.len() {
            let part = if is_test(i) { &mut test } else { &mut train };
            part.features.extend_from_slice(self.row(i));
            part.targets.extend_from_slice(self.target(i));
        }
        (train, test)
    }
}

impl Examples for RegressionDataset {
    type Target = f32;

    fn width(&self) -> usize {
        self.width
    }

    fn target_width(&self) -> usize {
        self.outputs
    }

    fn features(&self, i: usize) -> &[f32] {
        self.row(i)
    }

    fn targets(&self, i: usize) -> &[f32] {
        self.target(i)
    }
}

impl Examples for Dataset {
    type Target = u32;

    fn width(&self) -> usize {
        self.width
    }

    fn target_width(&self) -> usize {
        1
    }

    fn features(&self, i: usize) -> &[f32] {
        self.row(i)
    }

    fn targets(&self, i: usize) -> &[u32] {
        &self.labels[i..i + 1]
    }
}
