//! Every DQN hyperparameter, with documented defaults and validation.

use super::{CurriculumConfig, MemoryConfig, QNetworkConfig};
use crate::{Check, MAX_N, Result};
use minnow_optim::{AdamConfig, Decay, Schedule, ScheduleConfig};
use serde::{Deserialize, Serialize};

/// How the target network follows the online one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TargetUpdate {
    /// Copy the online weights every `every` gradient updates.
    Hard {
        /// Gradient updates between copies, at least 1.
        every: u64,
    },
    /// After every update, `target = tau * online + (1 - tau) * target`.
    Polyak {
        /// The online network's share per update, in (0, 1].
        tau: f32,
    },
}

/// Ape-X's spread of exploration rates over the envs: env `i` of `n`
/// explores with `base^(1 + alpha * i / (n - 1))` (0.4 and 7 in the paper:
/// from 0.4 down to 0.0007), so some actors explore widely while others
/// follow the greedy policy closely.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerEnvEpsilon {
    /// Rate of the first env, in [0, 1] (the paper's 0.4).
    pub base: f32,
    /// Exponent spread: the last env explores with `base^(1 + alpha)`
    /// (the paper's 7).
    pub alpha: f32,
}

impl PerEnvEpsilon {
    /// Exploration rate of env `i` of `n`.
    pub fn rate(&self, i: usize, n: usize) -> f32 {
        let position = if n > 1 { i as f32 / (n - 1) as f32 } else { 0.0 };
        self.base.powf(1.0 + self.alpha * position)
    }
}

/// A DQN learner and its acting loop, in sections: the network, the
/// optimiser and its learning-rate decay, the replay memory, exploration.
/// The defaults are a sound start for small discrete tasks; tuned presets
/// live with the tasks (the shipped ones in `minnow-tasks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DqnConfig {
    /// Seeds the network's initialisation, exploration, replay sampling
    /// and the environments (default 0).
    pub seed: u64,
    /// The Q network's hidden layers and head.
    pub network: QNetworkConfig,
    /// Double DQN: the online network picks the next action, the target scores it.
    pub double: bool,
    /// Discount per step, in [0, 1].
    pub gamma: f32,
    /// Rewards summed per transition, 1..=5.
    pub n_step: usize,
    /// Learn every action of each sampled state at once: the environment's
    /// model (`DqnEnv::model`) gives each action's next state and reward,
    /// and each is bootstrapped as the taken action is in plain DQN (with
    /// six actions, six targets per position instead of one). Needs an
    /// environment with a model, `n_step` 1 and uniform replay.
    pub all_actions: bool,
    /// Learn values of afterstates, where an action leads before the
    /// environment's chance event (a board game: the board after the move,
    /// before the dice or the new tile), and act on
    /// `Q(s, a) = r(s, a) + V(afterstate)` through the environment's
    /// afterstates (`DqnEnv::afterstate_model`). The network has one
    /// output and need not learn what the moves do, only how good their
    /// results are. Needs `n_step` 1.
    pub afterstates: bool,
    /// Evaluate greedily on Q (with `afterstates`, V) averaged over the
    /// environment's symmetric views of each state (`DqnEnv::symmetries`;
    /// a square board has 8), one forward pass per view. Acting while
    /// training stays on one view.
    pub symmetric_eval: bool,
    /// Transitions per gradient update (default 64).
    pub batch_size: usize,
    /// The replay memory: its capacity, and prioritized or uniform sampling.
    pub replay: MemoryConfig,
    /// Environments stepped together, one batched forward pass per step.
    pub num_envs: usize,
    /// Threads the network's large matrix products and the optimiser step
    /// split over (rayon's pool; 1 keeps everything on the calling thread).
    /// Results do not depend on it.
    pub threads: usize,
    /// Environment steps (over all envs) before the first update.
    pub learning_starts: u64,
    /// Gradient updates after each vector step (of `num_envs` env steps).
    pub updates_per_step: usize,
    /// Adam; its `lr` is the learning rate before any decay.
    pub optimizer: AdamConfig,
    /// How the learning rate moves from `optimizer.lr` as a function of
    /// environment steps (`constant`; `linear` to an end value, which
    /// keeps late updates from undoing a policy that has converged).
    /// Schedules run on fixed horizons, not on `env_steps`, so a run
    /// extended with a larger `env_steps` continues exactly.
    pub lr_decay: Decay,
    /// Clip the gradient's global L2 norm to this (0: no clipping).
    pub max_grad_norm: f32,
    /// Where the Huber loss turns from quadratic to linear, in TD-error
    /// units (default 1).
    pub huber_delta: f32,
    /// Rewards are multiplied by this before they are stored (returns and
    /// scores reported stay in the environment's units).
    pub reward_scale: f32,
    /// How the target network follows the online one (default: Polyak, tau
    /// 0.01).
    pub target: TargetUpdate,
    /// Exploration rate as a function of environment steps, in [0, 1].
    pub epsilon: ScheduleConfig,
    /// Per-env exploration rates (each env explores with the larger of
    /// its own rate and the schedule's); `None`: the schedule alone.
    pub per_env_epsilon: Option<PerEnvEpsilon>,
    /// Raise the task's difficulty as the agent succeeds (the environment
    /// reads the level in `DqnEnv::start_episode`); `None` keeps the
    /// environment's own starts.
    pub curriculum: Option<CurriculumConfig>,
    /// Training length in environment steps.
    pub env_steps: u64,
    /// Environment steps between evaluations (default 10,000).
    pub eval_every: u64,
    /// Environment steps between checkpoints (default 50,000). At each
    /// checkpoint boundary every running episode is cut (a time-limit
    /// truncation, bootstrapped); a stop between boundaries cuts none (its
    /// checkpoint carries the episodes under way).
    pub checkpoint_every: u64,
}

