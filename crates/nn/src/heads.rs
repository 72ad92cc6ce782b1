use crate::{Forward, Linear, LinearConfig, Module, join};
use minnow_autodiff::{Graph, ParamId, Params, Result, Var};
use rand::Rng;

/// Dueling Q head: q = V(h) + A(h) - mean A(h).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuelingHeadConfig {
    /// Width of the features it reads.
    pub inputs: usize,
    /// Q-values it writes.
    pub actions: usize,
}

impl DuelingHeadConfig {
    /// Parameters `name.value` and `name.advantage`.
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<DuelingHead> {
        Ok(DuelingHead {
            value: LinearConfig::new(self.inputs, 1).init(params, &join(name, "value"), rng)?,
            advantage: LinearConfig::new(self.inputs, self.actions).init(params, &join(name, "advantage"), rng)?,
        })
    }
}

/// A built [`DuelingHeadConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DuelingHead {
    /// V(h).
    pub value: Linear,
    /// A(h).
    pub advantage: Linear,
}

impl Forward for DuelingHead {
    type Output = Var;

    /// h [B, inputs] -> q [B, actions]
    fn forward(&self, g: &mut Graph<'_>, h: Var) -> Result<Var> {
        let v = self.value.forward(g, h)?;
        let a = self.advantage.forward(g, h)?;
        g.dueling(v, a)
    }
}

impl Module for DuelingHead {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.value.visit(f);
        self.advantage.visit(f);
    }
}

/// Two outputs from one trunk: policy logits and a tanh value in [-1, 1].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyValueHeadConfig {
    /// Width of the features it reads.
    pub inputs: usize,
    /// Policy logits it writes.
    pub policy: usize,
}

impl PolicyValueHeadConfig {
    /// Parameters `name.policy` and `name.value`.
    pub fn init(&self, params: &mut Params, name: &str, rng: &mut impl Rng) -> crate::Result<PolicyValueHead> {
        Ok(PolicyValueHead {
            policy: LinearConfig::new(self.inputs, self.policy).init(params, &join(name, "policy"), rng)?,
            value: LinearConfig::new(self.inputs, 1).init(params, &join(name, "value"), rng)?,
        })
    }
}

/// A built [`PolicyValueHeadConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyValueHead {
    /// The policy logits.
    pub policy: Linear,
    /// The value before its tanh.
    pub value: Linear,
}

impl Forward for PolicyValueHead {
    type Output = (Var, Var);

    /// h [B, inputs] -> (policy logits [B, policy], value [B, 1])
    fn forward(&self, g: &mut Graph<'_>, h: Var) -> Result<(Var, Var)> {
        let logits = self.policy.forward(g, h)?;
        let v = self.value.forward(g, h)?;
        Ok((logits, g.tanh(v)?))
    }
}

impl Module for PolicyValueHead {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.policy.visit(f);
        self.value.visit(f);
    }
}
