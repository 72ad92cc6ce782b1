//! A DQN learner's part in data-parallel training: every rank acts the
//! same (same seed, same environment steps, the same replay everywhere)
//! and samples the same global batch; each computes the loss gradient on
//! its contiguous shard of the rows, one fixed-order sum of the flat
//! gradient buffer gives every rank the global batch's, and identical
//! optimiser steps follow.
//!
//! The shard's loss is its part of the global batch's mean: its rows'
//! sum over the global batch's elements. The losses reduce to a mean by
//! `dy / elements` in their backward pass, so the shard scales its mean
//! loss by a seed `s` with `s / shard elements == 1 / global elements` in
//! f32 (exact when the batch splits in powers of two; otherwise the
//! nearest such seed where one exists): every row's gradient is then the
//! bits the one-process step gives it, and only the order in which rows
//! sum differs. The bootstrapped targets are computed for the whole batch
//! on every rank (an inference, the same bits as one process); the shards'
//! Q values travel in the gradient's sum, so replay priorities and
//! statistics come from the global batch's values.

use minnow_dist::{Collective, DataParallel, Reduced};
use std::ops::Range;
use std::rc::Rc;

/// One rank's part in data-parallel DQN ([`DqnRun::step_sharded`]): its
/// rows of each global batch, its loss seed, the global batch's Q values
/// and the process group. Kept apart from the run, which stays `Send`
/// (the group is the driving thread's).
///
/// [`DqnRun::step_sharded`]: super::DqnRun::step_sharded
#[derive(Debug)]
pub struct Shards {
    parallel: DataParallel,
    seed: f32,
    /// The global batch's Q values (of the taken actions, or with
    /// `all_actions` of every action): this rank's rows before the sum,
    /// zeros elsewhere; every rank's after.
    pub(crate) q: Vec<f32>,
    /// Whether any rank was asked to stop in the current step.
    pub(crate) stop: bool,
}

impl Shards {
    /// A rank of `comm` learning from batches of `batch` rows of `per_row`
    /// loss elements, with `grads` gradient values.
    pub(crate) fn new(comm: Rc<dyn Collective>, batch: usize, per_row: usize, grads: usize) -> crate::Result<Self> {
        let parallel = DataParallel::new(comm, batch, grads)?.with_row_values(per_row);
        let seed = loss_seed(parallel.rows().len() * per_row, batch * per_row);
        Ok(Self { parallel, seed, q: vec![0.0; batch * per_row], stop: false })
    }

    /// This rank's rows of the global batch.
    pub(crate) fn rows(&self) -> Range<usize> {
        self.parallel.rows()
    }

    /// What this rank's mean loss is scaled by.
    pub(crate) fn seed(&self) -> f32 {
        self.seed
    }

    /// The group the rank trains in.
    pub fn comm(&self) -> &dyn Collective {
        self.parallel.comm()
    }

    /// Whether any rank was asked to stop ([`minnow_train::request_stop`])
    /// in the last step, as the ranks agreed in it: all stop after the
    /// same step.
    pub fn stop_requested(&self) -> bool {
        self.stop
    }

    /// Clears the Q values of other ranks' rows before this rank writes its own.
    pub(crate) fn clear_q(&mut self) {
        self.q.fill(0.0);
    }

    /// Sums the shards' gradients and Q values over the ranks; returns the
    /// global batch's loss, or an error if it is not finite (at `update`).
    /// Hears a stop asked of any rank.
    pub(crate) fn reduce(&mut self, grads: &mut [f32], loss: f32, update: u64) -> crate::Result<f32> {
        let Reduced { loss, stop } =
            self.parallel.reduce_shares(grads, &mut self.q, loss, minnow_train::stop_requested())?;
        self.stop |= stop;
        // The summed loss is the same on every rank, so all fail together.
        if !loss.is_finite() {
            return Err(crate::RlError::Diverged { update, loss });
        }
        Ok(loss)
    }

    /// Agrees on a stop in a step that reduced no gradient.
    pub(crate) fn agree_stop(&mut self) -> crate::Result<()> {
        self.stop = self.parallel.agree_stop(minnow_train::stop_requested())?;
        Ok(())
    }
}

/// The seed `s` of a shard's mean loss over `shard` elements such that
/// `s / shard` is `1 / global` in f32, where a seed can give it (the
/// nearest, `shard / global`, otherwise).
pub(crate) fn loss_seed(shard: usize, global: usize) -> f32 {
    let target = 1.0 / global as f32;
    let nearest = shard as f32 / global as f32;
    let mut candidates = [nearest; 9];
    let (mut up, mut down) = (nearest, nearest);
    for pair in candidates[1..].chunks_exact_mut(2) {
        (up, down) = (up.next_up(), down.next_down());
        (pair[0], pair[1]) = (up, down);
    }
    candidates.into_iter().find(|&s| s / shard as f32 == target).unwrap_or(nearest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_seed_gives_the_global_scale() {
        for global in [1, 7, 32, 50, 64, 96, 100, 128, 250, 256, 1536] {
            for ranks in 1..=4.min(global) {
                for rank in 0..ranks {
                    let n = minnow_dist::shard(global, rank, ranks).len();
                    let s = loss_seed(n, global);
                    assert_eq!(s / n as f32, 1.0 / global as f32, "{n} of {global}: seed {s}");
                }
            }
        }
        assert_eq!(loss_seed(5, 5), 1.0, "one shard: the loss itself");
    }
}