impl Default for DqnConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            network: QNetworkConfig::default(),
            double: true,
            gamma: 0.99,
            n_step: 3,
            all_actions: false,
            afterstates: false,
            symmetric_eval: false,
            batch_size: 64,
            replay: MemoryConfig::default(),
            num_envs: 8,
            threads: 1,
            learning_starts: 1_000,
            updates_per_step: 1,
            optimizer: AdamConfig::default(),
            lr_decay: Decay::Constant,
            max_grad_norm: 10.0,
            huber_delta: 1.0,
            reward_scale: 1.0,
            target: TargetUpdate::Polyak { tau: 0.01 },
            epsilon: ScheduleConfig::linear(1.0, 20_000, 0.01),
            per_env_epsilon: None,
            curriculum: None,
            env_steps: 100_000,
            eval_every: 10_000,
            checkpoint_every: 50_000,
        }
    }
}

impl DqnConfig {
    /// An error naming the first field out of range (sections by their
    /// key: `replay.capacity`, `epsilon.decay.end`).
    pub fn validate(&self) -> Result<()> {
        let check = Check("DqnConfig");
        let hidden = &self.network.hidden;
        if hidden.is_empty() || hidden.contains(&0) {
            return Err(check.count("network.hidden", "one or more layer widths > 0", 0).into());
        }
        check.unit_closed("gamma", self.gamma)?;
        check.count_in("n_step", "a value in 1..=5", self.n_step as u64, 1, MAX_N as u64)?;
        // Both model-based options take their targets one step ahead.
        let one_step = |why: &'static str| check.count_in("n_step", why, self.n_step as u64, 1, 1);
        if self.all_actions {
            one_step("1 with all_actions (targets are one step of the model)")?;
            if self.replay.prioritized {
                return Err(check
                    .count("replay.prioritized", "false with all_actions (priorities are per transition)", 1)
                    .into());
            }
        }
        if self.afterstates {
            one_step("1 with afterstates (the next action's reward is part of its Q)")?;
            if self.all_actions {
                return Err(check.count("all_actions", "false with afterstates", 1).into());
            }
        }
        check.count_in("batch_size", "a value >= 1", self.batch_size as u64, 1, u64::MAX)?;
        let capacity = self.replay.capacity as u64;
        check.count_in("replay.capacity", "at least batch_size", capacity, self.batch_size as u64, u64::MAX)?;
        check.count_in(
            "learning_starts",
            "in batch_size..=replay.capacity",
            self.learning_starts,
            self.batch_size as u64,
            capacity,
        )?;
        check.unit_closed("replay.alpha", self.replay.alpha)?;
        check.unit_closed("replay.beta_start", self.replay.beta_start)?;
        check.count_in("num_envs", "a value in 1..=4096", self.num_envs as u64, 1, 4096)?;
        check.count_in("threads", "a value in 1..=256", self.threads as u64, 1, 256)?;
        check.count_in("updates_per_step", "a value in 0..=64", self.updates_per_step as u64, 0, 64)?;
        check.positive("optimizer.lr", self.optimizer.lr)?;
        check.positive("optimizer.eps", self.optimizer.eps)?;
        if let Decay::Linear { end, .. } = self.lr_decay {
            check.unit_closed("lr_decay.end", end)?;
        }
        self.lr_schedule()?;
        if !(self.max_grad_norm >= 0.0 && self.max_grad_norm.is_finite()) {
            return Err(check
                .value("max_grad_norm", "a finite value >= 0 (0: no clipping)", self.max_grad_norm)
                .into());
        }
        check.positive("huber_delta", self.huber_delta)?;
        check.positive("reward_scale", self.reward_scale)?;
        match self.target {
            TargetUpdate::Hard { every } => check.count_in("target.every", "a value >= 1", every, 1, u64::MAX)?,
            TargetUpdate::Polyak { tau } => check.fraction("target.tau", tau)?,
        }
        check.unit_closed("epsilon.base", self.epsilon.base)?;
        match self.epsilon.decay {
            Decay::Linear { end, .. } => check.unit_closed("epsilon.decay.end", end)?,
            Decay::Exponential { min, .. } => check.unit_closed("epsilon.decay.min", min)?,
            Decay::Cosine { eta_min, .. } | Decay::CosineHold { eta_min, .. } => {
                check.unit_closed("epsilon.decay.eta_min", eta_min)?
            }
            Decay::Constant | Decay::Step { .. } => {}
        }
        self.epsilon.validate()?;
        if let Some(p) = &self.per_env_epsilon {
            check.unit_closed("per_env_epsilon.base", p.base)?;
            if !(p.alpha >= 0.0 && p.alpha.is_finite()) {
                return Err(check.value("per_env_epsilon.alpha", "a finite value >= 0", p.alpha).into());
            }
        }
        if let Some(curriculum) = &self.curriculum {
            curriculum.validate()?;
        }
        check.count_in("env_steps", "a value >= 1", self.env_steps, 1, u64::MAX)?;
        check.count_in("eval_every", "a value >= 1", self.eval_every, 1, u64::MAX)?;
        check.count_in("checkpoint_every", "a value >= 1", self.checkpoint_every, 1, u64::MAX)?;
        Ok(())
    }

