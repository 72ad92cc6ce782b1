//! Evaluations on values averaged over an environment's symmetric views:
//! `Q(s, a) = mean over views k of Q(view_k(s), view k's a)`, or with
//! afterstates `V(s) = mean over k of V(view_k(s))`. The views' errors
//! partly cancel, so the average ranks moves more reliably than any one
//! view.

use super::env::symmetries_of;
use super::{DqnEnv, QNetwork, masked_argmax};
use crate::Result;
use minnow_autodiff::{Params, Tape};
use minnow_nn::Forward;

/// Row `r * views + k` is view `k` of state `r`. Buffers grow to the most
/// rows seen, so the steady state allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct SymmetricViews {
    obs: Vec<f32>,
    /// Row `r * views + k` holds view `k`'s action for each action of state `r`.
    actions: Vec<usize>,
    /// `[rows, outputs]`: the averaged network outputs.
    mean: Vec<f32>,
}

impl SymmetricViews {
    /// The network's outputs for each row of `obs` (whole states),
    /// averaged over `env`'s views: Q per action, or V with one output.
    pub(crate) fn mean_outputs<E: DqnEnv>(
        &mut self,
        env: &E,
        (net, params, tape): (&QNetwork, &Params, &mut Tape),
        obs: &[f32],
    ) -> Result<&[f32]> {
        let symmetries = symmetries_of(env)?;
        let (inputs, outputs, views, actions) = (net.inputs(), net.actions(), symmetries.count(), env.action_count());
        let rows = obs.len() / inputs;
        self.obs.resize(rows * views * inputs, 0.0);
        self.actions.resize(rows * views * actions, 0);
        self.mean.resize(rows * outputs, 0.0);
        let view_rows = self.obs.chunks_exact_mut(inputs).zip(self.actions.chunks_exact_mut(actions));
        for (row, (view, view_actions)) in view_rows.enumerate() {
            symmetries.view(row % views, &obs[row / views * inputs..][..inputs], view, view_actions)?;
        }
        let mut g = tape.inference(params);
        let x = g.input(&[rows * views, inputs], &self.obs)?;
        let q = net.forward(&mut g, x)?;
        let q = g.value(q);
        self.mean.fill(0.0);
        for (row, view_q) in q.chunks_exact(outputs).enumerate() {
            let mean = &mut self.mean[row / views * outputs..][..outputs];
            if outputs == 1 {
                mean[0] += view_q[0] / views as f32;
            } else {
                for (m, &a) in mean.iter_mut().zip(&self.actions[row * actions..][..actions]) {
                    *m += view_q[a] / views as f32;
                }
            }
        }
        Ok(&self.mean)
    }

    /// Greedy legal actions (bits of `masks`) on the averaged Q of the rows of `obs`.
    pub(crate) fn greedy<E: DqnEnv>(
        &mut self,
        env: &E,
        model: (&QNetwork, &Params, &mut Tape),
        obs: &[f32],
        masks: &[u64],
        out: &mut [u32],
    ) -> Result<()> {
        let inputs = model.0.inputs();
        let q = self.mean_outputs(env, model, &obs[..masks.len() * inputs])?;
        for ((row_q, &mask), action) in q.chunks_exact(env.action_count()).zip(masks).zip(out.iter_mut()) {
            *action = masked_argmax(row_q, mask).map_or(0, |(a, _)| a as u32);
        }
        Ok(())
    }
}
