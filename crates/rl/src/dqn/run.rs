//! The DQN training loop: many environments stepped together (one batched
//! forward pass picks all their actions), n-step transitions into replay,
//! gradient updates, a curriculum, and episode statistics.

use super::env::{afterstates_of, model_of, symmetries_of};
use super::running::Running;
use super::shards::Shards;
use super::{Curriculum, DqnConfig, DqnEnv, DqnLearner, UpdateStats};
use crate::state::state_error;
use crate::{NStep, NStepConfig, Result, RlError, Step, splitmix};
use minnow_dist::Collective;
use minnow_envs::{check_env_sizes, legal_mask_checked, observe_checked};
use minnow_optim::Schedule;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::rc::Rc;

/// The curriculum judges success only on episodes of envs exploring at
/// most this much.
pub const CURRICULUM_EPSILON: f32 = 0.05;

/// How many finished episodes the running statistics cover.
pub const RECENT_EPISODES: usize = 100;

/// Returns, lengths and successes of the last [`RECENT_EPISODES`] episodes.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecentEpisodes {
    /// Episode returns, in the environment's reward units (a ring once full).
    pub returns: Vec<f32>,
    /// Episode lengths in steps.
    pub lengths: Vec<u32>,
    /// Whether each episode succeeded; `None` where the environment
    /// judges no success ([`DqnEnv::succeeded`]).
    pub successes: Vec<Option<bool>>,
    /// Episodes finished since the start of training.
    pub total: u64,
}

impl RecentEpisodes {
    /// Empty, with room for all [`RECENT_EPISODES`] (pushing never allocates).
    pub fn new() -> Self {
        let mut recent = Self::default();
        recent.reserve();
        recent
    }

    pub(crate) fn reserve(&mut self) {
        let room = RECENT_EPISODES.saturating_sub(self.returns.len());
        self.returns.reserve_exact(room);
        self.lengths.reserve_exact(room);
        self.successes.reserve_exact(room);
    }

    fn push(&mut self, ret: f32, len: u32, success: Option<bool>) {
        let slot = (self.total % RECENT_EPISODES as u64) as usize;
        if self.returns.len() < RECENT_EPISODES {
            self.returns.push(ret);
            self.lengths.push(len);
            self.successes.push(success);
        } else {
            (self.returns[slot], self.lengths[slot], self.successes[slot]) = (ret, len, success);
        }
        self.total += 1;
    }

    /// Mean return over the recent episodes (NaN with none).
    pub fn mean_return(&self) -> f32 {
        mean(self.returns.iter().copied())
    }

    /// Mean length over the recent episodes (NaN with none).
    pub fn mean_length(&self) -> f32 {
        mean(self.lengths.iter().map(|&l| l as f32))
    }

    /// Share of the recent episodes that succeeded, of those the
    /// environment judged, in [0, 1] (NaN before any episode has ended,
    /// like the means); `None` when episodes have ended and none was
    /// judged (the environment has no notion of success,
    /// [`DqnEnv::succeeded`]), so a report leaves it out rather than show
    /// 0%.
    pub fn success_rate(&self) -> Option<f32> {
        if self.successes.is_empty() {
            return Some(f32::NAN);
        }
        let judged = self.successes.iter().flatten();
        let n = judged.clone().count();
        (n > 0).then(|| judged.filter(|&&s| s).count() as f32 / n as f32)
    }
}

pub(super) fn mean(values: impl ExactSizeIterator<Item = f32>) -> f32 {
    let n = values.len();
    if n == 0 { f32::NAN } else { values.sum::<f32>() / n as f32 }
}

/// A DQN agent training on `num_envs` copies of `E`.
#[derive(Debug)]
pub struct DqnRun<E: DqnEnv> {
    pub(crate) learner: DqnLearner,
    envs: Vec<E>,
    n_steps: Vec<NStep>,
    /// `[num_envs, obs_size]`: each env's current observation.
    obs: Vec<f32>,
    masks: Vec<u64>,
    greedy: Vec<u32>,
    next_obs: Vec<f32>,
    next_mask: Vec<f32>,
    returns: Vec<f32>,
    lengths: Vec<u32>,
    difficulty: Vec<usize>,
    /// Each env's episode under way, as what replays it (for a checkpoint
    /// between boundaries).
    running: Vec<Running>,
    /// The exploration rate by environment step.
    epsilon: Schedule,
    /// Draws epsilon-greedy exploration.
    pub(crate) rng: Pcg64Mcg,
    /// Episodes started so far: episode k's seed derives from (seed, k).
    pub(crate) episodes: u64,
    pub(crate) env_steps: u64,
    pub(crate) curriculum: Option<Curriculum>,
    pub(crate) recent: RecentEpisodes,
    /// Every env must start a new episode before the next step (at the
    /// beginning, after a checkpoint boundary and after resuming from one).
    fresh: bool,
    last_update: Option<UpdateStats>,
}

