use crate::{Forward, Module};
use minnow_autodiff::{Graph, ParamId, Result, Var};

/// An activation applied between layers. In a config file: `"relu"`,
/// `{"leaky_relu": 0.01}`, `"log_softmax"`, ...
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// No activation.
    Identity,
    /// max(x, 0).
    Relu,
    /// x for x > 0, else slope * x.
    LeakyRelu(f32),
    /// 1 / (1 + e^-x).
    Sigmoid,
    /// tanh x.
    Tanh,
    /// Exact (erf-based) GELU, PyTorch's default.
    Gelu,
    /// Softmax over each row.
    Softmax,
    /// Log-softmax over each row.
    LogSoftmax,
}

/// An activation has no parameters.
impl Module for Activation {
    fn visit(&self, _f: &mut dyn FnMut(ParamId)) {}
}

impl Forward for Activation {
    type Output = Var;

    /// Records the activation of `x` on the graph.
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        match self {
            Activation::Identity => Ok(x),
            Activation::Relu => g.relu(x),
            Activation::LeakyRelu(slope) => g.leaky_relu(x, *slope),
            Activation::Sigmoid => g.sigmoid(x),
            Activation::Tanh => g.tanh(x),
            Activation::Gelu => g.gelu(x),
            Activation::Softmax => g.softmax(x),
            Activation::LogSoftmax => g.log_softmax(x),
        }
    }
}
