//! Leaves evaluated by a [`PolicyValueNet`] in one batched forward pass.

use super::{Evaluator, Inference};
use crate::{Result, RlError};
use minnow_autodiff::{Params, Tape};
use minnow_envs::Game;
use minnow_nn::{PolicyValueBf16, PolicyValueNet};
use std::marker::PhantomData;
use std::sync::Arc;

/// A policy/value network as a leaf evaluator: observations of the batch
/// go through the network in one inference pass (no tape recording), the
/// logits and tanh values come back. The parameters are a shared snapshot
/// ([`NetEvaluator::set_params`] swaps in a newer one); the tape and the
/// observation buffer are this evaluator's own, so evaluators on different
/// threads share nothing mutable. After the largest batch has been seen
/// once, evaluating allocates nothing.
///
/// With [`Inference::Bf16`] the forward runs on a bf16 copy of the
/// snapshot's weights ([`PolicyValueBf16`]), converted when the evaluator
/// is built and at each [`NetEvaluator::set_params`] (into the same
/// buffers: no allocation); the f32 path is then not used at all.
pub struct NetEvaluator<G> {
    net: PolicyValueNet,
    params: Arc<Params>,
    tape: Tape,
    obs: Vec<f32>,
    /// The bf16 copy and its policy logits (all of the network's, which
    /// may be more than the game's actions), under `Inference::Bf16`.
    bf16: Option<(PolicyValueBf16, Vec<f32>)>,
    game: PhantomData<fn() -> G>,
}

impl<G> std::fmt::Debug for NetEvaluator<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetEvaluator")
            .field("params", &self.params.numel())
            .field("bf16", &self.bf16.is_some())
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
        let bf16 = match inference {
            Inference::F32 => None,
            Inference::Bf16 => Some((PolicyValueBf16::new(net, &params)?, Vec::new())),
        };
        Ok(Self { net: net.clone(), params, tape: Tape::new(), obs: Vec::new(), bf16, game: PhantomData })
    }

    /// Swaps in another snapshot of the same layout (and converts it to
    /// bf16 under `Inference::Bf16`).
    pub fn set_params(&mut self, params: Arc<Params>) -> Result<()> {
        self.params.check_layout(&params)?;
        if let Some((bf16, _)) = &mut self.bf16 {
            bf16.refresh(&params)?;
        }
        self.params = params;
        Ok(())
    }

    /// The precision the forward runs at.
    pub fn inference(&self) -> Inference {
        if self.bf16.is_some() { Inference::Bf16 } else { Inference::F32 }
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
        if let Some((bf16, wide)) = &mut self.bf16 {
            let (a, policy) = (G::ACTIONS, bf16.policy_outputs());
            if policy == a {
                bf16.forward(&self.obs[..n * width], logits, values);
            } else {
                if wide.len() < n * policy {
                    wide.resize(n * policy, 0.0);
                }
                bf16.forward(&self.obs[..n * width], &mut wide[..n * policy], values);
                game_logits(&wide[..n * policy], policy, a, logits);
            }
            return;
        }
        let mut g = self.tape.inference(&self.params);
        // Shapes were checked when the evaluator was built.
        let x = g.input(&[n, width], &self.obs[..n * width]).expect("NetEvaluator: observation batch shape");
        let (l, v) = self.net.forward(&mut g, x).expect("NetEvaluator: network checked against the game");
        let all = g.value(l);
        game_logits(all, all.len() / n, G::ACTIONS, logits);
        values.copy_from_slice(g.value(v));
    }
}

/// The first `actions` of every row of `width` logits: a policy head wider
/// than the game's actions keeps its first ones.
fn game_logits(all: &[f32], width: usize, actions: usize, logits: &mut [f32]) {
    if width == actions {
        logits.copy_from_slice(all);
    } else {
        for (dst, src) in logits.chunks_exact_mut(actions).zip(all.chunks_exact(width)) {
            dst.copy_from_slice(&src[..actions]);
        }
    }
}