impl<E: DqnEnv> DqnRun<E> {
    /// `env` is the prototype every copy starts from.
    pub fn new(config: &DqnConfig, env: E) -> Result<Self> {
        config.validate()?;
        check_env_sizes(&env)?;
        // Each option the config sets needs its capability.
        if config.all_actions {
            model_of(&env)?;
        }
        if config.afterstates {
            afterstates_of(&env)?;
        }
        if config.symmetric_eval {
            symmetries_of(&env)?;
        }
        let (o, a, n) = (env.observation_size(), env.action_count(), config.num_envs);
        let learner = DqnLearner::new(config, o, a, E::MASKED)?;
        let n_step = NStepConfig { n: config.n_step, gamma: config.gamma }.build(&learner.replay_config())?;
        let curriculum = config.curriculum.map(Curriculum::new).transpose()?;
        let mask_size = if learner.replay_config().store_next_mask { a } else { 0 };
        Ok(Self {
            learner,
            envs: vec![env; n],
            n_steps: vec![n_step; n],
            obs: vec![0.0; n * o],
            masks: vec![0; n],
            greedy: vec![0; n],
            next_obs: vec![0.0; o],
            next_mask: vec![0.0; mask_size],
            returns: vec![0.0; n],
            lengths: vec![0; n],
            difficulty: vec![0; n],
            // Not `vec![..; n]`: a clone would drop the room reserved.
            running: (0..n).map(|_| Running::new()).collect(),
            epsilon: config.epsilon.build()?,
            rng: Pcg64Mcg::seed_from_u64(config.seed ^ 0x0ac7_1e55),
            episodes: 0,
            env_steps: 0,
            curriculum,
            recent: RecentEpisodes::new(),
            fresh: true,
            last_update: None,
        })
    }

    /// This run's part in data-parallel training over `comm`'s ranks, for
    /// [`DqnRun::step_sharded`].
    pub fn shards(&self, comm: Rc<dyn Collective>) -> Result<Shards> {
        self.learner.shards(comm)
    }

    /// The run's settings.
    pub fn config(&self) -> &DqnConfig {
        &self.learner.config
    }

    /// The learner: networks, optimiser and replay.
    pub fn learner(&self) -> &DqnLearner {
        &self.learner
    }

    /// The learner, mutably (for a task's evaluation).
    pub fn learner_mut(&mut self) -> &mut DqnLearner {
        &mut self.learner
    }

    /// Environment steps so far, over all envs.
    pub fn env_steps(&self) -> u64 {
        self.env_steps
    }

    /// Statistics of the recent finished episodes.
    pub fn recent(&self) -> &RecentEpisodes {
        &self.recent
    }

    /// The curriculum level (0 without a curriculum).
    pub fn level(&self) -> usize {
        self.curriculum.map_or(0, |c| c.level)
    }

    /// The scheduled exploration rate (env 0's, with per-env rates).
    pub fn epsilon(&self) -> f32 {
        self.env_epsilon(0)
    }

    /// Env `i`'s exploration rate now: the schedule's, or with per-env
    /// rates the larger of the schedule's and the env's own.
    fn env_epsilon(&self, i: usize) -> f32 {
        let scheduled = self.epsilon.value_at(self.env_steps);
        match self.learner.config.per_env_epsilon {
            None => scheduled,
            Some(p) => scheduled.max(p.rate(i, self.envs.len())),
        }
    }

    /// The last update's loss and mean Q (none before learning starts).
    pub fn last_update(&self) -> Option<UpdateStats> {
        self.last_update
    }

    /// Whether the run has taken `env_steps` environment steps.
    pub fn is_done(&self) -> bool {
        self.env_steps >= self.learner.config.env_steps
    }

    /// Whether the run stands at a checkpoint boundary: every episode was
    /// cut there and none is under way.
    pub fn at_boundary(&self) -> bool {
        self.fresh
    }

    /// One vector step: every env takes one epsilon-greedy action, then
    /// `updates_per_step` gradient updates once learning has started. At a
    /// checkpoint boundary every episode is cut. The run can be saved
    /// after any step.
    pub fn step(&mut self) -> Result<()> {
        self.step_with(None)
    }

