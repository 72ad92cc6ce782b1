use crate::{
    Forward, Linear, LinearConfig, Module, PolicyValueHead, PolicyValueHeadConfig, ResidualBlock, ResidualBlockConfig,
    config_error, join,
};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// The AlphaZero-style fully connected residual network:
/// x -> Linear(width) -> ReLU -> `blocks` residual blocks -> policy logits
/// and a tanh value. With inputs 198, width 140, 4 blocks and 676 policy
/// outputs it has 283,477 parameters (docs/ANCHORS.md's `az_forward`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyValueNetConfig {
    /// Observation width.
    pub inputs: usize,
    /// Width of the stem and the blocks.
    pub width: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Policy logits.
    pub policy: usize,
}

impl PolicyValueNetConfig {
    /// Parameters `name.stem`, `name.block<i>.*` and `name.head.*`.
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<PolicyValueNet> {
        if self.inputs == 0 || self.width == 0 || self.policy == 0 {
            return Err(config_error(name, format!("inputs, width and policy must be > 0, found {self:?}")));
        }
        let stem = LinearConfig::new(self.inputs, self.width).init(params, &join(name, "stem"), rng)?;
        let blocks = (0..self.blocks)
            .map(|i| ResidualBlockConfig { width: self.width }.init(params, &join(name, &format!("block{i}")), rng))
            .collect::<crate::Result<Vec<_>>>()?;
        let head =
            PolicyValueHeadConfig { inputs: self.width, policy: self.policy }.init(params, &join(name, "head"), rng)?;
        Ok(PolicyValueNet { stem, blocks, head })
    }
}

/// A built [`PolicyValueNetConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyValueNet {
    /// Input to the trunk width (then ReLU).
    pub stem: Linear,
    /// The residual tower.
    pub blocks: Vec<ResidualBlock>,
    /// Policy logits and value.
    pub head: PolicyValueHead,
}

impl Forward for PolicyValueNet {
    type Output = (Var, Var);

    /// x [B, inputs] -> (policy logits [B, policy], value [B, 1] in [-1, 1])
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> Result<(Var, Var)> {
        let mut h = self.stem.forward_relu(g, x)?;
        for block in &self.blocks {
            h = block.forward(g, h)?;
        }
        self.head.forward(g, h)
    }
}

impl Module for PolicyValueNet {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.stem.visit(f);
        self.blocks.iter().for_each(|b| b.visit(f));
        self.head.visit(f);
    }
}
