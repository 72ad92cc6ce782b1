use crate::{Forward, Init, Module, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// y = x Wᵀ + b with W [outputs, inputs] (PyTorch's layout). In a config
/// file only `inputs` and `outputs` are required; the rest default as
/// [`LinearConfig::new`] sets them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearConfig {
    /// Input features.
    pub inputs: usize,
    /// Output features.
    pub outputs: usize,
    /// Whether to add a bias.
    #[serde(default = "crate::serde_default::yes")]
    pub bias: bool,
    /// The weight's init.
    #[serde(default = "crate::serde_default::pytorch_linear")]
    pub weight_init: Init,
    /// The bias's init.
    #[serde(default = "crate::serde_default::pytorch_linear")]
    pub bias_init: Init,
}

impl LinearConfig {
    /// PyTorch's defaults: bias on, U(-1/√in, 1/√in) for both.
    pub fn new(inputs: usize, outputs: usize) -> Self {
        Self { inputs, outputs, bias: true, weight_init: Init::PyTorchLinear, bias_init: Init::PyTorchLinear }
    }

    /// Adds `name.weight` (and `name.bias`) to the store.
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<Linear> {
        if self.inputs == 0 || self.outputs == 0 {
            return Err(config_error(
                name,
                format!("Linear needs inputs and outputs > 0, found {}x{}", self.inputs, self.outputs),
            ));
        }
        let (fan_in, fan_out) = (self.inputs, self.outputs);
        let w = params.add(&join(name, "weight"), &[self.outputs, self.inputs], |v| {
            self.weight_init.fill(v, fan_in, fan_out, rng)
        })?;
        let b = if self.bias {
            Some(params.add(&join(name, "bias"), &[self.outputs], |v| self.bias_init.fill(v, fan_in, fan_out, rng))?)
        } else {
            None
        };
        Ok(Linear { w, b, inputs: self.inputs, outputs: self.outputs })
    }
}

/// A built [`LinearConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linear {
    /// The weight [outputs, inputs].
    pub w: ParamId,
    /// The bias `[outputs]`, if any.
    pub b: Option<ParamId>,
    /// Input features.
    pub inputs: usize,
    /// Output features.
    pub outputs: usize,
}

impl Forward for Linear {
    type Output = Var;

    /// x [B, inputs] -> [B, outputs]
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let (w, b) = (g.param(self.w), self.b.map(|b| g.param(b)));
        g.linear(x, w, b)
    }
}

impl Linear {
    /// max(x Wᵀ + b, 0) as one fused op (one pass over the output, one
    /// recorded op), not `forward` then a ReLU.
    pub fn forward_relu(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let (w, b) = (g.param(self.w), self.b.map(|b| g.param(b)));
        g.linear_relu(x, w, b)
    }
}

impl Module for Linear {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        f(self.w);
        if let Some(b) = self.b {
            f(b);
        }
    }
}
