use crate::Result;

/// One transition as a replay buffer stores it. From `obs`, taking
/// `action` earned `reward` and led to `next_obs`; the learner's target is
///
/// `reward + (1 - done) * discount * V(next_obs)`.
///
/// For an n-step transition `reward` is already the discounted sum
/// `sum_{k<m} gamma^k r_{t+k}` and `discount` is `gamma^m`, where `m <= n`
/// is the number of rewards actually summed (fewer than `n` near an
/// episode's end). `next_mask` holds the legal-action mask of `next_obs`
/// (1 legal, 0 not) when the buffer stores masks, and is empty otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transition<'a> {
    /// The observation the action was taken in.
    pub obs: &'a [f32],
    /// The action taken.
    pub action: u32,
    /// The reward earned (n-step: the discounted sum).
    pub reward: f32,
    /// The observation the transition bootstraps from.
    pub next_obs: &'a [f32],
    /// Legal actions in `next_obs` (1 legal, 0 not); empty when the buffer
    /// stores no masks.
    pub next_mask: &'a [f32],
    /// Terminal: the episode ended in `next_obs`, so nothing is
    /// bootstrapped. A time-limit truncation is not terminal.
    pub done: bool,
    /// Discount applied to `V(next_obs)`: `gamma^m` for `m` summed rewards.
    pub discount: f32,
}

impl<'a> Transition<'a> {
    /// A 1-step transition with discount `gamma` and no mask.
    pub fn one_step(obs: &'a [f32], action: u32, reward: f32, next_obs: &'a [f32], done: bool, gamma: f32) -> Self {
        Self { obs, action, reward, next_obs, next_mask: &[], done, discount: gamma }
    }
}

/// Where finished transitions go: a replay buffer, uniform or prioritized.
/// [`NStep`](crate::NStep) writes into any sink.
pub trait TransitionSink {
    /// Stores `t` and returns the slot it was written to.
    fn push_transition(&mut self, t: &Transition<'_>) -> Result<usize>;
}
