//! The allreduce of data-parallel training, in a fixed order: rank 0
//! gathers every rank's buffer, adds them in rank order and broadcasts the
//! sum, so the result is the same bits whatever the timing (an MPI
//! reduction may pick its order by message size and process placement).

use crate::{Collective, DistError, Result};

/// Sums a buffer of one length over all ranks, in rank order. Holds rank
/// 0's gather buffer, so summing allocates nothing.
#[derive(Debug)]
pub struct FixedOrderSum {
    len: usize,
    gathered: Vec<f32>,
}

impl FixedOrderSum {
    /// A sum of `len`-value buffers over `comm`'s ranks.
    pub fn new(comm: &dyn Collective, len: usize) -> Self {
        let gathered = if comm.rank() == 0 && comm.size() > 1 { vec![0.0; len * comm.size()] } else { Vec::new() };
        Self { len, gathered }
    }

    /// The length of the buffers it sums.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it sums empty buffers.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Replaces `buffer` on every rank by the sum of all ranks' buffers:
    /// `((b0 + b1) + b2) + ...`.
    pub fn sum(&mut self, comm: &dyn Collective, buffer: &mut [f32]) -> Result<()> {
        if buffer.len() != self.len {
            return Err(DistError::Length { what: "FixedOrderSum", expected: self.len, found: buffer.len() });
        }
        if comm.size() == 1 {
            return Ok(());
        }
        comm.gather(buffer, &mut self.gathered);
        if comm.rank() == 0 {
            for part in self.gathered.chunks_exact(self.len).skip(1) {
                for (b, p) in buffer.iter_mut().zip(part) {
                    *b += p;
                }
            }
        }
        comm.broadcast(buffer);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_of_the_wrong_length_is_refused() {
        let mut sum = FixedOrderSum::new(&crate::Solo, 3);
        let e = sum.sum(&crate::Solo, &mut [0.0; 4]).unwrap_err();
        assert_eq!(e.to_string(), "FixedOrderSum: expected a buffer of 3 values, found 4");
    }
}
