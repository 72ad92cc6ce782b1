//! n-step returns: turns an episode's 1-step transitions into n-step ones
//! as they arrive.

use crate::state::{SavedState, StateSource, check_ints, read_array, read_meta, require_eq, state_error};
use crate::{Check, ReplayConfig, Result, RlError, Transition, TransitionSink};
use serde::{Deserialize, Serialize};

/// The longest n-step return supported.
pub const MAX_N: usize = 5;

/// How many rewards each replayed transition sums, and their discount.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NStepConfig {
    /// Rewards summed per transition, 1..=5 (1: plain 1-step transitions).
    pub n: usize,
    /// Discount per step, in [0, 1].
    pub gamma: f32,
}

impl NStepConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("NStepConfig");
        check.count_in("n", "a value in 1..=5", self.n as u64, 1, MAX_N as u64)?;
        check.unit_closed("gamma", self.gamma)?;
        Ok(())
    }

    /// An accumulator for one environment, emitting transitions shaped for
    /// a replay buffer built from `replay`.
    pub fn build(self, replay: &ReplayConfig) -> Result<NStep> {
        self.validate()?;
        replay.validate()?;
        let (n, o, m) = (self.n, replay.obs_size, replay.mask_size());
        Ok(NStep {
            config: self,
            obs_size: o,
            mask_size: m,
            num_actions: replay.num_actions,
            obs: vec![0.0; n * o],
            actions: vec![0; n],
            rewards: vec![0.0; n],
            next_obs: vec![0.0; o],
            next_mask: vec![0.0; m],
            start: 0,
            count: 0,
        })
    }
}

/// One environment step as the environment reports it.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// The observation the action was taken in.
    pub obs: &'a [f32],
    /// The action taken.
    pub action: u32,
    /// The reward the step earned.
    pub reward: f32,
    /// The observation after the step: for the last step of an episode,
    /// the final observation, not the next episode's first.
    pub next_obs: &'a [f32],
    /// Legal actions in `next_obs` (empty unless the replay stores masks).
    pub next_mask: &'a [f32],
    /// The episode ended in a terminal state: nothing to bootstrap.
    pub terminated: bool,
    /// The episode was cut short (a time limit): the return is truncated
    /// but the value of `next_obs` is still bootstrapped.
    pub truncated: bool,
}

/// Turns the 1-step transitions of one environment into n-step ones.
///
/// After each step it emits, into any [`TransitionSink`], the transition
/// that started `n` steps ago: reward `R = sum_{k<n} gamma^k r_{t+k}`,
/// next state `s_{t+n}`, discount `gamma^n`, not done. When an episode
/// ends it emits every pending transition at once, each with the rewards
/// up to the end (`m <= n` of them) and discount `gamma^m`; after a
/// terminal state they are done (no bootstrap), after a truncation they
/// are not, and bootstrap from the final observation.
///
/// Pending steps live in a ring of `n` preallocated slots; a push
/// allocates nothing. With several environments, keep one per environment.
#[derive(Clone, Debug)]
pub struct NStep {
    config: NStepConfig,
    obs_size: usize,
    mask_size: usize,
    num_actions: u32,
    /// `[n, obs_size]`, ring of pending steps' observations.
    obs: Vec<f32>,
    actions: Vec<u32>,
    rewards: Vec<f32>,
    /// The latest step's next observation and mask.
    next_obs: Vec<f32>,
    next_mask: Vec<f32>,
    /// Ring position of the oldest pending step.
    start: usize,
    count: usize,
}

impl NStep {
    /// The settings this accumulator was built with.
    pub fn config(&self) -> &NStepConfig {
        &self.config
    }

    /// Steps waiting for their n-step return.
    pub fn pending(&self) -> usize {
        self.count
    }

    fn check(&self, s: &Step<'_>) -> Result<()> {
        let op = "NStep::push";
        let length = |what, expected, found| RlError::Length { op, what, expected, found };
        if s.obs.len() != self.obs_size {
            return Err(length("obs", self.obs_size, s.obs.len()));
        }
        if s.next_obs.len() != self.obs_size {
            return Err(length("next_obs", self.obs_size, s.next_obs.len()));
        }
        if s.next_mask.len() != self.mask_size {
            return Err(length("next_mask", self.mask_size, s.next_mask.len()));
        }
        if s.action >= self.num_actions {
            return Err(RlError::Action { op, expected: self.num_actions, found: s.action });
        }
        if !s.reward.is_finite() {
            return Err(RlError::NonFinite { op, what: "reward", found: s.reward });
        }
        Ok(())
    }

    /// Records one step and emits whatever transitions it completes. The
    /// step is checked before anything changes; a sink of another shape
    /// than the replay config this was built for fails on its first
    /// emission, after the step is recorded.
    pub fn push(&mut self, s: &Step<'_>, sink: &mut (impl TransitionSink + ?Sized)) -> Result<()> {
        self.check(s)?;
        let (n, o) = (self.config.n, self.obs_size);
        let slot = (self.start + self.count) % n;
        self.obs[slot * o..(slot + 1) * o].copy_from_slice(s.obs);
        self.actions[slot] = s.action;
        self.rewards[slot] = s.reward;
        self.count += 1;
        self.next_obs.copy_from_slice(s.next_obs);
        self.next_mask.copy_from_slice(s.next_mask);
        if s.terminated || s.truncated {
            self.flush(s.terminated, sink)
        } else if self.count == n {
            self.emit_oldest(false, sink)
        } else {
            Ok(())
        }
    }

