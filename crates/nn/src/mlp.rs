use crate::{Activation, Init, LayerNorm, LayerNormConfig, Linear, LinearConfig, Module, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// A multilayer perceptron: Linear layers of `sizes[i] -> sizes[i + 1]`,
/// each hidden one followed by an optional LayerNorm and the activation.
/// Linear + ReLU and LayerNorm + ReLU run as fused ops.
#[derive(Clone, Debug, PartialEq)]
pub struct MlpConfig {
    pub sizes: Vec<usize>,
    pub activation: Activation,
    pub layer_norm: bool,
    pub output_activation: Activation,
    pub weight_init: Init,
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
        }
    }

    /// Layers `name.0`, `name.1`, ... (and `name.norm0`, ...).
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> Result<Mlp> {
        if self.sizes.len() < 2 {
            return Err(config_error(name, format!("an MLP needs at least 2 sizes, found {:?}", self.sizes)));
        }
        let mut layers = Vec::new();
        let mut norms = Vec::new();
        for (i, pair) in self.sizes.windows(2).enumerate() {
            let config = LinearConfig { weight_init: self.weight_init, ..LinearConfig::new(pair[0], pair[1]) };
            layers.push(config.init(params, &join(name, &i.to_string()), rng)?);
            if self.layer_norm && i + 2 < self.sizes.len() {
                norms.push(LayerNormConfig::new(pair[1]).init(params, &join(name, &format!("norm{i}")))?);
            }
        }
        Ok(Mlp { layers, norms, activation: self.activation, output_activation: self.output_activation })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    pub layers: Vec<Linear>,
    pub norms: Vec<LayerNorm>,
    pub activation: Activation,
    pub output_activation: Activation,
}

impl Mlp {
    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    pub fn outputs(&self) -> usize {
        self.layers[self.layers.len() - 1].outputs
    }

    pub fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let last = self.layers.len() - 1;
        let mut h = x;
        for (i, layer) in self.layers.iter().enumerate() {
            if i == last {
                let y = layer.forward(g, h)?;
                return self.output_activation.apply(g, y);
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
                    activation.apply(g, y)?
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
