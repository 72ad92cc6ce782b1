//! Data-parallel training: every rank draws the same global batch, takes
//! its contiguous share of the rows, computes the gradient of its rows'
//! mean loss, and one fixed-order sum of the flat gradient buffer (each
//! rank's gradient weighted by its share of the rows) gives every rank the
//! gradient of the global batch's mean loss, so identical optimiser steps
//! keep identical parameters.
//!
//! A learner that already scales each rank's loss to its part of the
//! global batch's mean (its rows' sum over the global rows, as DQN's does)
//! sums unweighted ([`DataParallel::reduce_shares`]), with values per row
//! that every rank needs whole (Q values for replay priorities) carried in
//! the same sum.

use crate::{Collective, DistError, FixedOrderSum, Result};
use std::ops::Range;
use std::rc::Rc;

/// One rank's part in data-parallel training on batches of `batch` rows.
#[derive(Debug)]
pub struct DataParallel {
    comm: Rc<dyn Collective>,
    rows: Range<usize>,
    /// This rank's share of the global batch.
    weight: f32,
    grads: FixedOrderSum,
    /// The loss and the stop flag.
    scalars: FixedOrderSum,
    /// With values per row: `[gradients | row values | loss, stop]`, and
    /// its sum (one collective per step).
    packed: Option<(Vec<f32>, FixedOrderSum)>,
    batch: usize,
}

/// What the ranks agreed on in a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reduced {
    /// The global batch's mean loss.
    pub loss: f32,
    /// Whether any rank was asked to stop.
    pub stop: bool,
}

impl DataParallel {
    /// A rank of `comm` training on global batches of `batch` rows and a
    /// gradient buffer of `grads` values; every rank needs a row.
    pub fn new(comm: Rc<dyn Collective>, batch: usize, grads: usize) -> Result<Self> {
        if batch < comm.size() {
            return Err(DistError::TooFewRows { batch, ranks: comm.size() });
        }
        let rows = shard(batch, comm.rank(), comm.size());
        Ok(Self {
            weight: rows.len() as f32 / batch as f32,
            grads: FixedOrderSum::new(comm.as_ref(), grads),
            scalars: FixedOrderSum::new(comm.as_ref(), 2),
            packed: None,
            batch,
            rows,
            comm,
        })
    }

    /// Makes room for `per_row` values per row of the global batch in
    /// [`DataParallel::reduce_shares`]'s sum.
    pub fn with_row_values(mut self, per_row: usize) -> Self {
        let len = self.grads.len() + self.batch * per_row + 2;
        self.packed = Some((vec![0.0; len], FixedOrderSum::new(self.comm.as_ref(), len)));
        self
    }

    /// This rank's rows of each global batch.
    pub fn rows(&self) -> Range<usize> {
        self.rows.clone()
    }

    /// The group this rank trains in.
    pub fn comm(&self) -> &dyn Collective {
        self.comm.as_ref()
    }

    /// Turns this rank's gradient and mean loss over its rows into the
    /// global batch's, the same bits on every rank. `stop` is whether this
    /// rank was asked to stop (a signal reaches the ranks at different
    /// moments); the answer says whether any was, so that all stop after
    /// the same step.
    pub fn reduce(&mut self, grads: &mut [f32], loss: f32, stop: bool) -> Result<Reduced> {
        if self.comm.size() == 1 {
            return Ok(Reduced { loss, stop });
        }
        for g in grads.iter_mut() {
            *g *= self.weight;
        }
        self.grads.sum(self.comm.as_ref(), grads)?;
        let mut scalars = [loss * self.weight, stop as u8 as f32];
        self.scalars.sum(self.comm.as_ref(), &mut scalars)?;
        Ok(Reduced { loss: scalars[0], stop: scalars[1] > 0.0 })
    }

