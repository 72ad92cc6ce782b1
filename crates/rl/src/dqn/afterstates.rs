//! Acting through a model of afterstates: where each action leads before
//! the environment's chance event, scored as `Q(s, a) = r + V(afterstate)`.

use super::{AfterstateModel, QNetwork};
use crate::Result;
use minnow_autodiff::{Params, Tape};
use minnow_nn::Forward;

/// Row `r * actions + a` is where action `a` leads from state `r` before
/// chance; `q` holds its reward (scaled) plus the network's value of it.
/// Buffers grow to the most rows seen, so the steady state allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct Afterstates {
    pub(crate) obs: Vec<f32>,
    rewards: Vec<f32>,
    legal: Vec<u64>,
    pub(crate) q: Vec<f32>,
}

impl Afterstates {
    /// Fills the afterstates, rewards and legal masks of each row of `states`.
    pub(crate) fn expand(
        &mut self,
        model: &dyn AfterstateModel,
        states: &[f32],
        inputs: usize,
        actions: usize,
    ) -> Result<()> {
        let rows = states.len() / inputs;
        self.obs.resize(rows * actions * inputs, 0.0);
        self.rewards.resize(rows * actions, 0.0);
        self.legal.resize(rows, 0);
        self.q.resize(rows * actions, 0.0);
        let per_state = actions * inputs;
        for (r, state) in states.chunks_exact(inputs).enumerate() {
            self.legal[r] = model.afterstates(
                state,
                &mut self.obs[r * per_state..(r + 1) * per_state],
                &mut self.rewards[r * actions..(r + 1) * actions],
            )?;
        }
        Ok(())
    }

    /// `q = reward * scale + V(afterstate)` under `params`.
    pub(crate) fn score(&mut self, net: &QNetwork, params: &Params, tape: &mut Tape, scale: f32) -> Result<()> {
        let mut g = tape.inference(params);
        let x = g.input(&[self.q.len(), net.inputs()], &self.obs)?;
        let v = net.forward(&mut g, x)?;
        self.set_values(g.value(v), scale);
        Ok(())
    }

    /// `q = reward * scale + values` (one value per afterstate).
    pub(crate) fn set_values(&mut self, values: &[f32], scale: f32) {
        for ((q, &v), &reward) in self.q.iter_mut().zip(values).zip(&self.rewards) {
            *q = reward * scale + v;
        }
    }

    /// Each row's best legal action (bit set in its mask too), 0 if none.
    pub(crate) fn choose(&self, actions: usize, masks: &[u64], out: &mut [u32]) {
        for (r, (&mask, action)) in masks.iter().zip(out.iter_mut()).enumerate() {
            *action = self.best(r, actions, mask).map_or(0, |(a, _)| a as u32);
        }
    }

    /// Row `r`'s best legal action (bit set in `mask` too) and its Q.
    pub(crate) fn best(&self, r: usize, actions: usize, mask: u64) -> Option<(usize, f32)> {
        super::masked_argmax(&self.q[r * actions..(r + 1) * actions], mask & self.legal[r])
    }
}
