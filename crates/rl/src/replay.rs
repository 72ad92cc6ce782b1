//! The uniform replay buffer: a preallocated ring, struct of arrays.

use crate::state::{MAX_EXACT_INT, SavedState, StateSource, check_ints, read_array, read_meta, require_eq};
use crate::{Batch, Check, Result, RlError, Transition, TransitionSink};
use minnow_arena::AlignedBuf;
use rand::{Rng, RngCore};
use serde::{Deserialize, Serialize};

/// How [`ReplayBuffer::sample_into`] draws a minibatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// Each index uniform and independent; a batch may repeat a transition.
    #[default]
    WithReplacement,
    /// Distinct indices, uniform over subsets (Floyd's algorithm: exactly
    /// `batch` draws, O(batch^2) comparisons, no scratch memory).
    WithoutReplacement,
}

/// A replay buffer's shape.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayConfig {
    /// Transitions held; once full, each push overwrites the oldest.
    pub capacity: usize,
    /// Floats per observation.
    pub obs_size: usize,
    /// Actions are `0..num_actions`.
    pub num_actions: u32,
    /// Also store each next state's legal-action mask (`num_actions`
    /// floats), for bootstrapping over legal actions only.
    #[serde(default)]
    pub store_next_mask: bool,
    /// How minibatches are drawn (default: with replacement).
    #[serde(default)]
    pub sampling: Sampling,
}

impl ReplayConfig {
    /// A buffer of `capacity` transitions without masks, sampled with
    /// replacement.
    pub fn new(capacity: usize, obs_size: usize, num_actions: u32) -> Self {
        Self { capacity, obs_size, num_actions, store_next_mask: false, sampling: Sampling::WithReplacement }
    }

    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("ReplayConfig");
        // Slots and actions are saved as exact f32 values.
        check.count_in("capacity", "a value in 1..=16777216", self.capacity as u64, 1, MAX_EXACT_INT as u64)?;
        check.count_in("obs_size", "a value > 0", self.obs_size as u64, 1, u64::MAX)?;
        check.count_in("num_actions", "a value in 1..=16777216", self.num_actions as u64, 1, MAX_EXACT_INT as u64)?;
        Ok(())
    }

    /// Floats per stored next-state mask (0 when masks are not stored).
    pub fn mask_size(&self) -> usize {
        if self.store_next_mask { self.num_actions as usize } else { 0 }
    }

    /// Allocates every buffer; nothing is allocated after this.
    pub fn build(self) -> Result<ReplayBuffer> {
        self.validate()?;
        let (cap, obs) = (self.capacity, self.obs_size);
        Ok(ReplayBuffer {
            config: self,
            obs: AlignedBuf::zeros(cap * obs),
            next_obs: AlignedBuf::zeros(cap * obs),
            next_mask: AlignedBuf::zeros(cap * self.mask_size()),
            actions: vec![0; cap],
            rewards: vec![0.0; cap],
            dones: vec![0.0; cap],
            discounts: vec![0.0; cap],
            head: 0,
            len: 0,
            pushed: 0,
        })
    }
}

/// Transitions in a ring of `capacity` slots, one flat array per field:
/// `obs` and `next_obs` are `[capacity, obs_size]`, `next_mask` is
/// `[capacity, num_actions]` (or empty), `actions`, `rewards`, `dones`
/// (1.0 terminal, 0.0 not) and `discounts` (the bootstrap discount actually
/// applied, `gamma^m`) are `[capacity]`.
///
/// Slots fill in order `0, 1, ..`; once full, a push overwrites the oldest
/// slot. Next states are stored, not referenced by index, so transitions
/// from many environments (and n-step ones) can interleave freely.
#[derive(Clone, Debug)]
pub struct ReplayBuffer {
    config: ReplayConfig,
    obs: AlignedBuf,
    next_obs: AlignedBuf,
    next_mask: AlignedBuf,
    actions: Vec<u32>,
    rewards: Vec<f32>,
    dones: Vec<f32>,
    discounts: Vec<f32>,
    /// The slot the next push writes.
    head: usize,
    len: usize,
    /// Pushes ever made.
    pushed: u64,
}

impl ReplayBuffer {
    /// The settings this buffer was built with.
    pub fn config(&self) -> &ReplayConfig {
        &self.config
    }

    /// Transitions stored (at most the capacity).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Transitions held at most.
    pub fn capacity(&self) -> usize {
        self.config.capacity
    }

    /// Transitions ever pushed, including overwritten ones.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// The slot the next push writes (the oldest transition once full).
    pub fn head(&self) -> usize {
        self.head
    }

    /// A batch with room for `batch` transitions of this buffer's shape.
    pub fn batch(&self, batch: usize) -> Batch {
        Batch::new(batch, self.config.obs_size, self.config.mask_size())
    }