    /// Sums, unweighted, gradients each rank already scaled to its part of
    /// the global batch's mean loss, with `loss` the same part of the
    /// mean; `row_values` (the length [`DataParallel::with_row_values`]
    /// made room for) holds this rank's rows' values and zeros at every
    /// other row, and comes back with every rank's (adding zeros is exact,
    /// so these are the bits their rank computed). One fixed-order sum;
    /// `stop` as in [`DataParallel::reduce`].
    pub fn reduce_shares(
        &mut self,
        grads: &mut [f32],
        row_values: &mut [f32],
        loss: f32,
        stop: bool,
    ) -> Result<Reduced> {
        let (g, r) = (self.grads.len(), row_values.len());
        let Some((packed, sum)) = self.packed.as_mut() else {
            return Err(DistError::Length {
                what: "DataParallel::reduce_shares (no row values)",
                expected: 0,
                found: r,
            });
        };
        if g + r + 2 != packed.len() {
            let what = "DataParallel::reduce_shares";
            return Err(DistError::Length { what, expected: packed.len(), found: grads.len() + r + 2 });
        }
        if self.comm.size() == 1 {
            return Ok(Reduced { loss, stop });
        }
        packed[..g].copy_from_slice(grads);
        packed[g..g + r].copy_from_slice(row_values);
        packed[g + r..].copy_from_slice(&[loss, stop as u8 as f32]);
        sum.sum(self.comm.as_ref(), packed)?;
        grads.copy_from_slice(&packed[..g]);
        row_values.copy_from_slice(&packed[g..g + r]);
        Ok(Reduced { loss: packed[g + r], stop: packed[g + r + 1] > 0.0 })
    }

    /// Whether any rank was asked to stop, for a step without a gradient
    /// to reduce (every rank must ask in the same steps).
    pub fn agree_stop(&mut self, stop: bool) -> Result<bool> {
        if self.comm.size() == 1 {
            return Ok(stop);
        }
        let mut scalars = [0.0, stop as u8 as f32];
        self.scalars.sum(self.comm.as_ref(), &mut scalars)?;
        Ok(scalars[1] > 0.0)
    }
}

/// Rank `rank`'s rows of a global batch of `rows` split over `size` ranks:
/// contiguous, in rank order, sizes differing by at most one.
pub fn shard(rows: usize, rank: usize, size: usize) -> Range<usize> {
    assert!(rank < size, "shard: rank {rank} of {size}");
    rows * rank / size..rows * (rank + 1) / size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_batch_in_order() {
        for size in 1..6 {
            let ranges: Vec<_> = (0..size).map(|r| shard(32, r, size)).collect();
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges[size - 1].end, 32);
            for pair in ranges.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert!(pair[0].len().abs_diff(pair[1].len()) <= 1, "{ranges:?}");
            }
        }
        assert_eq!(shard(32, 1, 3), 10..21);
    }

    #[test]
    fn one_rank_keeps_its_gradient_and_loss_bit_for_bit() {
        let mut parallel = DataParallel::new(Rc::new(crate::Solo), 32, 3).unwrap();
        assert_eq!(parallel.rows(), 0..32);
        let mut grads = [0.1, -0.2, 0.3];
        assert_eq!(parallel.reduce(&mut grads, 0.7, false).unwrap(), Reduced { loss: 0.7, stop: false });
        assert_eq!(grads, [0.1, -0.2, 0.3]);
    }

    #[test]
    fn one_rank_keeps_its_shares_and_row_values_bit_for_bit() {
        let mut parallel = DataParallel::new(Rc::new(crate::Solo), 4, 3).unwrap().with_row_values(2);
        let (mut grads, mut rows) = ([0.1, -0.2, 0.3], [1.5; 8]);
        let reduced = parallel.reduce_shares(&mut grads, &mut rows, 0.7, true).unwrap();
        assert_eq!(reduced, Reduced { loss: 0.7, stop: true });
        assert_eq!((grads, rows), ([0.1, -0.2, 0.3], [1.5; 8]));
        assert!(parallel.reduce_shares(&mut grads, &mut [0.0; 7], 0.7, false).is_err());
        assert!(parallel.agree_stop(true).unwrap());
        let mut plain = DataParallel::new(Rc::new(crate::Solo), 4, 3).unwrap();
        assert!(plain.reduce_shares(&mut grads, &mut [], 0.7, false).is_err(), "no room made for row values");
    }
}
