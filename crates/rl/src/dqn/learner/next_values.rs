//! What the networks say of a batch of next states: the online network's
//! choice of action in each (double DQN), and the target network's value
//! of each at that choice or at its own best legal action.

use super::targets::Bootstrap;
use crate::Result;
use crate::dqn::{QNetwork, masked_argmax};
use minnow_autodiff::{Params, Tape};
use minnow_nn::Forward;

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

/// Every one of `actions` actions, in any state (a model's successors
/// carry no masks).
pub(super) fn every_action(actions: usize) -> impl Fn(usize) -> u64 + Sync {
    let all = u64::MAX >> (64 - actions);
    move |_| all
}

/// `choices[r]`: the online network's best legal action in next state `r`
/// (a row of `next_obs`), `u32::MAX` without one.
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
        choices[r] = masked_argmax(row, legal(r)).map_or(u32::MAX, |(a, _)| a as u32);
    }
    Ok(())
}

/// `out[r]`: the target network's value of next state `r` (a row of
/// `next_obs`), at the online network's choice in `choices` (`Double`, 0
/// where there was none) or at its own best legal action (`MaxQ`, 0
/// without one).
pub(super) fn target_values(
    (net, target, tape): (&QNetwork, &Params, &mut Tape),
    bootstrap: Bootstrap,
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
        out[r] = match bootstrap {
            Bootstrap::Double => row.get(choices[r] as usize).copied().unwrap_or(0.0),
            Bootstrap::MaxQ => masked_argmax(row, legal(r)).map_or(0.0, |(_, v)| v),
        };
    }
    Ok(())
}