    /// Ends the episode now: emits every pending transition, bootstrapped
    /// from the last next observation unless `terminal`. Use it when an
    /// episode stops without its step saying so.
    pub fn flush(&mut self, terminal: bool, sink: &mut (impl TransitionSink + ?Sized)) -> Result<()> {
        while self.count > 0 {
            self.emit_oldest(terminal, sink)?;
        }
        self.start = 0;
        Ok(())
    }

    /// Drops the pending steps without emitting them.
    pub fn clear(&mut self) {
        (self.start, self.count) = (0, 0);
    }

    /// Emits the oldest pending step with all `count` rewards after it.
    fn emit_oldest(&mut self, done: bool, sink: &mut (impl TransitionSink + ?Sized)) -> Result<()> {
        let (n, o, m) = (self.config.n, self.obs_size, self.count);
        let gamma = self.config.gamma as f64;
        // Horner from the newest reward back: r_0 + g (r_1 + g (r_2 + ..)).
        let mut ret = 0.0f64;
        for k in (0..m).rev() {
            ret = self.rewards[(self.start + k) % n] as f64 + gamma * ret;
        }
        let slot = self.start;
        let t = Transition {
            obs: &self.obs[slot * o..(slot + 1) * o],
            action: self.actions[slot],
            reward: ret as f32,
            next_obs: &self.next_obs,
            next_mask: &self.next_mask,
            done,
            discount: gamma.powi(m as i32) as f32,
        };
        sink.push_transition(&t)?;
        self.start = (self.start + 1) % n;
        self.count -= 1;
        Ok(())
    }

    /// Saves the pending steps under `prefix`, oldest first: arrays
    /// `prefix.obs` (`[pending, obs_size]`), `prefix.actions`,
    /// `prefix.rewards` (`[pending]`), `prefix.next_obs` (`[obs_size]`),
    /// `prefix.next_mask` (`[num_actions]`, only when masks are used);
    /// metadata `prefix`: the config, shapes and the pending count.
    pub fn save(&self, prefix: &str) -> SavedState {
        let (n, o, c) = (self.config.n, self.obs_size, self.count);
        let order = || (0..c).map(|k| (self.start + k) % n);
        let obs = order().flat_map(|s| self.obs[s * o..(s + 1) * o].iter().copied()).collect();
        let mut state = SavedState::new();
        state.push_array(format!("{prefix}.obs"), &[c, o], obs);
        state.push_array(format!("{prefix}.actions"), &[c], order().map(|s| self.actions[s] as f32).collect());
        state.push_array(format!("{prefix}.rewards"), &[c], order().map(|s| self.rewards[s]).collect());
        state.push_array(format!("{prefix}.next_obs"), &[o], self.next_obs.clone());
        if self.mask_size > 0 {
            state.push_array(format!("{prefix}.next_mask"), &[self.mask_size], self.next_mask.clone());
        }
        let meta = NStepMeta {
            config: self.config,
            obs_size: o,
            mask_size: self.mask_size,
            num_actions: self.num_actions,
            pending: c,
        };
        state.push_meta(prefix.to_string(), &meta);
        state
    }

    /// Restores what [`save`](Self::save) wrote under `prefix` into an
    /// accumulator built with the same configs. On an error nothing changes.
    pub fn restore(&mut self, prefix: &str, src: &(impl StateSource + ?Sized)) -> Result<()> {
        let meta: NStepMeta = read_meta(src, prefix)?;
        require_eq(prefix, "n", self.config.n, meta.config.n)?;
        require_eq(prefix, "gamma", self.config.gamma, meta.config.gamma)?;
        require_eq(prefix, "obs_size", self.obs_size, meta.obs_size)?;
        require_eq(prefix, "mask_size", self.mask_size, meta.mask_size)?;
        require_eq(prefix, "num_actions", self.num_actions, meta.num_actions)?;
        let (o, c) = (self.obs_size, meta.pending);
        // A full ring is always emitted at once, so at most n - 1 wait.
        if c >= self.config.n {
            return Err(state_error(prefix, format!("{c} pending steps, expected fewer than n = {}", self.config.n)));
        }
        let name = |field: &str| format!("{prefix}.{field}");
        let obs = read_array(src, &name("obs"), c * o)?;
        let actions = read_array(src, &name("actions"), c)?;
        check_ints(&name("actions"), actions, self.num_actions)?;
        let rewards = read_array(src, &name("rewards"), c)?;
        let next_obs = read_array(src, &name("next_obs"), o)?;
        let next_mask = if self.mask_size > 0 { read_array(src, &name("next_mask"), self.mask_size)? } else { &[] };

        self.obs[..c * o].copy_from_slice(obs);
        for (dst, &a) in self.actions.iter_mut().zip(actions) {
            *dst = a as u32;
        }
        self.rewards[..c].copy_from_slice(rewards);
        self.next_obs.copy_from_slice(next_obs);
        self.next_mask.copy_from_slice(next_mask);
        (self.start, self.count) = (0, c);
        Ok(())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NStepMeta {
    config: NStepConfig,
    obs_size: usize,
    mask_size: usize,
    num_actions: u32,
    pending: usize,
}
