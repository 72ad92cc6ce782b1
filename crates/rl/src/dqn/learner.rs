//! One DQN gradient update: sample, bootstrap from the target network
//! (double or plain, over legal next actions), Huber loss weighted by
//! importance weights, clip, Adam, new priorities, target update.

mod loss;
mod targets;

use super::afterstates::Afterstates;
use super::env::{afterstates_of, model_of};
use super::run::mean;
use super::shards::Shards;
use super::symmetric::SymmetricViews;
use super::{DqnConfig, DqnEnv, Memory, QNetwork, QNetworkConfig, TargetUpdate};
use crate::{Batch, Check, ReplayConfig, Result};
use loss::backward;
use minnow_autodiff::{Params, Tape};
use minnow_nn::Forward;
use minnow_optim::{Adam, Optimizer, Schedule, clip_grad_norm};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use targets::{choose_next_actions, discount, legal_actions, next_state_values, target_values};

/// What one update measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// The batch's (importance-weighted) Huber loss before the update.
    pub loss: f32,
    /// Mean Q of the actions taken in the batch.
    pub mean_q: f32,
}

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
    next_actions: Vec<u32>,
    targets: Vec<f32>,
    td_errors: Vec<f32>,
    /// With `all_actions`: every sampled state's successors.
    successors: Option<Successors>,
    /// With `afterstates`: the actions' afterstates of the rows last scored.
    after: Option<Afterstates>,
    /// With `symmetric_eval`: the views evaluations choose on.
    views: Option<SymmetricViews>,
    /// The environment's action count (the network has one output with
    /// `afterstates`).
    actions: usize,
}

/// Row `r * actions + a` is what action `a` does from sampled state `r`.
#[derive(Debug)]
struct Successors {
    obs: Vec<f32>,
    rewards: Vec<f32>,
    terminal: Vec<f32>,
    choices: Vec<u32>,
    targets: Vec<f32>,
}

impl Successors {
    fn new(rows: usize, obs_size: usize) -> Self {
        Self {
            obs: vec![0.0; rows * obs_size],
            rewards: vec![0.0; rows],
            terminal: vec![0.0; rows],
            choices: vec![0; rows],
            targets: vec![0.0; rows],
        }
    }
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
        let successors = config.all_actions.then(|| Successors::new(b * actions, obs_size));
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
            next_actions: vec![0; b],
            targets: vec![0.0; b],
            td_errors: vec![0.0; b],
            successors,
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

    /// One gradient update on a fresh minibatch: the taken actions'
    /// targets bootstrapped from the replayed next states (with
    /// `afterstates`, through `env`'s model).
    pub fn update<E: DqnEnv>(&mut self, env: &E) -> Result<UpdateStats> {
        self.update_in(env, None)
    }

    /// As [`DqnLearner::update`]; with `shards`, as one rank of a
    /// data-parallel update (the gradient of this rank's rows, summed over
    /// the ranks).
    pub(crate) fn update_in<E: DqnEnv>(&mut self, env: &E, mut shards: Option<&mut Shards>) -> Result<UpdateStats> {
        let (b, inputs) = (self.config.batch_size, self.net.inputs());
        self.memory.sample_into(b, self.updates, &mut self.rng, &mut self.batch)?;
        // With threads to spare, the target network's forward on the next
        // states runs beside the online network's forward: the two share
        // nothing, so each is computed whole, as on one thread. Only when
        // a forward is large enough to pay for waking a second worker, as
        // for a split product (the weights count the multiply-adds a row).
        let beside = self.after.is_none() && self.tape.threads_for(b * self.online.numel()) > 1;
        if self.after.is_some() {
            self.bootstrap_from_afterstates(env)?;
        } else if !beside {
            self.bootstrap_targets()?;
        } else if self.config.double {
            // The online network's choices, before its graph borrows it.
            let legal = legal_actions(self.batch.next_mask(), self.net.actions());
            let next_obs = self.batch.next_obs();
            choose_next_actions(
                &self.net,
                &self.online,
                &mut self.eval_tape,
                next_obs,
                &legal,
                &mut self.next_actions,
            )?;
        }
        if !beside {
            discount(&mut self.targets, &self.batch);
        }

        self.clear_grads();
        let rows = shards.as_ref().map_or(0..b, |s| s.rows());
        let weights = self.memory.is_prioritized().then(|| &self.batch.weights()[rows.clone()]);
        let (loss, mut mean_q) = {
            let mut g = self.tape.graph(&mut self.online);
            let x = g.input(&[rows.len(), inputs], &self.batch.obs()[rows.start * inputs..rows.end * inputs])?;
            let q = if beside {
                let (net, batch, double) = (&self.net, &self.batch, self.config.double);
                let legal = legal_actions(batch.next_mask(), net.actions());
                let (target, tape, choices, targets) =
                    (&self.target, &mut self.eval_tape, &self.next_actions, &mut self.targets);
                let (values, q) = rayon::join(
                    || target_values(net, target, tape, double, batch.next_obs(), &legal, choices, targets),
                    || net.forward(&mut g, x),
                );
                values?;
                discount(&mut self.targets, &self.batch);
                q?
            } else {
                self.net.forward(&mut g, x)?
            };
            let q_taken = g.gather_cols(q, &self.batch.actions()[rows.clone()])?;
            let loss = g.huber(q_taken, &self.targets[rows.clone()], self.config.huber_delta, weights)?;
            if shards.is_none() {
                for ((td, &q), &y) in self.td_errors.iter_mut().zip(g.value(q_taken)).zip(&self.targets) {
                    *td = q - y;
                }
            }
            backward(&mut g, loss, q_taken, rows, shards.as_deref_mut(), self.updates)?
        };
        let loss = match shards {
            None => loss,
            Some(shards) => {
                let loss = shards.reduce(self.online.grads_mut(), loss, self.updates)?;
                for ((td, &q), &y) in self.td_errors.iter_mut().zip(&shards.q).zip(&self.targets) {
                    *td = q - y;
                }
                mean_q = mean(shards.q.iter().copied());
                loss
            }
        };
        self.step_optimizer()?;
        self.memory.update_priorities(self.batch.indices(), &self.td_errors)?;
        Ok(UpdateStats { loss, mean_q })
    }

