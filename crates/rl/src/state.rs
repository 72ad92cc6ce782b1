//! Saved state for exact resume, in the shape a checkpoint stores: named
//! flat `f32` arrays (each with its dims) and JSON metadata by key.
//!
//! A component saved under a prefix `p` writes arrays named `p.<field>` and
//! one JSON document under the key `p`; the names are listed on each
//! component's `save`. Integer arrays (actions, flags) are stored as their
//! values in `f32`, which is exact because every such value is below
//! [`MAX_EXACT_INT`] (checked when the value enters the buffer). Counters
//! and RNG states go into the JSON, where `u64`/`u128` are exact.
//!
//! | component | arrays (`p.` + name: dims) | metadata `key` |
//! |---|---|---|
//! | [`ReplayBuffer`](crate::ReplayBuffer) | `obs`, `next_obs`: `[len, obs_size]`; `next_mask`: `[len, num_actions]` (if stored); `actions`, `rewards`, `dones`, `discounts`: `[len]` | `p`: config, `head`, `len`, `pushed` |
//! | [`SumTree`](crate::SumTree) | `priorities`: `[capacity]` | `p`: `capacity` |
//! | [`PrioritizedReplay`](crate::PrioritizedReplay) | the buffer's under `p.`, the tree's under `p.tree.` | `p`, `p.tree`, `p.per`: settings, `max_priority` |
//! | [`NStep`](crate::NStep) | `obs`: `[pending, obs_size]`; `actions`, `rewards`: `[pending]`; `next_obs`: `[obs_size]`; `next_mask`: `[num_actions]` (if used) | `p`: config, shapes, `pending` |
//! | an RNG ([`save_rng`]) | none | `key`: the generator's serde form |
//!
//! Rows are in slot order (buffer) or oldest first (n-step). The sum
//! tree's inner sums are not saved: they are rebuilt from the leaves, which
//! gives back the same bits.
//!
//! Saving allocates (it copies); restoring checks every name, length and
//! config field before it overwrites anything, so a failed restore leaves
//! the receiver as it was.

use crate::{Result, RlError};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Every integer below this is exactly representable as an `f32`.
pub const MAX_EXACT_INT: u32 = 1 << 24;

/// One named array: row-major `values` of shape `dims`.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedArray {
    /// The array's name, `prefix.field`.
    pub name: String,
    /// Its shape.
    pub dims: Vec<usize>,
    /// Its values, row-major.
    pub values: Vec<f32>,
}

/// Named arrays plus JSON metadata; merge several components' states with
/// [`extend`](Self::extend) and hand them to a checkpoint writer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SavedState {
    /// The arrays, in the order they were pushed.
    pub arrays: Vec<SavedArray>,
    /// `(key, JSON document)`.
    pub meta: Vec<(String, String)>,
}

impl SavedState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds array `name` of shape `dims` (`values.len()` must be their
    /// product).
    pub fn push_array(&mut self, name: String, dims: &[usize], values: Vec<f32>) {
        debug_assert_eq!(dims.iter().product::<usize>(), values.len(), "SavedState::push_array '{name}'");
        self.arrays.push(SavedArray { name, dims: dims.to_vec(), values });
    }

    /// Stores `value` as JSON under `key`.
    pub fn push_meta(&mut self, key: String, value: &impl Serialize) {
        let json = serde_json::to_string(value).expect("replay metadata is plain numbers and always serialises");
        self.meta.push((key, json));
    }

    /// Appends another component's arrays and metadata.
    pub fn extend(&mut self, other: SavedState) {
        self.arrays.extend(other.arrays);
        self.meta.extend(other.meta);
    }
}

/// Where restored state comes from: a [`SavedState`], or a checkpoint read
/// back from disk.
pub trait StateSource {
    /// The values of array `name`, if saved.
    fn array(&self, name: &str) -> Option<&[f32]>;
    /// The JSON document under `key`, if saved.
    fn meta(&self, key: &str) -> Option<&str>;
}

impl StateSource for minnow_nn::Checkpoint {
    fn array(&self, name: &str) -> Option<&[f32]> {
        self.tensor(name)
    }

    fn meta(&self, key: &str) -> Option<&str> {
        minnow_nn::Checkpoint::meta(self, key)
    }
}

impl StateSource for SavedState {
    fn array(&self, name: &str) -> Option<&[f32]> {
        self.arrays.iter().find(|a| a.name == name).map(|a| a.values.as_slice())
    }

    fn meta(&self, key: &str) -> Option<&str> {
        self.meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

pub(crate) fn state_error(name: &str, detail: impl Into<String>) -> RlError {
    RlError::State { name: name.to_string(), detail: detail.into() }
}

/// The array `name`, which must hold exactly `len` values.
pub(crate) fn read_array<'a>(src: &'a (impl StateSource + ?Sized), name: &str, len: usize) -> Result<&'a [f32]> {
    let values = src.array(name).ok_or_else(|| state_error(name, "array is missing"))?;
    if values.len() != len {
        return Err(state_error(name, format!("expected {len} values, found {}", values.len())));
    }
    Ok(values)
}

/// The JSON document under `key`, decoded.
pub(crate) fn read_meta<T: DeserializeOwned>(src: &(impl StateSource + ?Sized), key: &str) -> Result<T> {
    let json = src.meta(key).ok_or_else(|| state_error(key, "metadata is missing"))?;
    serde_json::from_str(json).map_err(|e| state_error(key, format!("unreadable metadata: {e}")))
}

/// An error unless the saved `found` equals the receiver's `expected`.
pub(crate) fn require_eq<T: PartialEq + std::fmt::Display>(
    key: &str,
    field: &str,
    expected: T,
    found: T,
) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(state_error(key, format!("{field} is {found}, the receiver was built with {expected}")))
    }
}

/// Integers stored as `f32` values, checked to be whole and `< bound`.
pub(crate) fn check_ints(name: &str, values: &[f32], bound: u32) -> Result<()> {
    match values.iter().find(|&&v| !(v >= 0.0 && v < bound as f32 && v.fract() == 0.0)) {
        Some(v) => Err(state_error(name, format!("value {v} is not an integer in [0, {bound})"))),
        None => Ok(()),
    }
}

/// Saves an RNG (any serde-serialisable generator, such as the `rand_pcg`
/// ones) as JSON under `key`. Panics only if the generator's `Serialize`
/// fails, which `rand_pcg`'s never do.
pub fn save_rng<R: Serialize>(key: &str, rng: &R) -> SavedState {
    let mut state = SavedState::new();
    state.push_meta(key.to_string(), rng);
    state
}

/// The RNG saved by [`save_rng`] under `key`.
pub fn restore_rng<R: DeserializeOwned>(src: &(impl StateSource + ?Sized), key: &str) -> Result<R> {
    read_meta(src, key)
}
