//! The DQN learner: the online and target networks, their optimiser and
//! the replay memory, and greedy action choice on the online network.
//! Its update is in stages, each in its own file: the targets (`targets`,
//! by the one rule the config chooses), the loss (`loss`), and the update
//! that runs them and steps the optimiser (`update`).

mod loss;
mod next_values;
mod successors;
mod targets;
mod update;

use super::afterstates::Afterstates;
use super::env::afterstates_of;
use super::shards::Shards;
use super::symmetric::SymmetricViews;
use super::{DqnConfig, DqnEnv, Memory, QNetwork, QNetworkConfig};
use crate::{Batch, Check, ReplayConfig, Result};
use minnow_autodiff::{Params, Tape};
use minnow_nn::Forward;
use minnow_optim::{Adam, Optimizer, Schedule};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use targets::Targets;
pub use update::UpdateStats;

/// The online and target networks, their optimiser and the replay memory.
/// After construction an update allocates nothing.
#[derive(Debug)]
pub struct DqnLearner {
    pub(crate) config: DqnConfig,
    pub(crate) net: QNetwork,
    pub(crate) online: Params,
    pub(crate) target: Params,
    pub(crate) adam: Adam,
    /// The learning rate by environment step.
    lr: Schedule,
    pub(crate) memory: Memory,
    replay: ReplayConfig,
    pub(crate) rng: Pcg64Mcg,
    pub(crate) updates: u64,
    /// Whether the last optimiser step left the gradients at zero (it
    /// clears them in its own pass; an update that failed part-way did not).
    grads_clear: bool,
    pub(crate) tape: Tape,
    eval_tape: Tape,
    batch: Batch,
    /// The batch's targets, by the rule the config chooses.
    targets: Targets,
    td_errors: Vec<f32>,
    /// With `afterstates`: the actions' afterstates of the rows of the last
    /// greedy choice.
    after: Option<Afterstates>,
    /// With `symmetric_eval`: the views evaluations choose on.
    views: Option<SymmetricViews>,
    /// The environment's action count (the network has one output with
    /// `afterstates`).
    actions: usize,
}

impl DqnLearner {
    /// A learner for observations of `obs_size` floats and `actions`
    /// actions; `masked` stores each next state's legal actions (for envs
    /// where some actions can be illegal).
    pub fn new(config: &DqnConfig, obs_size: usize, actions: usize, masked: bool) -> Result<Self> {
        config.validate()?;
        if actions == 0 || actions > 64 {
            return Err(Check("DqnLearner").count("actions", "a value in 1..=64", actions as u64).into());
        }
        let mut rng = Pcg64Mcg::seed_from_u64(config.seed ^ 0x05ee_d0fd_9e10);
        let mut online = Params::new();
        let network = &config.network;
        let (outputs, dueling) = if config.afterstates { (1, false) } else { (actions, network.dueling) };
        let net = QNetworkConfig { dueling, ..network.clone() }.init(&mut online, obs_size, outputs, &mut rng)?;
        let target = online.clone();
        let mut adam = config.optimizer.build(&online)?;
        adam.set_threads(config.threads);
        // With afterstates a transition runs from an afterstate (action 0,
        // the only output) and the model gives the next state's legal moves.
        let replay = ReplayConfig {
            store_next_mask: masked && !config.afterstates,
            ..ReplayConfig::new(config.replay.capacity, obs_size, outputs as u32)
        };
        let memory = Memory::build(replay, &config.replay)?;
        let b = config.batch_size;
        let (mut tape, mut eval_tape) = (Tape::new(), Tape::new());
        tape.set_gemm_threads(config.threads);
        eval_tape.set_gemm_threads(config.threads);
        Ok(Self {
            config: config.clone(),
            batch: memory.batch(b),
            net,
            online,
            target,
            adam,
            lr: config.lr_schedule()?,
            memory,
            replay,
            rng,
            updates: 0,
            grads_clear: false,
            tape,
            eval_tape,
            targets: Targets::new(config, obs_size, actions),
            td_errors: vec![0.0; b],
            after: config.afterstates.then(Afterstates::default),
            views: config.symmetric_eval.then(SymmetricViews::default),
            actions,
        })
    }

    /// The settings this learner was built with.
    pub fn config(&self) -> &DqnConfig {
        &self.config
    }

    /// The Q network's layers (shared by the online and target parameters).
    pub fn network(&self) -> &QNetwork {
        &self.net
    }

    /// The online network's parameters (what acts and what is evaluated).
    pub fn params(&self) -> &Params {
        &self.online
    }

