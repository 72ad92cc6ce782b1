//! The learner's replay memory: uniform or prioritized, one interface.

use crate::state::{SavedState, StateSource};
use crate::{
    Batch, PrioritizedConfig, PrioritizedReplay, ReplayBuffer, ReplayConfig, Result, Transition, TransitionSink,
};
use rand::RngCore;

#[derive(Clone, Debug)]
pub enum Memory {
    Uniform(ReplayBuffer),
    Prioritized(PrioritizedReplay),
}

impl Memory {
    /// Uniform unless `per` (alpha, beta at the first update, updates over
    /// which beta reaches 1) is given.
    pub fn build(replay: ReplayConfig, per: Option<(f32, f32, u64)>) -> Result<Self> {
        Ok(match per {
            None => Memory::Uniform(replay.build()?),
            Some((alpha, beta_start, beta_steps)) => Memory::Prioritized(
                PrioritizedConfig { alpha, beta_start, beta_steps, ..PrioritizedConfig::new(replay) }.build()?,
            ),
        })
    }

    pub fn len(&self) -> usize {
        match self {
            Memory::Uniform(r) => r.len(),
            Memory::Prioritized(p) => p.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn batch(&self, size: usize) -> Batch {
        match self {
            Memory::Uniform(r) => r.batch(size),
            Memory::Prioritized(p) => p.batch(size),
        }
    }

    /// A minibatch of `size` into `out`; `update` anneals PER's beta.
    pub fn sample_into(&self, size: usize, update: u64, rng: &mut dyn RngCore, out: &mut Batch) -> Result<()> {
        match self {
            Memory::Uniform(r) => r.sample_into(size, rng, out),
            Memory::Prioritized(p) => p.sample_into(size, update, rng, out),
        }
    }

    /// New priorities from the TD errors of the last sample (uniform: nothing).
    pub fn update_priorities(&mut self, indices: &[u32], td_errors: &[f32]) -> Result<()> {
        match self {
            Memory::Uniform(_) => Ok(()),
            Memory::Prioritized(p) => p.update_priorities(indices, td_errors),
        }
    }

    pub fn is_prioritized(&self) -> bool {
        matches!(self, Memory::Prioritized(_))
    }

    pub fn save(&self, prefix: &str) -> SavedState {
        match self {
            Memory::Uniform(r) => r.save(prefix),
            Memory::Prioritized(p) => p.save(prefix),
        }
    }

    pub fn restore(&mut self, prefix: &str, src: &(impl StateSource + ?Sized)) -> Result<()> {
        match self {
            Memory::Uniform(r) => r.restore(prefix, src),
            Memory::Prioritized(p) => p.restore(prefix, src),
        }
    }
}

impl TransitionSink for Memory {
    fn push_transition(&mut self, t: &Transition<'_>) -> Result<usize> {
        match self {
            Memory::Uniform(r) => r.push(t),
            Memory::Prioritized(p) => p.push(t),
        }
    }
}
