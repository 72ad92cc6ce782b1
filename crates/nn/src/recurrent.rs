//! Recurrent layers with PyTorch's layout, gate order, names and
//! initialisation: an Elman RNN (tanh), LSTM and GRU. One layer,
//! batch-first input x [B, T, I], zero initial state, unrolled over the
//! sequence on the tape, so the reverse pass is backward through time.
//!
//! Parameters `weight_ih_l0` [G H, I], `weight_hh_l0` [G H, H],
//! `bias_ih_l0` [G H] and `bias_hh_l0` [G H], all U(-1/√H, 1/√H), with
//! G = 1 (RNN), 4 (LSTM: gates i, f, g, o) or 3 (GRU: r, z, n).
//!
//! Ops per sequence: one linear gives every step's input-side gates (x
//! viewed as [B T, I]); the first step needs only b_hh on the hidden side
//! (h = 0); each later step is a hidden-side linear and one fused cell op
//! (`Graph::lstm_cell` etc.), plus for the LSTM a slice taking h out of
//! the state [h | c].

use crate::{Forward, Init, Module, config_error, join};
use minnow_autodiff::{Error, Graph, ParamId, Params, RecurrentCell as Cell, Result, Var};
use minnow_tensor::{Shape, TensorError};
use rand::Rng;

/// Sequences up to this long stack their hidden states from a list on the
/// stack; longer ones allocate the list.
const STACKED_STEPS: usize = 64;

/// The hidden state [B, H] out of a cell's state (an LSTM's is [h | c]).
fn hidden_of(cell: Cell, g: &mut Graph<'_>, state: Var, hidden: usize) -> Result<Var> {
    match cell {
        Cell::Lstm => g.slice_cols(state, 0, hidden),
        _ => Ok(state),
    }
}

/// The parameters of one recurrent layer, in PyTorch's layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecurrentWeights {
    /// `weight_ih_l0` [G H, I]
    pub w_ih: ParamId,
    /// `weight_hh_l0` [G H, H]
    pub w_hh: ParamId,
    /// `bias_ih_l0` [G H]
    pub b_ih: ParamId,
    /// `bias_hh_l0` [G H]
    pub b_hh: ParamId,
    /// Input features per step.
    pub inputs: usize,
    /// Hidden size.
    pub hidden: usize,
}

impl RecurrentWeights {
    /// Adds the four parameters in PyTorch's order.
    fn init(
        params: &mut Params,
        name: &str,
        cell: Cell,
        inputs: usize,
        hidden: usize,
        rng: &mut impl Rng,
    ) -> crate::Result<Self> {
        if inputs == 0 || hidden == 0 {
            let layer = if name.is_empty() { cell.name() } else { name };
            return Err(config_error(
                layer,
                format!("{} needs inputs and hidden size > 0, found inputs {inputs} and hidden {hidden}", cell.name()),
            ));
        }
        let rows = cell.gates() * hidden;
        let mut add = |part: &str, dims: &[usize]| {
            // fan_in = H: PyTorch draws every recurrent parameter from U(-1/√H, 1/√H).
            params.add(&join(name, part), dims, |v| Init::PyTorchLinear.fill(v, hidden, rows, rng))
        };
        Ok(Self {
            w_ih: add("weight_ih_l0", &[rows, inputs])?,
            w_hh: add("weight_hh_l0", &[rows, hidden])?,
            b_ih: add("bias_ih_l0", &[rows])?,
            b_hh: add("bias_hh_l0", &[rows])?,
            inputs,
            hidden,
        })
    }

