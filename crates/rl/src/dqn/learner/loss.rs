//! An update's loss: the Huber loss of the online network's Q against the
//! targets, and its backward pass (in one process the loss and the mean
//! Q, refused when not finite; as one rank of several, this rank's scaled
//! part, its Q values put where the fixed-order sum expects them).

use crate::dqn::run::mean;
use crate::dqn::shards::Shards;
use crate::{Result, RlError};
use minnow_autodiff::{Graph, Var};

/// The Huber loss (`delta`) of the online network's outputs `q` against
/// `targets`, each row weighted by `weights`: at each row's `taken` action,
/// or with none at every action. Returns the loss and the Q values it is of.
pub(super) fn huber_loss(
    g: &mut Graph<'_>,
    q: Var,
    taken: Option<&[u32]>,
    targets: &[f32],
    delta: f32,
    weights: Option<&[f32]>,
) -> Result<(Var, Var)> {
    let q = match taken {
        Some(actions) => g.gather_cols(q, actions)?,
        None => q,
    };
    Ok((g.huber(q, targets, delta, weights)?, q))
}

/// The backward pass of an update's loss; returns the loss and the mean
/// of `q`'s values. In one process: an error if the loss is not finite.
/// With `shards`: this rank's part of the global batch's loss (scaled by
/// the shard's seed), its Q values put at `at` for the sum, and NaN for
/// the mean (the sum gives it). A non-finite part is not an error there:
/// it makes the sum over the ranks non-finite, so every rank fails at the
/// same update instead of one leaving the others waiting in the sum.
pub(super) fn backward(
    g: &mut Graph<'_>,
    loss: Var,
    q: Var,
    at: std::ops::Range<usize>,
    shards: Option<&mut Shards>,
    update: u64,
) -> Result<(f32, f32)> {
    let (loss, value, mean_q) = match shards {
        None => {
            let value = g.scalar(loss);
            if !value.is_finite() {
                return Err(RlError::Diverged { update, loss: value });
            }
            (loss, value, mean(g.value(q).iter().copied()))
        }
        Some(shards) => {
            shards.clear_q();
            shards.q[at].copy_from_slice(g.value(q));
            let part = g.scale(loss, shards.seed())?;
            (part, g.scalar(part), f32::NAN)
        }
    };
    if value.is_finite() {
        g.backward(loss)?;
    }
    Ok((value, mean_q))
}
