//! Layers for minnow, built from configs (`LinearConfig { .. }.init(..)`)
//! with PyTorch's layouts and defaults. A layer holds only [`ParamId`]s;
//! its values live in a [`Params`] store, so the same layer struct drives
//! an online and a target network (two stores of the same layout).
//! Every layer implements [`Forward`], its one forward (its ops on a step's
//! [`Graph`], on `&self`): the graph, not the layer, says whether the step
//! trains (dropout, batch statistics) and where random seeds and running
//! statistics live. [`Sequential`] runs layers in order, and an [`Mlp`]
//! either ends in its outputs or, as a trunk, in features for a head.
//!
//! [`Predict`] runs any of them on a batch of inputs in one call, and the
//! configs serialise: a checkpoint written with [`CheckpointWriter::model`]
//! rebuilds its model from the file alone ([`Checkpoint::rebuild`]).
//!
//! Losses are ops on the graph (`Graph::huber`, `Graph::cross_entropy`, ...).
//! Building layers, reading checkpoints and data return [`NnError`];
//! running them returns the graph's `minnow_autodiff::Error`, which
//! converts into it with `?`.
//!
//! ```
//! use minnow_nn::{Forward, MlpConfig, Params, Tape};
//! use rand::SeedableRng;
//! # fn main() -> minnow_nn::Result<()> {
//! let mut params = Params::new();
//! let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
//! let model = MlpConfig::new(&[2, 16, 1]).init(&mut params, "mlp", &mut rng)?;
//! let (x, y) = ([0.0, 1.0, 1.0, 0.0], [1.0, 1.0]);
//! let mut tape = Tape::new();
//! params.zero_grads();
//! let mut g = tape.graph(&mut params);
//! let input = g.input_ref(&[2, 2], &x)?;
//! let prediction = model.forward(&mut g, input)?;
//! let loss = g.mse(prediction, &y, None)?;
//! g.backward(loss)?;
//! assert!(params.grad(model.layers[0].w).iter().any(|&d| d != 0.0));
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod activation;
mod batch_norm;
mod checkpoint;
mod checksum;
mod conv;
mod csv;
mod data;
mod digits_cnn;
mod digits_lstm;
mod dropout;
mod embedding;
mod error;
mod forward;
mod heads;
mod init;
mod layer_norm;
mod linear;
mod mlp;
mod model_config;
mod policy_value;
mod policy_value_inference;
mod predict;
mod recurrent;
mod regression;
mod residual;
mod sequential;
#[cfg(feature = "testing")]
pub mod testing;

pub use activation::Activation;
pub use batch_norm::{BatchNorm1d, BatchNorm1dConfig};
pub use checkpoint::{CHECKSUM_KEY, Checkpoint, CheckpointWriter, replace_atomically, write_atomically};
pub use conv::{Conv2d, Conv2dConfig, MaxPool2d};
pub use data::{Batches, Dataset, Examples};
pub use digits_cnn::{DigitsCnn, DigitsCnnConfig};
pub use digits_lstm::{DIGIT_CLASSES, DIGIT_COLS, DIGIT_ROWS, DigitsLstm, DigitsLstmConfig};
pub use dropout::{Dropout, DropoutConfig};
pub use embedding::{Embedding, EmbeddingConfig};
pub use error::{NnError, Result};
pub use forward::Forward;
pub use heads::{DuelingHead, DuelingHeadConfig, PolicyValueHead, PolicyValueHeadConfig};
pub use init::Init;
pub use layer_norm::{LayerNorm, LayerNormConfig};
pub use linear::{Linear, LinearConfig};
pub use minnow_autodiff::{Graph, ParamId, Params, Tape, Var};
pub use mlp::{Mlp, MlpConfig};
pub use model_config::{MODEL_KEY, ModelConfig};
pub use policy_value::{PolicyValueNet, PolicyValueNetConfig};
pub use policy_value_inference::PolicyValueInference;
pub use predict::Predict;
pub use recurrent::{Gru, GruConfig, Lstm, LstmConfig, RecurrentWeights, Rnn, RnnConfig};
pub use regression::RegressionDataset;
pub use residual::{ResidualBlock, ResidualBlockConfig};
pub use sequential::{BoxedLayer, Sequential};

/// Something with parameters: lists them. (Training or evaluation
/// behaviour is the graph's: [`Graph::is_training`].)
pub trait Module {
    /// Calls `f` with every parameter, in a fixed order.
    fn visit(&self, f: &mut dyn FnMut(ParamId));

    /// Every parameter, in visiting order.
    fn param_ids(&self) -> Vec<ParamId> {
        let mut ids = Vec::new();
        self.visit(&mut |id| ids.push(id));
        ids
    }
}

/// What the layer configs' constructors set, for the fields a config file
/// may leave out.
pub(crate) mod serde_default {
    use crate::{Activation, Init};

    pub fn yes() -> bool {
        true
    }

    pub fn pytorch_linear() -> Init {
        Init::PyTorchLinear
    }

    pub fn relu() -> Activation {
        Activation::Relu
    }

    pub fn identity() -> Activation {
        Activation::Identity
    }

    /// LayerNorm's eps (PyTorch's).
    pub fn norm_eps() -> f32 {
        1e-5
    }

    pub fn stride() -> usize {
        1
    }
}

/// `name.part`, or `part` at the root.
pub(crate) fn join(prefix: &str, part: &str) -> String {
    if prefix.is_empty() { part.to_string() } else { format!("{prefix}.{part}") }
}

/// A config error naming the layer, the field and the value.
pub(crate) fn config_error(layer: &str, what: impl std::fmt::Display) -> NnError {
    NnError::Config { layer: layer.to_string(), detail: what.to_string() }
}
