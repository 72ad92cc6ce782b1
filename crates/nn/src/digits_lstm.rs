//! A digit classifier that reads an 8x8 image row by row: an LSTM over 8
//! steps of 8 pixels, then a linear layer from its last hidden state to
//! 10 logits. The input is the flat image [B, 64] (as the digits dataset
//! stores it), viewed as the sequence [B, 8, 8] without a copy.

use crate::{Forward, Linear, LinearConfig, Lstm, LstmConfig, Module, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use minnow_tensor::{Shape, TensorError};
use rand::Rng;

/// Rows of the image: the time steps.
pub const DIGIT_ROWS: usize = 8;
/// Pixels per row: the features of a step.
pub const DIGIT_COLS: usize = 8;
/// Classes of the digits data set.
pub const DIGIT_CLASSES: usize = 10;

/// The digits LSTM: reads an image row by row, a Linear maps the last hidden state to 10 logits.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DigitsLstmConfig {
    /// Hidden size of the LSTM.
    pub hidden: usize,
}

impl Default for DigitsLstmConfig {
    fn default() -> Self {
        Self { hidden: 64 }
    }
}

impl DigitsLstmConfig {
    /// Adds `name.lstm.*` and `name.head.*` to the store.
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<DigitsLstm> {
        let lstm = LstmConfig::new(DIGIT_COLS, self.hidden).init(params, &join(name, "lstm"), rng)?;
        let head = LinearConfig::new(self.hidden, DIGIT_CLASSES).init(params, &join(name, "head"), rng)?;
        Ok(DigitsLstm { lstm, head })
    }
}

/// A built [`DigitsLstmConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DigitsLstm {
    /// The LSTM over the rows.
    pub lstm: Lstm,
    /// The last hidden state to the logits.
    pub head: Linear,
}

impl Forward for DigitsLstm {
    type Output = Var;

    /// Images x [B, 64] -> logits [B, 10].
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        const OP: &str = "DigitsLstm";
        let shape = g.shape(x);
        let (batch, pixels) = shape.as_matrix(OP)?;
        if pixels != DIGIT_ROWS * DIGIT_COLS {
            let expected = Shape::matrix(batch, DIGIT_ROWS * DIGIT_COLS);
            return Err(TensorError::ShapeMismatch { op: OP, lhs: expected, rhs: shape }.into());
        }
        let rows = g.reshape(x, &[batch, DIGIT_ROWS, DIGIT_COLS])?;
        let h = self.lstm.forward(g, rows)?;
        self.head.forward(g, h)
    }
}

impl Module for DigitsLstm {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.lstm.visit(f);
        self.head.visit(f);
    }
}