    /// The replay layout (what n-step accumulators feeding it must match).
    pub fn replay_config(&self) -> ReplayConfig {
        self.replay
    }

    /// The replay memory.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The replay memory, for pushing transitions.
    pub fn memory_mut(&mut self) -> &mut Memory {
        &mut self.memory
    }

    /// Gradient updates made so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Sets the learning rate for environment step `env_steps`.
    pub fn anneal_lr(&mut self, env_steps: u64) {
        self.adam.set_lr(self.lr.value_at(env_steps));
    }

    /// One supervised step, apart from reinforcement learning (pretraining
    /// from an oracle): the online network's outputs for the rows of `obs`
    /// regressed onto `targets` (`[rows, outputs]`, mean squared error),
    /// then Adam, without clipping and without counting an update. Returns
    /// the loss.
    pub fn regress(&mut self, obs: &[f32], targets: &[f32]) -> Result<f32> {
        let rows = obs.len() / self.net.inputs();
        self.clear_grads();
        let loss = {
            let mut g = self.tape.graph(&mut self.online);
            let x = g.input(&[rows, self.net.inputs()], obs)?;
            let q = self.net.forward(&mut g, x)?;
            let l = g.mse(q, targets, None)?;
            let loss = g.scalar(l);
            g.backward(l)?;
            loss
        };
        self.adam.step_and_zero_grads(&mut self.online)?;
        self.grads_clear = true;
        Ok(loss)
    }

    /// Copies the online network into the target network.
    pub fn sync_target(&mut self) -> Result<()> {
        Ok(self.target.copy_values_from(&self.online)?)
    }

    /// Greedy actions of the online network for `masks.len()` rows of `obs`
    /// (with `afterstates`, through `env`'s model).
    pub fn greedy<E: DqnEnv>(&mut self, env: &E, obs: &[f32], masks: &[u64], out: &mut [u32]) -> Result<()> {
        let Some(after) = self.after.as_mut() else {
            return Ok(self.net.greedy(&mut self.eval_tape, &self.online, obs, masks, out)?);
        };
        let inputs = self.net.inputs();
        after.expand(afterstates_of(env)?, &obs[..masks.len() * inputs], inputs, self.actions)?;
        after.score(&self.net, &self.online, &mut self.eval_tape, self.config.reward_scale)?;
        after.choose(self.actions, masks, out);
        Ok(())
    }

    /// The greedy actions an evaluation takes: as [`DqnLearner::greedy`],
    /// or with `symmetric_eval` on Q averaged over `env`'s symmetric views.
    pub fn eval_greedy<E: DqnEnv>(&mut self, env: &E, obs: &[f32], masks: &[u64], out: &mut [u32]) -> Result<()> {
        let model = (&self.net, &self.online, &mut self.eval_tape);
        match (self.views.as_mut(), self.after.as_mut()) {
            (None, _) => self.greedy(env, obs, masks, out),
            (Some(views), None) => views.greedy(env, model, obs, masks, out),
            (Some(views), Some(after)) => {
                let inputs = self.net.inputs();
                after.expand(afterstates_of(env)?, &obs[..masks.len() * inputs], inputs, self.actions)?;
                let values = views.mean_outputs(env, model, &after.obs)?;
                after.set_values(values, self.config.reward_scale);
                after.choose(self.actions, masks, out);
                Ok(())
            }
        }
    }

    /// With `afterstates`: where `action` leads from row `row` of the last
    /// [`DqnLearner::greedy`] call.
    pub(crate) fn afterstate(&self, row: usize, action: u32) -> Option<&[f32]> {
        let inputs = self.net.inputs();
        let start = (row * self.actions + action as usize) * inputs;
        self.after.as_ref().map(|after| &after.obs[start..start + inputs])
    }

    /// This learner's part in data-parallel training over `comm`'s ranks
    /// (`minnow_dist::Collective`): its shard of each batch and the sum.
    pub(crate) fn shards(&self, comm: std::rc::Rc<dyn minnow_dist::Collective>) -> Result<Shards> {
        Shards::new(comm, self.config.batch_size, self.targets_per_state(), self.online.grads().len())
    }

    /// Targets per sampled state: every action's with `all_actions`, else
    /// the taken action's.
    pub(crate) fn targets_per_state(&self) -> usize {
        self.targets.rule().per_state(self.actions)
    }

    /// Zeroes the gradients for a backward pass, unless the last
    /// optimiser step already did.
    fn clear_grads(&mut self) {
        if !std::mem::replace(&mut self.grads_clear, false) {
            self.online.zero_grads();
        }
    }
}