    /// Checks `t` against the buffer's shape without storing it.
    pub fn check(&self, t: &Transition<'_>) -> Result<()> {
        let op = "ReplayBuffer::push";
        let length = |what, expected, found| RlError::Length { op, what, expected, found };
        if t.obs.len() != self.config.obs_size {
            return Err(length("obs", self.config.obs_size, t.obs.len()));
        }
        if t.next_obs.len() != self.config.obs_size {
            return Err(length("next_obs", self.config.obs_size, t.next_obs.len()));
        }
        if t.next_mask.len() != self.config.mask_size() {
            return Err(length("next_mask", self.config.mask_size(), t.next_mask.len()));
        }
        if t.action >= self.config.num_actions {
            return Err(RlError::Action { op, expected: self.config.num_actions, found: t.action });
        }
        if !t.reward.is_finite() {
            return Err(RlError::NonFinite { op, what: "reward", found: t.reward });
        }
        if !t.discount.is_finite() {
            return Err(RlError::NonFinite { op, what: "discount", found: t.discount });
        }
        Ok(())
    }

    /// Stores `t` in the next slot and returns that slot.
    pub fn push(&mut self, t: &Transition<'_>) -> Result<usize> {
        self.check(t)?;
        let slot = self.head;
        let rows = slot * self.config.obs_size..(slot + 1) * self.config.obs_size;
        self.obs[rows.clone()].copy_from_slice(t.obs);
        self.next_obs[rows].copy_from_slice(t.next_obs);
        let m = self.config.mask_size();
        self.next_mask[slot * m..(slot + 1) * m].copy_from_slice(t.next_mask);
        self.actions[slot] = t.action;
        self.rewards[slot] = t.reward;
        self.dones[slot] = if t.done { 1.0 } else { 0.0 };
        self.discounts[slot] = t.discount;
        self.head = if slot + 1 == self.config.capacity { 0 } else { slot + 1 };
        self.len = (self.len + 1).min(self.config.capacity);
        self.pushed += 1;
        Ok(slot)
    }

