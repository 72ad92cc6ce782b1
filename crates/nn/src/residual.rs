use crate::{Forward, LayerNorm, LayerNormConfig, Linear, LinearConfig, Module, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// A fully connected residual block (the AlphaZero-style tower's):
/// y = LN(Linear(ReLU(LN(Linear(x))))), out = ReLU(x + y).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResidualBlockConfig {
    /// Features in and out.
    pub width: usize,
}

impl ResidualBlockConfig {
    /// Parameters `name.fc1`, `name.norm1`, `name.fc2`, `name.norm2`.
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<ResidualBlock> {
        let linear = LinearConfig::new(self.width, self.width);
        let norm = LayerNormConfig::new(self.width);
        Ok(ResidualBlock {
            fc1: linear.init(params, &join(name, "fc1"), rng)?,
            norm1: norm.init(params, &join(name, "norm1"))?,
            fc2: linear.init(params, &join(name, "fc2"), rng)?,
            norm2: norm.init(params, &join(name, "norm2"))?,
        })
    }
}

/// A built [`ResidualBlockConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResidualBlock {
    /// First Linear.
    pub fc1: Linear,
    /// LayerNorm before the ReLU.
    pub norm1: LayerNorm,
    /// Second Linear.
    pub fc2: Linear,
    /// LayerNorm before the skip connection.
    pub norm2: LayerNorm,
}

impl Forward for ResidualBlock {
    type Output = Var;

    /// x [B, width] -> ReLU(x + block(x)).
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<Var> {
        let h = self.fc1.forward(g, x)?;
        let h = self.norm1.forward_relu(g, h)?;
        let h = self.fc2.forward(g, h)?;
        let h = self.norm2.forward(g, h)?;
        g.add_relu(x, h)
    }
}

impl Module for ResidualBlock {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.fc1.visit(f);
        self.norm1.visit(f);
        self.fc2.visit(f);
        self.norm2.visit(f);
    }
}
