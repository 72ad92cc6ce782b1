//! The cost-to-go network `J(s)`: DeepCubeA's residual MLP at the size a
//! small puzzle needs.

use super::{Heuristic, Puzzle};
use crate::{Check, Result};
use minnow_autodiff::{Graph, ParamId, Params, Tape, Var};
use minnow_nn::{
    Forward, LayerNorm, LayerNormConfig, Linear, LinearConfig, Module, ResidualBlock, ResidualBlockConfig,
};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// `x [B, inputs] -> Linear(hidden) -> LN -> ReLU -> Linear(width) -> LN ->
/// ReLU -> blocks x residual block(width) -> Linear(1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostToGoConfig {
    /// Width of the first layer, 1..=8192.
    pub hidden: usize,
    /// Width of the trunk and residual blocks, 1..=8192.
    pub width: usize,
    /// Residual blocks, 0..=16.
    pub blocks: usize,
}

impl CostToGoConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("CostToGoConfig");
        check.count_in("hidden", "a width in 1..=8192", self.hidden as u64, 1, 8192)?;
        check.count_in("width", "a width in 1..=8192", self.width as u64, 1, 8192)?;
        Ok(check.count_in("blocks", "a block count in 0..=16", self.blocks as u64, 0, 16)?)
    }

    /// Parameters `j.stem`, `j.stem_norm`, `j.trunk`, `j.trunk_norm`,
    /// `j.block<i>.*` and `j.head`.
    pub fn init(&self, params: &mut Params, inputs: usize, rng: &mut impl Rng) -> Result<CostToGo> {
        self.validate()?;
        let stem = LinearConfig::new(inputs, self.hidden).init(params, "j.stem", rng)?;
        let stem_norm = LayerNormConfig::new(self.hidden).init(params, "j.stem_norm")?;
        let trunk = LinearConfig::new(self.hidden, self.width).init(params, "j.trunk", rng)?;
        let trunk_norm = LayerNormConfig::new(self.width).init(params, "j.trunk_norm")?;
        let blocks = (0..self.blocks)
            .map(|i| ResidualBlockConfig { width: self.width }.init(params, &format!("j.block{i}"), rng))
            .collect::<minnow_nn::Result<Vec<_>>>()?;
        let head = LinearConfig::new(self.width, 1).init(params, "j.head", rng)?;
        Ok(CostToGo { stem, stem_norm, trunk, trunk_norm, blocks, head, inputs })
    }
}

/// The cost-to-go network's layers (its parameters live in a `Params`).
#[derive(Clone, Debug, PartialEq)]
pub struct CostToGo {
    stem: Linear,
    stem_norm: LayerNorm,
    trunk: Linear,
    trunk_norm: LayerNorm,
    blocks: Vec<ResidualBlock>,
    head: Linear,
    inputs: usize,
}

impl CostToGo {
    /// Floats per observation.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// `out[r] = J(obs row r)` under `params`, without recording.
    pub fn evaluate(&self, tape: &mut Tape, params: &Params, obs: &[f32], out: &mut [f32]) -> Result<()> {
        let rows = out.len();
        let mut g = tape.inference(params);
        let x = g.input(&[rows, self.inputs], &obs[..rows * self.inputs])?;
        let j = self.forward(&mut g, x)?;
        out.copy_from_slice(g.value(j));
        Ok(())
    }
}

impl Forward for CostToGo {
    type Output = Var;

    /// `x [B, inputs] -> J [B, 1]`.
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> minnow_autodiff::Result<Var> {
        let h = self.stem.forward(g, x)?;
        let h = self.stem_norm.forward_relu(g, h)?;
        let h = self.trunk.forward(g, h)?;
        let mut h = self.trunk_norm.forward_relu(g, h)?;
        for block in &self.blocks {
            h = block.forward(g, h)?;
        }
        self.head.forward(g, h)
    }
}

impl Module for CostToGo {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.stem.visit(f);
        self.stem_norm.visit(f);
        self.trunk.visit(f);
        self.trunk_norm.visit(f);
        self.blocks.iter().for_each(|b| b.visit(f));
        self.head.visit(f);
    }
}

/// A trained [`CostToGo`] as a search heuristic: goal states cost 0, the
/// rest `max(J, 0)`. Its buffers grow to the largest batch seen, then a
/// call allocates nothing.
#[derive(Debug)]
pub struct LearnedHeuristic {
    net: CostToGo,
    params: Params,
    tape: Tape,
    obs: Vec<f32>,
}

impl LearnedHeuristic {
    /// A heuristic evaluating `net` with `params`.
    pub fn new(net: CostToGo, params: Params) -> Self {
        Self { net, params, tape: Tape::new(), obs: Vec::new() }
    }

    /// The network's layers.
    pub fn network(&self) -> &CostToGo {
        &self.net
    }

    /// The network's parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }
}

impl<P: Puzzle> Heuristic<P> for LearnedHeuristic {
    fn estimate(&mut self, puzzle: &P, states: &[P::State], out: &mut [f32]) -> Result<()> {
        let n = puzzle.observation_size();
        if n != self.net.inputs {
            return Err(crate::RlError::Length {
                op: "LearnedHeuristic::estimate",
                what: "the puzzle's observation",
                expected: self.net.inputs,
                found: n,
            });
        }
        if self.obs.len() < states.len() * n {
            self.obs.resize(states.len() * n, 0.0);
        }
        for (row, &s) in self.obs.chunks_exact_mut(n).zip(states) {
            puzzle.observe(s, row);
        }
        let out = &mut out[..states.len()];
        self.net.evaluate(&mut self.tape, &self.params, &self.obs, out)?;
        for (j, &s) in out.iter_mut().zip(states) {
            *j = if puzzle.is_goal(s) { 0.0 } else { j.max(0.0) };
        }
        Ok(())
    }
}