    /// [`DqnRun::step`] as one rank of a data-parallel run: every rank acts
    /// the same (the same replay everywhere) and samples the same batches,
    /// computes the gradient of its shard of each batch's rows, and one
    /// fixed-order sum gives every rank the update the whole batch gives
    /// one process (up to the order in which the rows' gradients add). The
    /// ranks agree in the step whether any was asked to stop
    /// ([`Shards::stop_requested`]). Every rank must step alike; rank 0
    /// alone should write the run.
    pub fn step_sharded(&mut self, shards: &mut Shards) -> Result<()> {
        let c = &self.learner.config;
        let expected = c.batch_size * self.learner.targets_per_state();
        if shards.q.len() != expected {
            let what = "the shards' Q buffer (made by another run's DqnRun::shards?)";
            return Err(RlError::Length { op: "DqnRun::step_sharded", what, expected, found: shards.q.len() });
        }
        self.step_with(Some(shards))
    }

    fn step_with(&mut self, mut shards: Option<&mut Shards>) -> Result<()> {
        if self.fresh {
            for i in 0..self.envs.len() {
                self.start_episode(i)?;
            }
            self.fresh = false;
        }
        self.learner.greedy(&self.envs[0], &self.obs, &self.masks, &mut self.greedy)?;
        let o = self.next_obs.len();
        for i in 0..self.envs.len() {
            let action = if self.rng.random::<f32>() < self.env_epsilon(i) {
                random_legal(self.masks[i], &mut self.rng)
            } else {
                self.greedy[i]
            };
            if let Some(afterstate) = self.learner.afterstate(i, action) {
                // The transition starts where the action leads (its reward is part of Q).
                self.obs[i * o..(i + 1) * o].copy_from_slice(afterstate);
            }
            self.act(i, action)?;
        }
        let (starts, batch, updates) = {
            let c = &self.learner.config;
            (c.learning_starts, c.batch_size, c.updates_per_step)
        };
        let before = self.env_steps;
        self.env_steps += self.envs.len() as u64;
        if let Some(shards) = shards.as_deref_mut() {
            shards.stop = false;
        }
        let learns = self.env_steps >= starts && self.learner.memory.len() >= batch;
        if learns {
            self.learner.anneal_lr(self.env_steps);
            for _ in 0..updates {
                let shards = shards.as_deref_mut();
                self.last_update = Some(self.learner.update_in(&self.envs[0], shards)?);
            }
        }
        if let Some(shards) = shards
            && !(learns && updates > 0)
        {
            shards.agree_stop()?;
        }
        let every = self.learner.config.checkpoint_every;
        if before / every != self.env_steps / every || self.is_done() {
            self.cut_episodes()?;
        }
        Ok(())
    }

    fn act(&mut self, i: usize, action: u32) -> Result<()> {
        let o = self.next_obs.len();
        let env = &mut self.envs[i];
        let step = env.step(action as usize)?;
        self.running[i].record(action);
        observe_checked(env, &mut self.next_obs)?;
        let next_legal = legal_mask_checked(env)?;
        for (a, m) in self.next_mask.iter_mut().enumerate() {
            *m = (next_legal >> a & 1) as f32;
        }
        let row = i * o..(i + 1) * o;
        let afterstates = self.learner.config.afterstates;
        let transition = Step {
            obs: &self.obs[row.clone()],
            action: if afterstates { 0 } else { action },
            reward: if afterstates { 0.0 } else { step.reward * self.learner.config.reward_scale },
            next_obs: &self.next_obs,
            next_mask: &self.next_mask,
            terminated: step.done,
            truncated: step.truncated && !step.done,
        };
        self.n_steps[i].push(&transition, &mut self.learner.memory)?;
        self.returns[i] += step.reward;
        self.lengths[i] += 1;
        if step.is_over() {
            let success = env.succeeded(&step);
            self.recent.push(self.returns[i], self.lengths[i], success);
            // Exploring actors would hold the level back: only near-greedy ones count.
            let near_greedy = self.env_epsilon(i) <= CURRICULUM_EPSILON;
            if let Some(curriculum) = self.curriculum.as_mut().filter(|_| near_greedy) {
                let success =
                    success.ok_or(RlError::NoModel { env: E::NAME, option: "curriculum", needs: "succeeded" })?;
                curriculum.record(self.difficulty[i], success);
            }
            self.start_episode(i)?;
        } else {
            self.obs[row].copy_from_slice(&self.next_obs);
            self.masks[i] = next_legal;
        }
        Ok(())
    }

