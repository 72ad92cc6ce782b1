use crate::{Forward, Module, config_error, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};

/// LayerNorm over the last axis with learned gamma (ones) and beta (zeros).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerNormConfig {
    /// Features normalised together (the last dimension).
    pub size: usize,
    /// PyTorch's default, 1e-5.
    #[serde(default = "crate::serde_default::norm_eps")]
    pub eps: f32,
}

impl LayerNormConfig {
    /// PyTorch's defaults: eps 1e-5, gamma 1, beta 0.
    pub fn new(size: usize) -> Self {
        Self { size, eps: 1e-5 }
    }

    /// Parameters `name.weight` (gamma) and `name.bias` (beta).
    pub fn init(&self, params: &mut Params, name: &str) -> crate::Result<LayerNorm> {
        if self.size == 0 || self.eps.is_nan() || self.eps <= 0.0 {
            return Err(config_error(
                name,
                format!("LayerNorm needs size > 0 and eps > 0, found {} and {}", self.size, self.eps),
            ));
        }
        let gamma = params.add(&join(name, "weight"), &[self.size], |v| v.fill(1.0))?;
        let beta = params.add(&join(name, "bias"), &[self.size], |v| v.fill(0.0))?;
        Ok(LayerNorm { gamma, beta, eps: self.eps })
    }
}

/// A built [`LayerNormConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerNorm {
    /// Per-feature scale.
    pub gamma: ParamId,
    /// Per-feature shift.
    pub beta: ParamId,
    /// Added to the variance.
    pub eps: f32,
}

impl Forward for LayerNorm {
    type Output = Var;

    /// x [B, size] -> normalised per row, scaled and shifted.
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let (gamma, beta) = (g.param(self.gamma), g.param(self.beta));
        g.layer_norm(x, gamma, beta, self.eps)
    }
}

impl LayerNorm {
    /// max(LayerNorm(x), 0) as one fused op, not `forward` then a ReLU.
    pub fn forward_relu(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let (gamma, beta) = (g.param(self.gamma), g.param(self.beta));
        g.layer_norm_relu(x, gamma, beta, self.eps)
    }
}

impl Module for LayerNorm {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        f(self.gamma);
        f(self.beta);
    }
}
