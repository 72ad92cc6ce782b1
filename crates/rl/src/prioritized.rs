//! Proportional prioritized replay (Schaul et al. 2016, "Prioritized
//! Experience Replay"): transition `i` is sampled with probability
//! `P(i) = p_i / sum_j p_j`, where `p_i = (|delta_i| + eps)^alpha`, and its
//! loss is weighted by `w_i = (N * P(i))^-beta / max_j w_j` to undo the bias.

use crate::state::{SavedState, StateSource, read_meta, require_eq, state_error};
use crate::{Batch, Check, ReplayBuffer, ReplayConfig, Result, RlError, SumTree, Transition, TransitionSink};
use minnow_optim::{Schedule, ScheduleConfig};
use rand::RngCore;
use serde::{Deserialize, Serialize};

/// Prioritized replay settings; the defaults are the paper's for the
/// proportional variant (alpha 0.6, beta 0.4 annealed to 1). Sampling is
/// always stratified proportional; `replay.sampling` is not used.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrioritizedConfig {
    /// The buffer underneath: capacity and transition shape.
    pub replay: ReplayConfig,
    /// Priority exponent: 0 is uniform sampling, 1 fully proportional.
    pub alpha: f32,
    /// Importance-sampling exponent at step 0.
    pub beta_start: f32,
    /// Steps over which beta rises linearly to 1 (0: beta is 1 at once).
    pub beta_steps: u64,
    /// Added to |TD error| so that no transition's priority is 0.
    pub eps: f32,
}

impl PrioritizedConfig {
    /// The paper's defaults over `replay`: alpha 0.6, beta 0.4 rising to 1 over
    /// 100,000 steps, eps 1e-6.
    pub fn new(replay: ReplayConfig) -> Self {
        Self { replay, alpha: 0.6, beta_start: 0.4, beta_steps: 100_000, eps: 1e-6 }
    }

    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        self.replay.validate()?;
        let check = Check("PrioritizedConfig");
        check.unit_closed("alpha", self.alpha)?;
        check.unit_closed("beta_start", self.beta_start)?;
        check.positive("eps", self.eps)?;
        Ok(())
    }

    /// Validates the settings and allocates the buffer and its sum tree.
    pub fn build(self) -> Result<PrioritizedReplay> {
        self.validate()?;
        Ok(PrioritizedReplay {
            config: self,
            beta: ScheduleConfig::linear(self.beta_start, self.beta_steps, 1.0).build()?,
            buffer: self.replay.build()?,
            tree: SumTree::new(self.replay.capacity)?,
            max_priority: 1.0,
        })
    }
}

/// A [`ReplayBuffer`] whose slots carry priorities in a [`SumTree`].
#[derive(Clone, Debug)]
pub struct PrioritizedReplay {
    config: PrioritizedConfig,
    /// Beta by training step, from the config.
    beta: Schedule,
    buffer: ReplayBuffer,
    tree: SumTree,
    /// The largest priority ever set; new transitions get it, so each is
    /// likely to be replayed at least once before its TD error is known.
    max_priority: f32,
}

impl PrioritizedReplay {
    /// The settings this replay was built with.
    pub fn config(&self) -> &PrioritizedConfig {
        &self.config
    }

    /// The transitions, slot by slot.
    pub fn buffer(&self) -> &ReplayBuffer {
        &self.buffer
    }

    /// The slots' priorities.
    pub fn tree(&self) -> &SumTree {
        &self.tree
    }

    /// Transitions stored.
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    /// Whether nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// The largest priority ever set; new transitions get it.
    pub fn max_priority(&self) -> f32 {
        self.max_priority
    }

    /// The priority `p_i = (|delta_i| + eps)^alpha` of the transition in `slot`.
    pub fn priority(&self, slot: usize) -> f32 {
        self.tree.get(slot)
    }

    /// Beta at training step `step`: `beta_start` rising linearly to 1 at
    /// `beta_steps`, then 1.
    pub fn beta_at(&self, step: u64) -> f32 {
        self.beta.value_at(step)
    }

    /// A batch with room for `batch` transitions of this buffer's shape.
    pub fn batch(&self, batch: usize) -> Batch {
        self.buffer.batch(batch)
    }

    /// Stores `t` with the largest priority so far; returns its slot.
    pub fn push(&mut self, t: &Transition<'_>) -> Result<usize> {
        let slot = self.buffer.push(t)?;
        self.tree.update(slot, self.max_priority);
        Ok(slot)
    }

