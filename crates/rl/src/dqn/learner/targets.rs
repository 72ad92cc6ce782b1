//! An update's targets: the value of each next state from the target
//! network (at the online network's choice for double DQN, or the
//! target's own best), from afterstates where the environment has them,
//! then discounted into `r + (1 - done) * discount * V(s')`.

use super::DqnLearner;
use crate::dqn::DqnEnv;
use crate::dqn::QNetwork;
use crate::dqn::env::afterstates_of;
use crate::{Batch, Result};
use minnow_autodiff::{Params, Tape};
use minnow_nn::Forward;

impl DqnLearner {
    /// `targets = Q_target(s', a*)`, with `a*` the online network's choice
    /// (double DQN) or the target's own, over the legal actions of `s'`.
    pub(super) fn bootstrap_targets(&mut self) -> Result<()> {
        let legal = legal_actions(self.batch.next_mask(), self.net.actions());
        next_state_values(
            &self.net,
            (&self.online, &self.target),
            &mut self.eval_tape,
            self.config.double,
            self.batch.next_obs(),
            &legal,
            &mut self.next_actions,
            &mut self.targets,
        )?;
        Ok(())
    }

    /// As [`Self::bootstrap_targets`], with `Q(s', a) = r + V(afterstate)`
    /// from `env`'s model; 0 where `s'` has no legal move.
    pub(super) fn bootstrap_from_afterstates<E: DqnEnv>(&mut self, env: &E) -> Result<()> {
        let after = self.after.as_mut().expect("called with afterstates");
        let (inputs, actions, scale) = (self.net.inputs(), self.actions, self.config.reward_scale);
        after.expand(afterstates_of(env)?, self.batch.next_obs(), inputs, actions)?;
        if self.config.double {
            after.score(&self.net, &self.online, &mut self.eval_tape, scale)?;
            for r in 0..self.targets.len() {
                after.choices[r] = after.best(r, actions, u64::MAX).map_or(u32::MAX, |(a, _)| a as u32);
            }
        }
        after.score(&self.net, &self.target, &mut self.eval_tape, scale)?;
        for (r, y) in self.targets.iter_mut().enumerate() {
            *y = match (self.config.double, after.choices[r]) {
                (true, u32::MAX) => 0.0,
                (true, a) => after.q[r * actions + a as usize],
                (false, _) => after.best(r, actions, u64::MAX).map_or(0.0, |(_, q)| q),
            };
        }
        Ok(())
    }
}

/// The batch's legal actions in next state `r` as a bit set (every action
/// where the memory keeps no masks).
pub(super) fn legal_actions(masks: &[f32], actions: usize) -> impl Fn(usize) -> u64 + Sync + '_ {
    move |r| {
        if masks.is_empty() {
            u64::MAX >> (64 - actions)
        } else {
            masks[r * actions..(r + 1) * actions].iter().enumerate().fold(0, |m, (a, &v)| m | ((v > 0.5) as u64) << a)
        }
    }
}

/// `y = r + (1 - done) * discount * y` for every row of the batch.
pub(super) fn discount(targets: &mut [f32], batch: &Batch) {
    let (rewards, dones, discounts) = (batch.rewards(), batch.dones(), batch.discounts());
    for (r, y) in targets.iter_mut().enumerate() {
        *y = rewards[r] + (1.0 - dones[r]) * discounts[r] * *y;
    }
}

/// `out[r]`: the target network's value of next state `r` (a row of
/// `next_obs`), at the legal action the online network prefers (`double`,
/// the choice kept in `choices`) or at the target's own best; 0 without a
/// legal action.
#[allow(clippy::too_many_arguments)]
pub(super) fn next_state_values(
    net: &QNetwork,
    (online, target): (&Params, &Params),
    tape: &mut Tape,
    double: bool,
    next_obs: &[f32],
    legal: &impl Fn(usize) -> u64,
    choices: &mut [u32],
    out: &mut [f32],
) -> Result<()> {
    if double {
        choose_next_actions(net, online, tape, next_obs, legal, choices)?;
    }
    target_values(net, target, tape, double, next_obs, legal, choices, out)
}

/// `choices[r]`: the online network's best legal action in next state `r`
/// (`u32::MAX` without one), for double DQN.
pub(super) fn choose_next_actions(
    net: &QNetwork,
    online: &Params,
    tape: &mut Tape,
    next_obs: &[f32],
    legal: &impl Fn(usize) -> u64,
    choices: &mut [u32],
) -> Result<()> {
    let (actions, inputs) = (net.actions(), net.inputs());
    let mut g = tape.inference(online);
    let x = g.input(&[choices.len(), inputs], next_obs)?;
    let q = net.forward(&mut g, x)?;
    for (r, row) in g.value(q).chunks_exact(actions).enumerate() {
        choices[r] = crate::dqn::masked_argmax(row, legal(r)).map_or(u32::MAX, |(a, _)| a as u32);
    }
    Ok(())
}

/// The target network's half of [`next_state_values`], with the online
/// network's `choices` already made when `double`.
#[allow(clippy::too_many_arguments)]
pub(super) fn target_values(
    net: &QNetwork,
    target: &Params,
    tape: &mut Tape,
    double: bool,
    next_obs: &[f32],
    legal: &impl Fn(usize) -> u64,
    choices: &[u32],
    out: &mut [f32],
) -> Result<()> {
    let (rows, actions, inputs) = (out.len(), net.actions(), net.inputs());
    let mut g = tape.inference(target);
    let x = g.input(&[rows, inputs], next_obs)?;
    let q = net.forward(&mut g, x)?;
    for (r, row) in g.value(q).chunks_exact(actions).enumerate() {
        out[r] = if double {
            row.get(choices[r] as usize).copied().unwrap_or(0.0)
        } else {
            crate::dqn::masked_argmax(row, legal(r)).map_or(0.0, |(_, v)| v)
        };
    }
    Ok(())
}