    /// The transition in `slot` (`slot < len`).
    #[track_caller]
    pub fn get(&self, slot: usize) -> Transition<'_> {
        assert!(slot < self.len, "ReplayBuffer::get: slot {slot} out of range for {} stored", self.len);
        let (o, m) = (self.config.obs_size, self.config.mask_size());
        Transition {
            obs: &self.obs[slot * o..(slot + 1) * o],
            action: self.actions[slot],
            reward: self.rewards[slot],
            next_obs: &self.next_obs[slot * o..(slot + 1) * o],
            next_mask: &self.next_mask[slot * m..(slot + 1) * m],
            done: self.dones[slot] != 0.0,
            discount: self.discounts[slot],
        }
    }

    /// An error unless `out` can receive a minibatch of `batch` from this
    /// buffer now.
    pub(crate) fn check_sample(&self, batch: usize, out: &Batch) -> Result<()> {
        if batch == 0 {
            return Err(Check("sample").count("batch", "a value > 0", 0).into());
        }
        if out.obs_size() != self.config.obs_size {
            return Err(RlError::BatchShape {
                what: "obs_size",
                expected: self.config.obs_size,
                found: out.obs_size(),
            });
        }
        if out.mask_size() != self.config.mask_size() {
            let (expected, found) = (self.config.mask_size(), out.mask_size());
            return Err(RlError::BatchShape { what: "mask_size", expected, found });
        }
        if batch > out.capacity() {
            return Err(RlError::BatchCapacity { batch, capacity: out.capacity() });
        }
        if batch > self.len {
            return Err(RlError::BatchTooLarge { batch, len: self.len });
        }
        Ok(())
    }

    /// Draws `batch` slots uniformly (as the config's [`Sampling`] says)
    /// and copies those transitions into `out`, setting every weight to 1.
    /// Allocates nothing.
    pub fn sample_into<R: RngCore + ?Sized>(&self, batch: usize, rng: &mut R, out: &mut Batch) -> Result<()> {
        self.check_sample(batch, out)?;
        out.set_len(batch);
        let len = self.len as u32;
        let indices = &mut out.indices[..batch];
        match self.config.sampling {
            Sampling::WithReplacement => {
                for i in indices.iter_mut() {
                    *i = rng.random_range(0..len);
                }
            }
            Sampling::WithoutReplacement => {
                // Floyd: for j in len-batch..len, take a uniform t in 0..=j,
                // or j itself if t is taken already.
                let start = len - batch as u32;
                for (k, j) in (start..len).enumerate() {
                    let t = rng.random_range(0..=j);
                    indices[k] = if indices[..k].contains(&t) { j } else { t };
                }
            }
        }
        out.weights[..batch].fill(1.0);
        self.gather(out);
        Ok(())
    }

    /// Copies the transitions at `out.indices()` into the rest of `out`.
    #[track_caller]
    pub(crate) fn gather(&self, out: &mut Batch) {
        let (o, m) = (self.config.obs_size, self.config.mask_size());
        assert!(
            out.obs_size() == o && out.mask_size() == m,
            "ReplayBuffer::gather: Batch is [{}, {}] per row, the buffer [{o}, {m}]",
            out.obs_size(),
            out.mask_size()
        );
        for k in 0..out.len() {
            let s = out.indices[k] as usize;
            assert!(s < self.len, "ReplayBuffer::gather: slot {s} out of range for {} stored", self.len);
            out.obs[k * o..(k + 1) * o].copy_from_slice(&self.obs[s * o..(s + 1) * o]);
            out.next_obs[k * o..(k + 1) * o].copy_from_slice(&self.next_obs[s * o..(s + 1) * o]);
            out.next_mask[k * m..(k + 1) * m].copy_from_slice(&self.next_mask[s * m..(s + 1) * m]);
            out.actions[k] = self.actions[s];
            out.rewards[k] = self.rewards[s];
            out.dones[k] = self.dones[s];
            out.discounts[k] = self.discounts[s];
        }
    }

    /// Saves the stored transitions under `prefix`: arrays `prefix.obs`,
    /// `prefix.next_obs` (`[len, obs_size]`), `prefix.next_mask`
    /// (`[len, num_actions]`, only when masks are stored), `prefix.actions`,
    /// `prefix.rewards`, `prefix.dones`, `prefix.discounts` (`[len]`), in
    /// slot order; metadata `prefix`: the config, `head`, `len`, `pushed`.
    pub fn save(&self, prefix: &str) -> SavedState {
        let (n, o, m) = (self.len, self.config.obs_size, self.config.mask_size());
        let mut state = SavedState::new();
        state.push_array(format!("{prefix}.obs"), &[n, o], self.obs[..n * o].to_vec());
        state.push_array(format!("{prefix}.next_obs"), &[n, o], self.next_obs[..n * o].to_vec());
        if m > 0 {
            state.push_array(format!("{prefix}.next_mask"), &[n, m], self.next_mask[..n * m].to_vec());
        }
        let actions = self.actions[..n].iter().map(|&a| a as f32).collect();
        state.push_array(format!("{prefix}.actions"), &[n], actions);
        state.push_array(format!("{prefix}.rewards"), &[n], self.rewards[..n].to_vec());
        state.push_array(format!("{prefix}.dones"), &[n], self.dones[..n].to_vec());
        state.push_array(format!("{prefix}.discounts"), &[n], self.discounts[..n].to_vec());
        let meta = ReplayMeta { config: self.config, head: self.head, len: self.len, pushed: self.pushed };
        state.push_meta(prefix.to_string(), &meta);
        state
    }

    /// Restores what [`save`](Self::save) wrote under `prefix` into a
    /// buffer built with the same config. Checks everything first; on an
    /// error the buffer is unchanged.
    pub fn restore(&mut self, prefix: &str, src: &(impl StateSource + ?Sized)) -> Result<()> {
        let meta: ReplayMeta = read_meta(src, prefix)?;
        let c = &self.config;
        require_eq(prefix, "capacity", c.capacity, meta.config.capacity)?;
        require_eq(prefix, "obs_size", c.obs_size, meta.config.obs_size)?;
        require_eq(prefix, "num_actions", c.num_actions, meta.config.num_actions)?;
        require_eq(prefix, "store_next_mask", c.store_next_mask, meta.config.store_next_mask)?;
        let (n, o, m) = (meta.len, c.obs_size, c.mask_size());
        let full_head_ok = if n == c.capacity { meta.head < n } else { meta.head == n };
        if n > c.capacity || !full_head_ok || meta.pushed < n as u64 {
            let detail = format!("inconsistent ring: head {}, len {n}, pushed {}", meta.head, meta.pushed);
            return Err(crate::state::state_error(prefix, detail));
        }
        let name = |field: &str| format!("{prefix}.{field}");
        let obs = read_array(src, &name("obs"), n * o)?;
        let next_obs = read_array(src, &name("next_obs"), n * o)?;
        let next_mask = if m > 0 { read_array(src, &name("next_mask"), n * m)? } else { &[] };
        let actions = read_array(src, &name("actions"), n)?;
        check_ints(&name("actions"), actions, c.num_actions)?;
        let rewards = read_array(src, &name("rewards"), n)?;
        let dones = read_array(src, &name("dones"), n)?;
        check_ints(&name("dones"), dones, 2)?;
        let discounts = read_array(src, &name("discounts"), n)?;

        self.obs[..n * o].copy_from_slice(obs);
        self.next_obs[..n * o].copy_from_slice(next_obs);
        self.next_mask[..n * m].copy_from_slice(next_mask);
        for (dst, &a) in self.actions.iter_mut().zip(actions) {
            *dst = a as u32;
        }
        self.rewards[..n].copy_from_slice(rewards);
        self.dones[..n].copy_from_slice(dones);
        self.discounts[..n].copy_from_slice(discounts);
        (self.head, self.len, self.pushed) = (meta.head, meta.len, meta.pushed);
        Ok(())
    }
}

impl TransitionSink for ReplayBuffer {
    fn push_transition(&mut self, t: &Transition<'_>) -> Result<usize> {
        self.push(t)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayMeta {
    config: ReplayConfig,
    head: usize,
    len: usize,
    pushed: u64,
}
