//! The Q network: an [`Mlp`] trunk (Linear, optional LayerNorm, ReLU) and
//! a plain or dueling head, plus batched greedy action selection.

use minnow_autodiff::{Graph, ParamId, Params, Tape, Var};
use minnow_nn::{DuelingHead, DuelingHeadConfig, Forward, Linear, LinearConfig, Mlp, MlpConfig, Module};
use rand::Rng;

/// The Q network's settings: hidden widths (ReLU after each), LayerNorm
/// before each ReLU, and a dueling or plain head. Inputs and outputs come
/// from the environment.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QNetworkConfig {
    /// Hidden layer widths of the trunk.
    pub hidden: Vec<usize>,
    /// LayerNorm before each hidden ReLU.
    pub layer_norm: bool,
    /// Dueling head: Q = V + A - mean A.
    pub dueling: bool,
}

impl Default for QNetworkConfig {
    fn default() -> Self {
        Self { hidden: vec![128, 128], layer_norm: false, dueling: true }
    }
}

impl QNetworkConfig {
    /// A network from `inputs` observation values to `actions` outputs
    /// (see [`QNetwork::init`]).
    pub fn init(
        &self,
        params: &mut Params,
        inputs: usize,
        actions: usize,
        rng: &mut impl Rng,
    ) -> minnow_nn::Result<QNetwork> {
        QNetwork::init(params, inputs, &self.hidden, actions, self.layer_norm, self.dueling, rng)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Head {
    Plain(Linear),
    Dueling(DuelingHead),
}

/// `obs [B, inputs] -> q [B, actions]`.
#[derive(Clone, Debug, PartialEq)]
pub struct QNetwork {
    trunk: Mlp,
    head: Head,
    inputs: usize,
    actions: usize,
}

impl QNetwork {
    /// Parameters `q.<i>`, `q.norm<i>`, and `q.head` or `q.value`/`q.advantage`.
    pub fn init(
        params: &mut Params,
        inputs: usize,
        hidden: &[usize],
        actions: usize,
        layer_norm: bool,
        dueling: bool,
        rng: &mut impl Rng,
    ) -> minnow_nn::Result<Self> {
        let sizes: Vec<usize> = std::iter::once(inputs).chain(hidden.iter().copied()).collect();
        let trunk = MlpConfig { layer_norm, ..MlpConfig::trunk(&sizes) }.init(params, "q", rng)?;
        let width = trunk.outputs();
        let head = if dueling {
            Head::Dueling(DuelingHeadConfig { inputs: width, actions }.init(params, "q", rng)?)
        } else {
            Head::Plain(LinearConfig::new(width, actions).init(params, "q.head", rng)?)
        };
        Ok(Self { trunk, head, inputs, actions })
    }

    /// Floats per observation.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Outputs per observation: one Q value per action (1 when learning
    /// afterstate values).
    pub fn actions(&self) -> usize {
        self.actions
    }

    /// For each of the `masks.len()` rows of `obs`, the legal action (bit
    /// set in its mask) with the highest Q, into `out`; ties go to the
    /// lowest action, a row with no legal action gets 0.
    pub fn greedy(
        &self,
        tape: &mut Tape,
        params: &Params,
        obs: &[f32],
        masks: &[u64],
        out: &mut [u32],
    ) -> minnow_autodiff::Result<()> {
        let rows = masks.len();
        let mut g = tape.inference(params);
        let x = g.input(&[rows, self.inputs], &obs[..rows * self.inputs])?;
        let q = self.forward(&mut g, x)?;
        let q = g.value(q);
        for (r, (&mask, action)) in masks.iter().zip(out.iter_mut()).enumerate() {
            *action = masked_argmax(&q[r * self.actions..(r + 1) * self.actions], mask).map_or(0, |(a, _)| a as u32);
        }
        Ok(())
    }
}

impl Forward for QNetwork {
    type Output = Var;

    /// Q values `[batch, actions]` for observations `x` `[batch, inputs]`.
    fn forward(&self, g: &mut Graph<'_>, x: Var) -> minnow_autodiff::Result<Var> {
        let h = self.trunk.forward(g, x)?;
        match &self.head {
            Head::Plain(linear) => linear.forward(g, h),
            Head::Dueling(head) => head.forward(g, h),
        }
    }
}

impl Module for QNetwork {
    fn visit(&self, f: &mut dyn FnMut(ParamId)) {
        self.trunk.visit(f);
        match &self.head {
            Head::Plain(linear) => linear.visit(f),
            Head::Dueling(head) => head.visit(f),
        }
    }
}

/// The legal action (bit set in `mask`) of highest `q` and its value;
/// `None` if no action is legal.
pub fn masked_argmax(q: &[f32], mask: u64) -> Option<(usize, f32)> {
    let mut best: Option<(usize, f32)> = None;
    for (a, &v) in q.iter().enumerate() {
        if mask >> a & 1 == 1 && best.is_none_or(|(_, b)| v > b) {
            best = Some((a, v));
        }
    }
    best
}
