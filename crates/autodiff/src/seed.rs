//! The graph's stream of seeds for random ops (dropout masks). The caller
//! seeds each step's graph; the layers draw from it in the order they run.
//! A step is then a function of its parameters, its inputs and one seed:
//! it replays exactly, and resuming needs no generator state, only the
//! rule that gave the step its seed.

use crate::{Error, Graph, Result};

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl Graph<'_> {
    /// Seeds this graph's random draws (and restarts them): draw `n` is a
    /// fixed function of `seed` and `n`. A training step with dropout needs
    /// one; derive it from the run's seed and the step number, so that
    /// every step has its own masks.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = Some(seed);
        self.draws = 0;
    }

    /// The next seed of the stream, for a random op such as
    /// [`Graph::dropout`]; an error on a graph nobody seeded, whose
    /// masks would otherwise repeat every step unnoticed.
    pub fn next_seed(&mut self) -> Result<u64> {
        let seed = self.seed.ok_or_else(|| {
            Error::Config("a random op (dropout in training) needs a seeded graph: call Graph::set_seed first".into())
        })?;
        self.draws += 1;
        Ok(mix(seed.wrapping_add(self.draws.wrapping_mul(GOLDEN))))
    }
}

/// SplitMix64's finaliser: consecutive draws give unrelated seeds (the
/// dropout op's own hash would shift one mask into the next otherwise).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
