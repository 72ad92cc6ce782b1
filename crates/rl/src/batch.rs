use minnow_arena::AlignedBuf;

/// A minibatch, preallocated for up to `capacity` transitions and filled
/// in place by `sample_into`. Row `k` of each field belongs to the
/// transition stored in slot `indices()[k]`.
///
/// Shapes (B = `len()`): `obs`, `next_obs` are `[B, obs_size]`,
/// `next_mask` is `[B, mask_size]`, the rest `[B]`. `weights` are the
/// importance-sampling weights to multiply each sample's loss by (all 1
/// for uniform replay).
#[derive(Clone, Debug)]
pub struct Batch {
    capacity: usize,
    len: usize,
    obs_size: usize,
    mask_size: usize,
    pub(crate) indices: Vec<u32>,
    pub(crate) obs: AlignedBuf,
    pub(crate) next_obs: AlignedBuf,
    pub(crate) next_mask: AlignedBuf,
    pub(crate) actions: Vec<u32>,
    pub(crate) rewards: Vec<f32>,
    pub(crate) dones: Vec<f32>,
    pub(crate) discounts: Vec<f32>,
    pub(crate) weights: Vec<f32>,
}

impl Batch {
    /// Room for `capacity` transitions of `obs_size` floats each, with
    /// next-state masks of `mask_size` floats (0: none).
    pub fn new(capacity: usize, obs_size: usize, mask_size: usize) -> Self {
        Self {
            capacity,
            len: 0,
            obs_size,
            mask_size,
            indices: vec![0; capacity],
            obs: AlignedBuf::zeros(capacity * obs_size),
            next_obs: AlignedBuf::zeros(capacity * obs_size),
            next_mask: AlignedBuf::zeros(capacity * mask_size),
            actions: vec![0; capacity],
            rewards: vec![0.0; capacity],
            dones: vec![0.0; capacity],
            discounts: vec![0.0; capacity],
            weights: vec![0.0; capacity],
        }
    }

    pub(crate) fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.capacity);
        self.len = len;
    }

    /// Transitions the buffers hold at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Transitions in the last sample.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the last sample was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Floats per observation.
    pub fn obs_size(&self) -> usize {
        self.obs_size
    }

    /// Floats per next-state mask (0: no masks).
    pub fn mask_size(&self) -> usize {
        self.mask_size
    }

    /// The replay slots sampled; pass them back to
    /// [`update_priorities`](crate::PrioritizedReplay::update_priorities).
    pub fn indices(&self) -> &[u32] {
        &self.indices[..self.len]
    }

    /// Observations, `[len, obs_size]`.
    pub fn obs(&self) -> &[f32] {
        &self.obs[..self.len * self.obs_size]
    }

    /// Next observations, `[len, obs_size]`.
    pub fn next_obs(&self) -> &[f32] {
        &self.next_obs[..self.len * self.obs_size]
    }

    /// Legal-action masks of the next observations, `[len, mask_size]` (1
    /// legal, 0 not).
    pub fn next_mask(&self) -> &[f32] {
        &self.next_mask[..self.len * self.mask_size]
    }

    /// Actions taken, `[len]`.
    pub fn actions(&self) -> &[u32] {
        &self.actions[..self.len]
    }

    /// Rewards (for n-step transitions, the discounted sum), `[len]`.
    pub fn rewards(&self) -> &[f32] {
        &self.rewards[..self.len]
    }

    /// 1.0 where the transition ended its episode (no bootstrap), else 0.0.
    pub fn dones(&self) -> &[f32] {
        &self.dones[..self.len]
    }

    /// The bootstrap discount of each transition, `gamma^m`.
    pub fn discounts(&self) -> &[f32] {
        &self.discounts[..self.len]
    }

    /// Importance-sampling weights, max-normalised (all 1 when uniform).
    pub fn weights(&self) -> &[f32] {
        &self.weights[..self.len]
    }
}
