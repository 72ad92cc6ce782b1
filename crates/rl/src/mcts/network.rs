//! Leaves evaluated by a [`PolicyValueNet`] in one batched forward pass.

use super::{Evaluator, Inference};
use crate::{Result, RlError};
use minnow_autodiff::Params;
use minnow_envs::Game;
use minnow_nn::{PolicyValueInference, PolicyValueNet};
use std::marker::PhantomData;
use std::sync::Arc;

/// A policy/value network as a leaf evaluator: observations of the batch
/// go through the network in one forward pass, the logits and tanh values
/// come back. The forward runs on the evaluator's own copy of a shared
/// parameter snapshot ([`PolicyValueInference`], no tape): in f32 with
/// weight rows padded to cache lines, giving the tape forward's outputs
/// bit for bit, or in bf16 under [`Inference::Bf16`]. The copy is made
/// when the evaluator is built and refreshed by
/// [`NetEvaluator::set_params`] into the same buffers, so evaluators on
/// different threads share nothing mutable, and after the largest batch
/// has been seen once, evaluating allocates nothing.
pub struct NetEvaluator<G> {
    params: Arc<Params>,
    copy: PolicyValueInference,
    obs: Vec<f32>,
    /// All of the network's policy logits, when the head is wider than
    /// the game's actions.
    wide: Vec<f32>,
    game: PhantomData<fn() -> G>,
}

impl<G> std::fmt::Debug for NetEvaluator<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetEvaluator")
            .field("params", &self.params.numel())
            .field("bf16", &self.copy.is_bf16())
            .finish()
    }
}

impl<G: Game> NetEvaluator<G> {
    /// An error unless the network reads `G::OBSERVATION_SIZE` inputs,
    /// writes `G::ACTIONS` logits and `params` is laid out for it.
    pub fn new(net: &PolicyValueNet, params: Arc<Params>) -> Result<Self> {
        Self::with_inference(net, params, Inference::F32)
    }

    /// As [`NetEvaluator::new`], the forward at `inference`'s precision.
    pub fn with_inference(net: &PolicyValueNet, params: Arc<Params>, inference: Inference) -> Result<Self> {
        check_network::<G>(net, &params)?;
        let copy = match inference {
            Inference::F32 => PolicyValueInference::f32(net, &params)?,
            Inference::Bf16 => PolicyValueInference::bf16(net, &params)?,
        };
        Ok(Self { params, copy, obs: Vec::new(), wide: Vec::new(), game: PhantomData })
    }

    /// Swaps in another snapshot of the same layout, copied into the
    /// evaluator's weights.
    pub fn set_params(&mut self, params: Arc<Params>) -> Result<()> {
        self.params.check_layout(&params)?;
        self.copy.refresh(&params)?;
        self.params = params;
        Ok(())
    }

    /// The precision the forward runs at.
    pub fn inference(&self) -> Inference {
        if self.copy.is_bf16() { Inference::Bf16 } else { Inference::F32 }
    }

    /// The parameter snapshot evaluated.
    pub fn params(&self) -> &Arc<Params> {
        &self.params
    }
}

/// An error unless `net` fits game `G` and `params` holds its parameters.
///
/// The policy head may be wider than the game's action space: the logits
/// past `G::ACTIONS` are computed and dropped. That lets the `mcts/*`
/// benchmarks run docs/ANCHORS.md's 283K network (676 policy outputs) on
/// backgammon's 156 actions; a trained network has exactly `G::ACTIONS`.
pub fn check_network<G: Game>(net: &PolicyValueNet, params: &Params) -> Result<()> {
    let mismatch = |what, expected, found| RlError::Length { op: "NetEvaluator::new", what, expected, found };
    if net.stem.inputs != G::OBSERVATION_SIZE {
        return Err(mismatch("network inputs (the game's observation size)", G::OBSERVATION_SIZE, net.stem.inputs));
    }
    if net.head.policy.outputs < G::ACTIONS {
        return Err(mismatch("policy outputs (at least the game's actions)", G::ACTIONS, net.head.policy.outputs));
    }
    use minnow_nn::Module;
    let mut bad = None;
    net.visit(&mut |id| {
        if id.index() >= params.len() {
            bad = Some(id.index());
        }
    });
    if let Some(index) = bad {
        return Err(mismatch("parameter tensors", index + 1, params.len()));
    }
    Ok(())
}

impl<G: Game> Evaluator<G> for NetEvaluator<G> {
    fn evaluate(&mut self, states: &[G], logits: &mut [f32], values: &mut [f32]) {
        let (n, width) = (states.len(), G::OBSERVATION_SIZE);
        if n == 0 {
            return;
        }
        if self.obs.len() < n * width {
            self.obs.resize(n * width, 0.0);
        }
        for (state, row) in states.iter().zip(self.obs.chunks_exact_mut(width)) {
            state.observe(row);
        }
        let (a, policy) = (G::ACTIONS, self.copy.policy_outputs());
        // A network for this game writes its logits directly.
        if policy == a {
            self.copy.forward(&self.obs[..n * width], logits, values);
            return;
        }
        if self.wide.len() < n * policy {
            self.wide.resize(n * policy, 0.0);
        }
        self.copy.forward(&self.obs[..n * width], &mut self.wide[..n * policy], values);
        game_logits(&self.wide[..n * policy], policy, a, logits);
    }
}

/// The first `actions` of every row of `width` logits: a policy head wider
/// than the game's actions keeps its first ones.
fn game_logits(all: &[f32], width: usize, actions: usize, logits: &mut [f32]) {
    for (dst, src) in logits.chunks_exact_mut(actions).zip(all.chunks_exact(width)) {
        dst.copy_from_slice(&src[..actions]);
    }
}
