//! The learner's replay memory: uniform or prioritized, one interface.

use crate::state::{SavedState, StateSource};
use crate::{
    Batch, PrioritizedConfig, PrioritizedReplay, ReplayBuffer, ReplayConfig, Result, Transition, TransitionSink,
};
use rand::RngCore;

/// The replay memory's settings: how many transitions it keeps, and
/// uniform or prioritized sampling (with the paper's defaults: alpha 0.6,
/// beta 0.4 rising to 1).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemoryConfig {
    /// Transitions kept (the oldest is overwritten).
    pub capacity: usize,
    /// Prioritized replay (proportional, sum tree) instead of uniform.
    pub prioritized: bool,
    /// Priority exponent (0 uniform .. 1 proportional).
    pub alpha: f32,
    /// Importance-sampling exponent at the first update, rising linearly
    /// to 1 over `beta_updates` updates.
    pub beta_start: f32,
    /// Updates over which beta rises to 1 (default 100,000; 0: 1 at once).
    pub beta_updates: u64,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self { capacity: 100_000, prioritized: false, alpha: 0.6, beta_start: 0.4, beta_updates: 100_000 }
    }
}

/// A DQN learner's replay memory: uniform or prioritized, chosen by config.
#[derive(Clone, Debug)]
pub enum Memory {
    /// Uniform sampling.
    Uniform(ReplayBuffer),
    /// Proportional prioritized sampling.
    Prioritized(PrioritizedReplay),
}

impl Memory {
    /// A memory of layout `replay` (its capacity from `config`), uniform
    /// or prioritized as `config` says.
    pub fn build(replay: ReplayConfig, config: &MemoryConfig) -> Result<Self> {
        let replay = ReplayConfig { capacity: config.capacity, ..replay };
        Ok(if config.prioritized {
            let (alpha, beta_start, beta_steps) = (config.alpha, config.beta_start, config.beta_updates);
            Memory::Prioritized(
                PrioritizedConfig { alpha, beta_start, beta_steps, ..PrioritizedConfig::new(replay) }.build()?,
            )
        } else {
            Memory::Uniform(replay.build()?)
        })
    }

    /// Transitions stored.
    pub fn len(&self) -> usize {
        match self {
            Memory::Uniform(r) => r.len(),
            Memory::Prioritized(p) => p.len(),
        }
    }

    /// Whether nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A batch with room for `size` transitions of this memory's shape.
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

    /// Whether sampling is prioritized.
    pub fn is_prioritized(&self) -> bool {
        matches!(self, Memory::Prioritized(_))
    }

    /// The memory's state under `prefix` (the layout of the buffer it wraps).
    pub fn save(&self, prefix: &str) -> SavedState {
        match self {
            Memory::Uniform(r) => r.save(prefix),
            Memory::Prioritized(p) => p.save(prefix),
        }
    }

    /// Restores a state [`save`](Self::save) wrote under `prefix`; on error
    /// nothing changes.
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
