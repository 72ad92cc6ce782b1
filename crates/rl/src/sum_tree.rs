//! A binary sum tree over priorities, for sampling index `i` with
//! probability `p_i / sum p` in O(log n).

use crate::state::{SavedState, StateSource, read_array, read_meta, require_eq, state_error};
use crate::{Check, Result};
use rand::{Rng, RngCore};
use serde::{Deserialize, Serialize};

/// Priorities of `capacity` items in the leaves of a complete binary tree
/// (`width`, the next power of two, leaves; the padding leaves hold 0).
/// Nodes are heap-ordered in one array: the root is node 1, node `k` has
/// children `2k` and `2k + 1`, leaf `i` is node `width + i`.
///
/// Leaves are `f32` priorities held exactly in `f64` nodes, and an update
/// recomputes each ancestor as the sum of its two children rather than
/// adding a delta, so rounding never accumulates: the tree is always the
/// same function of its leaves, whatever the order of updates. That also
/// makes saving the leaves enough to restore it bit for bit.
#[derive(Clone, Debug, PartialEq)]
pub struct SumTree {
    capacity: usize,
    width: usize,
    nodes: Vec<f64>,
}

impl SumTree {
    /// A tree of `capacity` zero priorities.
    pub fn new(capacity: usize) -> Result<Self> {
        if capacity == 0 {
            return Err(Check("SumTree").count("capacity", "a value > 0", 0).into());
        }
        let width = capacity.next_power_of_two();
        Ok(Self { capacity, width, nodes: vec![0.0; 2 * width] })
    }

    /// Items the tree holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Sets the priority of item `i` (finite, >= 0); O(log capacity).
    #[track_caller]
    pub fn update(&mut self, i: usize, priority: f32) {
        assert!(i < self.capacity, "SumTree::update: index {i} out of range for capacity {}", self.capacity);
        assert!(
            priority.is_finite() && priority >= 0.0,
            "SumTree::update: priority {priority} of item {i} is not finite and >= 0"
        );
        let mut node = self.width + i;
        self.nodes[node] = priority as f64;
        while node > 1 {
            node /= 2;
            self.nodes[node] = self.nodes[2 * node] + self.nodes[2 * node + 1];
        }
    }

    /// The priority of item `i`.
    #[track_caller]
    pub fn get(&self, i: usize) -> f32 {
        assert!(i < self.capacity, "SumTree::get: index {i} out of range for capacity {}", self.capacity);
        self.nodes[self.width + i] as f32
    }

    /// The sum of all priorities.
    pub fn total(&self) -> f64 {
        self.nodes[1]
    }

    /// The item `i` whose cumulative range `[sum_{j<i} p_j, sum_{j<=i} p_j)`
    /// contains `prefix`. A prefix outside `[0, total)` (rounding at the
    /// edges) is taken as the nearest end. Never returns an item of
    /// priority 0. Needs `total() > 0`.
    #[track_caller]
    pub fn find(&self, prefix: f64) -> usize {
        assert!(self.total() > 0.0, "SumTree::find: all {} priorities are 0", self.capacity);
        let mut prefix = prefix.max(0.0);
        let mut node = 1;
        while node < self.width {
            let (left, right) = (self.nodes[2 * node], self.nodes[2 * node + 1]);
            // Only enter a subtree of positive mass: a prefix that rounding
            // pushed past the total ends on the last positive leaf.
            let right_side = prefix >= left && right > 0.0;
            if right_side {
                prefix -= left;
            }
            node = 2 * node + right_side as usize;
        }
        node - self.width
    }

    /// Stratified sampling (Schaul et al. 2016, appendix B.2.1): the total
    /// is cut into `out.len()` equal segments and one item is drawn in
    /// proportion to priority from each, which spreads a batch over the
    /// distribution with less variance than independent draws.
    #[track_caller]
    pub fn sample_stratified<R: RngCore + ?Sized>(&self, rng: &mut R, out: &mut [u32]) {
        let segment = self.total() / out.len() as f64;
        for (k, dst) in out.iter_mut().enumerate() {
            let u: f64 = rng.random();
            *dst = self.find((k as f64 + u) * segment) as u32;
        }
    }

    /// Saves the leaves as `prefix.priorities` (`[capacity]`) and the
    /// capacity as metadata `prefix`.
    pub fn save(&self, prefix: &str) -> SavedState {
        let mut state = SavedState::new();
        let leaves = self.nodes[self.width..self.width + self.capacity].iter().map(|&p| p as f32).collect();
        state.push_array(format!("{prefix}.priorities"), &[self.capacity], leaves);
        state.push_meta(prefix.to_string(), &SumTreeMeta { capacity: self.capacity });
        state
    }

    /// Restores what [`save`](Self::save) wrote under `prefix` into a tree
    /// of the same capacity; the inner sums are rebuilt from the leaves.
    pub fn restore(&mut self, prefix: &str, src: &(impl StateSource + ?Sized)) -> Result<()> {
        let meta: SumTreeMeta = read_meta(src, prefix)?;
        require_eq(prefix, "capacity", self.capacity, meta.capacity)?;
        let name = format!("{prefix}.priorities");
        let leaves = read_array(src, &name, self.capacity)?;
        if let Some(p) = leaves.iter().find(|p| !(p.is_finite() && **p >= 0.0)) {
            return Err(state_error(&name, format!("priority {p} is not finite and >= 0")));
        }
        for (node, &p) in self.nodes[self.width..].iter_mut().zip(leaves) {
            *node = p as f64;
        }
        for node in (1..self.width).rev() {
            self.nodes[node] = self.nodes[2 * node] + self.nodes[2 * node + 1];
        }
        Ok(())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SumTreeMeta {
    capacity: usize,
}
