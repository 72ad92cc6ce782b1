//! What a logic-CA run needs in memory, estimated from its config before
//! anything is allocated, so that a grid or a batch too large for the
//! machine is refused with a number instead of aborting the process.

use crate::{CheckerboardConfig, Rollout, Variant};

impl CheckerboardConfig {
    /// The memory a run of this config needs, roughly, in bytes: per
    /// member, each worker's rollout of one grid (every state, and with
    /// [`Rollout::Store`] every gate's output at every step) and the
    /// step's batch of grids, targets and fire masks.
    pub fn memory_bytes(&self) -> f64 {
        let ca = &self.ca;
        let (channels, cells, steps) = (ca.channels as f64, (ca.height * ca.width) as f64, self.ca_steps as f64);
        let perception: usize = ca.perception.iter().sum();
        let update: usize = ca.update.iter().sum();
        let rows = channels * 9.0 + channels * (ca.kernels * perception) as f64 + update as f64;
        let stored = match self.rollout {
            Rollout::Store => steps * cells * rows,
            Rollout::Recompute => 0.0,
        };
        let worker = (steps + 2.0) * channels * cells + stored + 2.0 * rows * self.lanes as f64;
        let fire = if self.variant == Variant::Async { steps } else { 0.0 };
        let batch = self.batch as f64 * cells * (channels + 1.0 + fire);
        let workers = self.threads.min(self.batch).max(1) as f64;
        4.0 * self.population as f64 * (workers * worker + batch)
    }
}
