//! Self-play positions: (observation, visit distribution, final outcome)
//! in a preallocated ring, struct of arrays.

use crate::state::{SavedState, StateSource, read_array, read_meta, require_eq};
use crate::{Check, Result, RlError};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Positions in a ring of `capacity` slots: `obs` `[capacity, obs_size]`,
/// `policy` `[capacity, actions]` (the root's visit distribution), `value`
/// `[capacity]` (the game's final result for the player to move there).
#[derive(Clone, Debug)]
pub struct PositionReplay {
    capacity: usize,
    obs_size: usize,
    actions: usize,
    obs: Vec<f32>,
    policy: Vec<f32>,
    value: Vec<f32>,
    head: usize,
    len: usize,
    pushed: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    capacity: usize,
    obs_size: usize,
    actions: usize,
    head: usize,
    len: usize,
    pushed: u64,
}

/// Positions gathered by a worker before they enter the replay (grown as
/// needed: a worker's output, not a steady-state buffer).
#[derive(Clone, Debug, Default)]
pub struct Positions {
    /// Observations, `[len, obs_size]`.
    pub obs: Vec<f32>,
    /// The root's visit distributions (the policy targets), `[len, actions]`.
    pub policy: Vec<f32>,
    /// Value targets for the player to move, in [-1, 1], `[len]`.
    pub value: Vec<f32>,
}

impl Positions {
    /// Empties the batch, keeping its memory.
    pub fn clear(&mut self) {
        self.obs.clear();
        self.policy.clear();
        self.value.clear();
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }
}

impl PositionReplay {
    /// All memory is allocated here.
    pub fn new(capacity: usize, obs_size: usize, actions: usize) -> Result<Self> {
        if capacity == 0 || obs_size == 0 || actions == 0 {
            return Err(Check("PositionReplay").count("capacity, obs_size and actions", "values >= 1", 0).into());
        }
        Ok(Self {
            capacity,
            obs_size,
            actions,
            obs: vec![0.0; capacity * obs_size],
            policy: vec![0.0; capacity * actions],
            value: vec![0.0; capacity],
            head: 0,
            len: 0,
            pushed: 0,
        })
    }

    /// Positions stored (at most the capacity).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is stored yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Positions held at most; older ones are overwritten.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Positions ever pushed.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Appends every position of `p` in order (overwriting the oldest).
    pub fn extend(&mut self, p: &Positions) -> Result<()> {
        let n = p.len();
        let length = |what, expected, found| RlError::Length { op: "PositionReplay::extend", what, expected, found };
        if p.obs.len() != n * self.obs_size {
            return Err(length("obs", n * self.obs_size, p.obs.len()));
        }
        if p.policy.len() != n * self.actions {
            return Err(length("policy", n * self.actions, p.policy.len()));
        }
        for i in 0..n {
            let slot = self.head;
            let (o, a) = (self.obs_size, self.actions);
            self.obs[slot * o..(slot + 1) * o].copy_from_slice(&p.obs[i * o..(i + 1) * o]);
            self.policy[slot * a..(slot + 1) * a].copy_from_slice(&p.policy[i * a..(i + 1) * a]);
            self.value[slot] = p.value[i];
            self.head = (slot + 1) % self.capacity;
            self.len = (self.len + 1).min(self.capacity);
            self.pushed += 1;
        }
        Ok(())
    }

    /// Draws `batch` positions uniformly (with replacement) into the
    /// caller's buffers: `obs` `[batch, obs_size]`, `policy` `[batch,
    /// actions]`, `value` `[batch]`.
    #[track_caller]
    pub fn sample_into(&self, rng: &mut impl Rng, obs: &mut [f32], policy: &mut [f32], value: &mut [f32]) {
        assert!(self.len > 0, "PositionReplay::sample_into: the buffer is empty");
        let (o, a) = (self.obs_size, self.actions);
        let batch = value.len();
        assert!(
            obs.len() == batch * o && policy.len() == batch * a,
            "PositionReplay::sample_into: buffers [{}], [{}], [{batch}] for rows of {o} and {a}",
            obs.len(),
            policy.len()
        );
        for b in 0..batch {
            let i = rng.random_range(0..self.len);
            obs[b * o..(b + 1) * o].copy_from_slice(&self.obs[i * o..(i + 1) * o]);
            policy[b * a..(b + 1) * a].copy_from_slice(&self.policy[i * a..(i + 1) * a]);
            value[b] = self.value[i];
        }
    }

    /// Arrays `p.obs` `[len, obs_size]`, `p.policy` `[len, actions]`,
    /// `p.value` `[len]` (slot order) and metadata under `p`.
    pub fn save(&self, prefix: &str) -> SavedState {
        let mut s = SavedState::new();
        let n = self.len;
        s.push_array(format!("{prefix}.obs"), &[n, self.obs_size], self.obs[..n * self.obs_size].to_vec());
        s.push_array(format!("{prefix}.policy"), &[n, self.actions], self.policy[..n * self.actions].to_vec());
        s.push_array(format!("{prefix}.value"), &[n], self.value[..n].to_vec());
        let meta = Meta {
            capacity: self.capacity,
            obs_size: self.obs_size,
            actions: self.actions,
            head: self.head,
            len: self.len,
            pushed: self.pushed,
        };
        s.push_meta(prefix.to_string(), &meta);
        s
    }

    /// Restores what [`save`](Self::save) wrote; checks everything before
    /// overwriting anything.
    pub fn restore(&mut self, src: &(impl StateSource + ?Sized), prefix: &str) -> Result<()> {
        let meta: Meta = read_meta(src, prefix)?;
        require_eq(prefix, "capacity", self.capacity, meta.capacity)?;
        require_eq(prefix, "obs_size", self.obs_size, meta.obs_size)?;
        require_eq(prefix, "actions", self.actions, meta.actions)?;
        if meta.len > self.capacity || meta.head >= self.capacity {
            return Err(crate::state::state_error(prefix, "head or len out of range"));
        }
        let n = meta.len;
        let obs = read_array(src, &format!("{prefix}.obs"), n * self.obs_size)?;
        let policy = read_array(src, &format!("{prefix}.policy"), n * self.actions)?;
        let value = read_array(src, &format!("{prefix}.value"), n)?;
        self.obs[..obs.len()].copy_from_slice(obs);
        self.policy[..policy.len()].copy_from_slice(policy);
        self.value[..n].copy_from_slice(value);
        (self.head, self.len, self.pushed) = (meta.head, meta.len, meta.pushed);
        Ok(())
    }
}