    /// Draws `batch` transitions by stratified proportional sampling and
    /// writes them into `out` with their importance-sampling weights
    /// `w_i = (N P(i))^-beta`, divided by the largest weight in the batch
    /// (so weights only ever scale updates down), with beta taken at
    /// training step `step`. N is the number of stored transitions.
    /// Allocates nothing.
    pub fn sample_into<R: RngCore + ?Sized>(
        &self,
        batch: usize,
        step: u64,
        rng: &mut R,
        out: &mut Batch,
    ) -> Result<()> {
        self.buffer.check_sample(batch, out)?;
        out.set_len(batch);
        self.tree.sample_stratified(rng, &mut out.indices[..batch]);
        let beta = self.beta_at(step) as f64;
        // (N P(i))^-beta / max_j (N P(j))^-beta = (p_i / min_j p_j)^-beta:
        // N and the total cancel, and the largest weight has the smallest
        // priority (> 0, as `find` never returns an empty leaf).
        let mut min_p = f64::INFINITY;
        for k in 0..batch {
            min_p = min_p.min(self.tree.get(out.indices[k] as usize) as f64);
        }
        for k in 0..batch {
            let p = self.tree.get(out.indices[k] as usize) as f64;
            out.weights[k] = (p / min_p).powf(-beta) as f32;
        }
        self.buffer.gather(out);
        Ok(())
    }

    /// Sets the priority of each sampled slot from its new TD error:
    /// `p = (|delta| + eps)^alpha`. Checks every index and error first;
    /// on an error nothing changes. A slot overwritten since it was
    /// sampled simply gets the priority meant for its predecessor.
    pub fn update_priorities(&mut self, indices: &[u32], td_errors: &[f32]) -> Result<()> {
        let op = "update_priorities";
        if td_errors.len() != indices.len() {
            return Err(RlError::Length { op, what: "td_errors", expected: indices.len(), found: td_errors.len() });
        }
        if let Some(&index) = indices.iter().find(|&&i| i as usize >= self.buffer.len()) {
            return Err(RlError::Index { index, len: self.buffer.len() });
        }
        if let Some(&found) = td_errors.iter().find(|d| !d.is_finite()) {
            return Err(RlError::NonFinite { op, what: "TD error", found });
        }
        let (alpha, eps) = (self.config.alpha as f64, self.config.eps as f64);
        for (&i, &delta) in indices.iter().zip(td_errors) {
            let p = (delta.abs() as f64 + eps).powf(alpha) as f32;
            self.tree.update(i as usize, p);
            self.max_priority = self.max_priority.max(p);
        }
        Ok(())
    }

    /// Saves under `prefix`: the buffer as [`ReplayBuffer::save`] names it,
    /// the priorities as `prefix.tree.priorities` (metadata `prefix.tree`),
    /// and metadata `prefix.per`: the PER settings and the running max
    /// priority.
    pub fn save(&self, prefix: &str) -> SavedState {
        let mut state = self.buffer.save(prefix);
        state.extend(self.tree.save(&format!("{prefix}.tree")));
        let c = &self.config;
        let meta = PerMeta {
            alpha: c.alpha,
            beta_start: c.beta_start,
            beta_steps: c.beta_steps,
            eps: c.eps,
            max_priority: self.max_priority,
        };
        state.push_meta(format!("{prefix}.per"), &meta);
        state
    }

    /// Restores what [`save`](Self::save) wrote under `prefix` into a
    /// replay built with the same config. On an error nothing changes.
    pub fn restore(&mut self, prefix: &str, src: &(impl StateSource + ?Sized)) -> Result<()> {
        let key = format!("{prefix}.per");
        let meta: PerMeta = read_meta(src, &key)?;
        let c = &self.config;
        require_eq(&key, "alpha", c.alpha, meta.alpha)?;
        require_eq(&key, "beta_start", c.beta_start, meta.beta_start)?;
        require_eq(&key, "beta_steps", c.beta_steps, meta.beta_steps)?;
        require_eq(&key, "eps", c.eps, meta.eps)?;
        if !(meta.max_priority.is_finite() && meta.max_priority > 0.0) {
            return Err(state_error(&key, format!("max_priority {} is not finite and > 0", meta.max_priority)));
        }
        // Restore the tree into a copy so that a failure halfway changes nothing.
        let tree_key = format!("{prefix}.tree");
        let mut tree = self.tree.clone();
        tree.restore(&tree_key, src)?;
        // Empty slots must stay unsampleable.
        let stored: StoredLen = read_meta(src, prefix)?;
        if let Some(i) = (stored.len.min(tree.capacity())..tree.capacity()).find(|&i| tree.get(i) != 0.0) {
            let detail = format!("slot {i} has priority {} but only {} are stored", tree.get(i), stored.len);
            return Err(state_error(&format!("{tree_key}.priorities"), detail));
        }
        self.buffer.restore(prefix, src)?;
        self.tree = tree;
        self.max_priority = meta.max_priority;
        Ok(())
    }
}

impl TransitionSink for PrioritizedReplay {
    fn push_transition(&mut self, t: &Transition<'_>) -> Result<usize> {
        self.push(t)
    }
}

/// The stored count from the buffer's metadata.
#[derive(Deserialize)]
struct StoredLen {
    len: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PerMeta {
    alpha: f32,
    beta_start: f32,
    beta_steps: u64,
    eps: f32,
    max_priority: f32,
}