    /// The learning rate as a function of environment steps.
    pub fn lr_schedule(&self) -> Result<Schedule> {
        Ok(ScheduleConfig { base: self.optimizer.lr, warmup: None, decay: self.lr_decay }.build()?)
    }

    /// The memory a learner of this config needs, roughly, in bytes, for
    /// observations of `obs_size` values and `actions` actions: the online
    /// and target networks with gradients and Adam's moments, the replay
    /// memory, and the activations of a batch.
    pub fn memory_bytes(&self, obs_size: usize, actions: usize) -> f64 {
        let (o, a) = (obs_size as f64, actions as f64);
        let net = &self.network;
        let mut params = 0.0;
        let mut inputs = o;
        for &width in &net.hidden {
            let w = width as f64;
            params += (inputs + 1.0) * w + if net.layer_norm { 2.0 * w } else { 0.0 };
            inputs = w;
        }
        params += (inputs + 1.0) * if net.dueling { a + 1.0 } else { a };
        // Each transition: an observation and the next, the next state's
        // action mask, and a few scalars and priorities.
        let replay = self.replay.capacity as f64 * (2.0 * o + a + 8.0);
        let hidden: f64 = net.hidden.iter().map(|&w| w as f64).sum();
        let rows = self.batch_size as f64 * if self.all_actions { a + 1.0 } else { 2.0 } + self.num_envs as f64;
        let activations = rows * (hidden + o + a) * 16.0;
        4.0 * (5.0 * params + replay + activations)
    }

    /// What must match for a checkpoint to resume under this config:
    /// every setting that shapes the run, as JSON (a mismatch is reported
    /// by its key). Only the step budget, the cadences and the thread
    /// count (results are identical on any count) may change on a resume.
    pub fn identity(&self) -> String {
        minnow_train::config_identity(self, &["env_steps", "eval_every", "checkpoint_every", "threads"])
    }
}