    /// Runs the cell over x [B, T, I]: the last hidden state [B, H], or
    /// with `sequence` all of them [B, T, H].
    fn unroll(&self, g: &mut Graph<'_>, x: Var, cell: Cell, sequence: bool) -> Result<Var> {
        let op = cell.name();
        let shape = g.shape(x);
        let &[batch, steps, width] = shape.dims() else {
            return Err(TensorError::Rank { op, expected: 3, found: shape }.into());
        };
        if width != self.inputs {
            let expected = Shape::new(&[batch, steps, self.inputs])?;
            return Err(TensorError::ShapeMismatch { op, lhs: expected, rhs: shape }.into());
        }
        if batch == 0 || steps == 0 {
            return Err(Error::EmptyInput { op, shape });
        }
        let (hidden, gates) = (self.hidden, cell.gates() * self.hidden);
        let (w_ih, w_hh) = (g.param(self.w_ih), g.param(self.w_hh));
        let (b_ih, b_hh) = (g.param(self.b_ih), g.param(self.b_hh));
        let rows = g.reshape(x, &[batch * steps, self.inputs])?;
        let gx = g.linear(rows, w_ih, Some(b_ih))?;
        let gx = g.reshape(gx, &[batch, steps, gates])?;

        let mut on_stack = [gx; STACKED_STEPS];
        let mut on_heap = Vec::new();
        let hs: &mut [Var] = if steps <= STACKED_STEPS {
            &mut on_stack[..steps]
        } else {
            on_heap.resize(steps, gx);
            &mut on_heap
        };
        let mut state = g.recurrent_cell(cell, gx, 0, b_hh, None)?;
        for t in 1..steps {
            let h = hidden_of(cell, g, state, hidden)?;
            hs[t - 1] = h;
            let gh = g.linear(h, w_hh, Some(b_hh))?;
            state = g.recurrent_cell(cell, gx, t, gh, Some(state))?;
        }
        let last = hidden_of(cell, g, state, hidden)?;
        if sequence {
            hs[steps - 1] = last;
            g.stack_steps(hs)
        } else {
            Ok(last)
        }
    }
}

impl Module for RecurrentWeights {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        f(self.w_ih);
        f(self.w_hh);
        f(self.b_ih);
        f(self.b_hh);
    }
}

macro_rules! recurrent_layer {
    ($(#[$doc:meta])* $config:ident, $layer:ident, $cell:expr) => {
        $(#[$doc])*
        /// Sizes of the layer (PyTorch init: U(-1/sqrt(hidden), 1/sqrt(hidden))).
        #[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $config {
            /// Input features per step.
            pub inputs: usize,
            /// Hidden size.
            pub hidden: usize,
        }

        impl $config {
            /// A layer of `inputs` features and `hidden` units.
            pub fn new(inputs: usize, hidden: usize) -> Self {
                Self { inputs, hidden }
            }

            /// Adds `name.weight_ih_l0`, `name.weight_hh_l0`,
            /// `name.bias_ih_l0` and `name.bias_hh_l0` to the store.
            pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<$layer> {
                let weights = RecurrentWeights::init(params, name, $cell, self.inputs, self.hidden, rng)?;
                Ok($layer { weights })
            }
        }

        $(#[$doc])*
        /// A built layer.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $layer {
            /// Its four parameters.
            pub weights: RecurrentWeights,
        }

        impl $layer {
            /// Hidden size.
            pub fn hidden(&self) -> usize {
                self.weights.hidden
            }

            /// x [B, T, inputs] -> every hidden state [B, T, hidden]
            /// (`forward` keeps only the last).
            pub fn forward_sequence(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
                self.weights.unroll(g, x, $cell, true)
            }
        }

        impl Forward for $layer {
            type Output = Var;

            /// x [B, T, inputs] -> the last hidden state [B, hidden].
            fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
                self.weights.unroll(g, x, $cell, false)
            }
        }

        impl Module for $layer {
            fn visit(&self, f: &mut dyn FnMut(ParamId)) {
                self.weights.visit(f);
            }
        }
    };
}

recurrent_layer!(
    /// An Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh).
    RnnConfig,
    Rnn,
    Cell::Rnn
);

recurrent_layer!(
    /// An LSTM: [i f g o] = [σ σ tanh σ](W_ih x + b_ih + W_hh h + b_hh),
    /// c' = f c + i g, h' = o tanh c'.
    LstmConfig,
    Lstm,
    Cell::Lstm
);

recurrent_layer!(
    /// A GRU: `[r z] = σ(W_i[rz] x + b_i[rz] + W_h[rz] h + b_h[rz])`,
    /// n = tanh(W_in x + b_in + r (W_hn h + b_hn)), h' = (1 - z) n + z h.
    GruConfig,
    Gru,
    Cell::Gru
);