    /// Starts env `i`'s next episode; an error if the environment breaks
    /// a promise of `Env` there (a value of the observation left unwritten,
    /// a legal-action mask empty or past the actions).
    fn start_episode(&mut self, i: usize) -> Result<()> {
        let (o, level) = (self.next_obs.len(), self.level());
        let seed = splitmix(self.learner.config.seed ^ splitmix(self.episodes));
        self.episodes += 1;
        self.running[i].start(seed, level);
        let env = &mut self.envs[i];
        self.difficulty[i] = env.start_episode(seed, level);
        observe_checked(env, &mut self.obs[i * o..(i + 1) * o])?;
        self.masks[i] = legal_mask_checked(env)?;
        (self.returns[i], self.lengths[i]) = (0.0, 0);
        Ok(())
    }

    /// Ends every running episode as a time-limit truncation (pending
    /// n-step transitions bootstrap from where they stopped): what every
    /// checkpoint boundary does (boundaries were once the only points a
    /// run could be saved at, and runs' results depend on the cut; a stop
    /// between them cuts nothing).
    fn cut_episodes(&mut self) -> Result<()> {
        for n_step in &mut self.n_steps {
            n_step.flush(false, &mut self.learner.memory)?;
        }
        self.fresh = true;
        Ok(())
    }

    /// Marks every env as needing a new episode (after resuming from a
    /// boundary).
    pub(crate) fn set_fresh(&mut self) {
        self.fresh = true;
    }

    /// The pending n-step transitions of each env.
    pub(crate) fn n_steps(&self) -> &[NStep] {
        &self.n_steps
    }

    /// The pending n-step transitions of each env, to restore.
    pub(crate) fn n_steps_mut(&mut self) -> &mut [NStep] {
        &mut self.n_steps
    }

    /// The episodes under way, one per env, to save; `None` at a
    /// checkpoint boundary, where none is.
    pub(crate) fn running(&self) -> Option<&[Running]> {
        (!self.fresh).then_some(&self.running)
    }

    /// Puts every env back where its saved episode (`running`, one per
    /// env, from [`DqnRun::running`]) stood: started from the episode's
    /// seed and level and stepped through its actions, the observation,
    /// legal actions, return and length following as they did. Into a
    /// run freshly built, its curriculum restored. An error names the env
    /// whose episode cannot be what a run left under way (crafted: a
    /// level the curriculum never had, an illegal action, an episode that
    /// has ended).
    pub(crate) fn replay_running(&mut self, running: &[Running]) -> Result<()> {
        let (n, o) = (self.envs.len(), self.next_obs.len());
        let bad = |detail: String| state_error("running", detail);
        if running.len() != n {
            return Err(bad(format!("{} episodes under way, expected one per env ({n})", running.len())));
        }
        // Levels only rise, from the curriculum's start to where it stands.
        let levels = self.curriculum.map_or(0..=0, |c| c.config.start..=c.level);
        for (i, episode) in running.iter().enumerate() {
            if !levels.contains(&episode.level) {
                return Err(bad(format!("env {i}: level {}, expected one in {levels:?}", episode.level)));
            }
            let env = &mut self.envs[i];
            self.difficulty[i] = env.start_episode(episode.seed, episode.level);
            let (mut ret, mut length) = (0.0f32, 0u32);
            for (t, &action) in episode.actions.iter().enumerate() {
                let step = env.step(action as usize).map_err(|e| bad(format!("env {i}, action {t}: {e}")))?;
                if step.is_over() {
                    return Err(bad(format!("env {i}: the episode ends at action {t}, yet it is under way")));
                }
                ret += step.reward;
                length += 1;
            }
            observe_checked(env, &mut self.obs[i * o..(i + 1) * o])?;
            self.masks[i] = legal_mask_checked(env)?;
            (self.returns[i], self.lengths[i]) = (ret, length);
            self.running[i].start(episode.seed, episode.level);
            self.running[i].actions.extend_from_slice(&episode.actions);
        }
        self.fresh = false;
        Ok(())
    }
}

/// A uniformly drawn set bit of `mask` (0 if none).
fn random_legal(mask: u64, rng: &mut impl Rng) -> u32 {
    let count = mask.count_ones();
    if count == 0 {
        return 0;
    }
    let mut k = rng.random_range(0..count);
    let mut bits = mask;
    loop {
        let a = bits.trailing_zeros();
        if k == 0 {
            return a;
        }
        bits &= bits - 1;
        k -= 1;
    }
}
