use crate::{Activation, Forward, Init, LayerNorm, LayerNormConfig, Linear, LinearConfig, Module, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// A multilayer perceptron: Linear layers of `sizes[i] -> sizes[i + 1]`,
/// each hidden one followed by an optional LayerNorm and the activation.
/// Linear + ReLU and LayerNorm + ReLU run as fused ops.
///
/// A trunk ([`MlpConfig::trunk`]) ends before its output layer: every
/// layer is hidden, so the network's features feed a head of the caller's
/// (a Q head, a dueling head, a policy and a value).
///
/// In a config file only `sizes` is required; the rest default as
/// [`MlpConfig::new`] sets them: `{"sizes": [2, 16, 1]}`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MlpConfig {
    /// Widths from the input to the output: `[inputs, hidden.., outputs]`.
    pub sizes: Vec<usize>,
    /// After every hidden layer.
    #[serde(default = "crate::serde_default::relu")]
    pub activation: Activation,
    /// A LayerNorm between each hidden Linear and its activation.
    #[serde(default)]
    pub layer_norm: bool,
    /// After the output layer (ignored by a trunk, which has none).
    #[serde(default = "crate::serde_default::identity")]
    pub output_activation: Activation,
    /// Every Linear's weight init (biases keep PyTorch's).
    #[serde(default = "crate::serde_default::pytorch_linear")]
    pub weight_init: Init,
    /// Whether the last layer is hidden too (LayerNorm, activation), so
    /// the MLP ends in features for a head rather than in outputs.
    #[serde(default)]
    pub trunk: bool,
}

impl MlpConfig {
    /// ReLU between layers, no LayerNorm, a linear output, PyTorch init.
    pub fn new(sizes: &[usize]) -> Self {
        Self {
            sizes: sizes.to_vec(),
            activation: Activation::Relu,
            layer_norm: false,
            output_activation: Activation::Identity,
            weight_init: Init::PyTorchLinear,
            trunk: false,
        }
    }

    /// A trunk: as [`MlpConfig::new`], but every layer is hidden, ending in
    /// `sizes.last()` features after the activation. `&[inputs]` alone is
    /// an empty trunk (the identity).
    pub fn trunk(sizes: &[usize]) -> Self {
        Self { trunk: true, ..Self::new(sizes) }
    }

    /// Layers `name.0`, `name.1`, ... (and `name.norm0`, ...).
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<Mlp> {
        let least = if self.trunk { 1 } else { 2 };
        if self.sizes.len() < least || self.sizes.contains(&0) {
            return Err(config_error(
                name,
                format!("an MLP needs at least {least} sizes, all > 0, found {:?}", self.sizes),
            ));
        }
        let mut layers = Vec::new();
        let mut norms = Vec::new();
        for (i, pair) in self.sizes.windows(2).enumerate() {
            let config = LinearConfig { weight_init: self.weight_init, ..LinearConfig::new(pair[0], pair[1]) };
            layers.push(config.init(params, &join(name, &i.to_string()), rng)?);
            if self.layer_norm && (self.trunk || i + 2 < self.sizes.len()) {
                norms.push(LayerNormConfig::new(pair[1]).init(params, &join(name, &format!("norm{i}")))?);
            }
        }
        Ok(Mlp {
            layers,
            norms,
            activation: self.activation,
            output_activation: self.output_activation,
            trunk: self.trunk,
            inputs: self.sizes[0],
        })
    }
}

/// A built [`MlpConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    /// The Linear layers, input first.
    pub layers: Vec<Linear>,
    /// The LayerNorms of the first `norms.len()` layers.
    pub norms: Vec<LayerNorm>,
    /// After every hidden layer.
    pub activation: Activation,
    /// After the output layer, if there is one.
    pub output_activation: Activation,
    /// Whether the last layer is hidden too (see [`MlpConfig::trunk`]).
    pub trunk: bool,
    inputs: usize,
}

impl Mlp {
    /// Input features.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Output width: the last layer's (the inputs for an empty trunk).
    pub fn outputs(&self) -> usize {
        self.layers.last().map_or(self.inputs, |l| l.outputs)
    }
}

impl Forward for Mlp {
    type Output = Var;

    /// x [B, inputs] -> [B, outputs]
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let output = if self.trunk { usize::MAX } else { self.layers.len() - 1 };
        let mut h = x;
        for (i, layer) in self.layers.iter().enumerate() {
            if i == output {
                let y = layer.forward(g, h)?;
                return self.output_activation.forward(g, y);
            }
            h = match (self.norms.get(i), self.activation) {
                (None, Activation::Relu) => layer.forward_relu(g, h)?,
                (Some(norm), Activation::Relu) => {
                    let y = layer.forward(g, h)?;
                    norm.forward_relu(g, y)?
                }
                (norm, activation) => {
                    let mut y = layer.forward(g, h)?;
                    if let Some(norm) = norm {
                        y = norm.forward(g, y)?;
                    }
                    activation.forward(g, y)?
                }
            };
        }
        Ok(h)
    }
}

impl Module for Mlp {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.layers.iter().for_each(|l| l.visit(f));
        self.norms.iter().for_each(|n| n.visit(f));
    }
}