    /// One gradient update with `all_actions`: every action of each sampled
    /// state gets a target, from `env`'s model of where it leads.
    pub fn update_all_actions<E: DqnEnv>(&mut self, env: &E) -> Result<UpdateStats> {
        self.update_all_actions_in(env, None)
    }

    /// As [`DqnLearner::update_all_actions`]; with `shards`, as one rank
    /// of a data-parallel update.
    pub(crate) fn update_all_actions_in<E: DqnEnv>(
        &mut self,
        env: &E,
        mut shards: Option<&mut Shards>,
    ) -> Result<UpdateStats> {
        let (b, actions, inputs) = (self.config.batch_size, self.net.actions(), self.net.inputs());
        self.clear_grads();
        let Some(next) = self.successors.as_mut() else {
            return Err(Check("DqnConfig").count("all_actions", "true for update_all_actions", 0).into());
        };
        let model = model_of(env)?;
        self.memory.sample_into(b, self.updates, &mut self.rng, &mut self.batch)?;
        let obs = self.batch.obs();
        let per_state = actions * inputs;
        for r in 0..b {
            model.successors(
                &obs[r * inputs..(r + 1) * inputs],
                &mut next.obs[r * per_state..(r + 1) * per_state],
                &mut next.rewards[r * actions..(r + 1) * actions],
                &mut next.terminal[r * actions..(r + 1) * actions],
            )?;
        }
        let all = u64::MAX >> (64 - actions);
        next_state_values(
            &self.net,
            (&self.online, &self.target),
            &mut self.eval_tape,
            self.config.double,
            &next.obs,
            &|_| all,
            &mut next.choices,
            &mut next.targets,
        )?;
        let (scale, gamma) = (self.config.reward_scale, self.config.gamma);
        for ((y, &reward), &end) in next.targets.iter_mut().zip(&next.rewards).zip(&next.terminal) {
            *y = reward * scale + (1.0 - end) * gamma * *y;
        }

        let rows = shards.as_ref().map_or(0..b, |s| s.rows());
        let elements = rows.start * actions..rows.end * actions;
        let (loss, mut mean_q) = {
            let mut g = self.tape.graph(&mut self.online);
            let x = g.input(&[rows.len(), inputs], &obs[rows.start * inputs..rows.end * inputs])?;
            let q = self.net.forward(&mut g, x)?;
            let loss = g.huber(q, &next.targets[elements.clone()], self.config.huber_delta, None)?;
            backward(&mut g, loss, q, elements, shards.as_deref_mut(), self.updates)?
        };
        let loss = match shards {
            None => loss,
            Some(shards) => {
                let loss = shards.reduce(self.online.grads_mut(), loss, self.updates)?;
                mean_q = mean(shards.q.iter().copied());
                loss
            }
        };
        self.step_optimizer()?;
        Ok(UpdateStats { loss, mean_q })
    }

    /// This learner's part in data-parallel training over `comm`'s ranks
    /// (`minnow_dist::Collective`): its shard of each batch and the sum.
    pub(crate) fn shards(&self, comm: std::rc::Rc<dyn minnow_dist::Collective>) -> Result<Shards> {
        let per_row = if self.config.all_actions { self.net.actions() } else { 1 };
        Shards::new(comm, self.config.batch_size, per_row, self.online.grads().len())
    }

    /// Zeroes the gradients for a backward pass, unless the last
    /// optimiser step already did.
    fn clear_grads(&mut self) {
        if !std::mem::replace(&mut self.grads_clear, false) {
            self.online.zero_grads();
        }
    }

    /// Clip, Adam (clearing the gradients), count the update, move the
    /// target network.
    fn step_optimizer(&mut self) -> Result<()> {
        if self.config.max_grad_norm > 0.0 {
            clip_grad_norm(&mut self.online, self.config.max_grad_norm)?;
        }
        self.adam.step_and_zero_grads(&mut self.online)?;
        self.grads_clear = true;
        self.updates += 1;
        match self.config.target {
            TargetUpdate::Hard { every } if self.updates.is_multiple_of(every) => {
                self.target.copy_values_from(&self.online)?
            }
            TargetUpdate::Hard { .. } => {}
            TargetUpdate::Polyak { tau } => self.target.blend_values_from(&self.online, tau)?,
        }
        Ok(())
    }
}
