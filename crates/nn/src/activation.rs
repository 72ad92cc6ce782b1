use minnow_autodiff::{Graph, Result, Var};

/// An activation applied between layers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    Identity,
    Relu,
    LeakyRelu(f32),
    Sigmoid,
    Tanh,
    /// Exact (erf-based) GELU, PyTorch's default.
    Gelu,
    Softmax,
    LogSoftmax,
}

impl Activation {
    pub fn apply(self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        match self {
            Activation::Identity => Ok(x),
            Activation::Relu => g.relu(x),
            Activation::LeakyRelu(slope) => g.leaky_relu(x, slope),
            Activation::Sigmoid => g.sigmoid(x),
            Activation::Tanh => g.tanh(x),
            Activation::Gelu => g.gelu(x),
            Activation::Softmax => g.softmax(x),
            Activation::LogSoftmax => g.log_softmax(x),
        }
    }
}
