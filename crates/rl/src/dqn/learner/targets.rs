//! An update's targets, by the one rule the config chooses: each next
//! state's value from the target network (at the online network's choice
//! for double DQN, or at the target's own best), the next states being the
//! replayed ones, their afterstates, or every action's successor, then
//! discounted into `r + (1 - done) * discount * V(s')`.
//!
//! Double DQN selects with the online network and evaluates with the
//! target network, and the two halves are apart ([`Targets::select`],
//! [`Targets::evaluate`]): the evaluation may run beside the online
//! network's forward of the loss, whose graph borrows the online network
//! for its gradients, so the selection has to come first.

use super::next_values::{choose_next_actions, every_action, legal_actions, target_values};
use super::successors::Successors;
use crate::dqn::afterstates::Afterstates;
use crate::dqn::env::{afterstates_of, model_of};
use crate::dqn::{DqnConfig, DqnEnv, QNetwork};
use crate::{Batch, Result};
use minnow_autodiff::{Params, Tape};

/// Which next action a target bootstraps at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bootstrap {
    /// The target network's best legal action: `max_a Q_target(s', a)`.
    MaxQ,
    /// The online network's best legal action, scored by the target
    /// network (double DQN), which overestimates less than the max.
    Double,
}

/// How an update's targets are made, chosen once from the config
/// (`afterstates`, `all_actions` and `double`; the first two exclude each
/// other, as [`DqnConfig::validate`] checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TargetRule {
    /// The taken action's target from the replayed next state `s'`.
    NextState(Bootstrap),
    /// The taken action's target from the afterstates of `s'` through the
    /// environment's model: `Q(s', a) = r(s', a) + V(afterstate)`, 0 where
    /// `s'` has no legal move.
    Afterstates(Bootstrap),
    /// Every action's target, from the environment's model of where each
    /// leads from the sampled state: `r + (1 - terminal) * gamma * V(next)`.
    AllActions(Bootstrap),
}

impl TargetRule {
    /// The rule `config` asks for.
    pub(super) fn of(config: &DqnConfig) -> Self {
        let bootstrap = if config.double { Bootstrap::Double } else { Bootstrap::MaxQ };
        if config.afterstates {
            Self::Afterstates(bootstrap)
        } else if config.all_actions {
            Self::AllActions(bootstrap)
        } else {
            Self::NextState(bootstrap)
        }
    }

    /// Whether every action of a sampled state gets a target, not only
    /// the one taken.
    pub(super) fn learns_every_action(self) -> bool {
        matches!(self, Self::AllActions(_))
    }

    /// Targets per sampled state, of `actions` actions.
    pub(super) fn per_state(self, actions: usize) -> usize {
        if self.learns_every_action() { actions } else { 1 }
    }

    /// Whether the target network's forward may run beside the online
    /// network's. Only the next-state rule's does: the model-based rules
    /// have always evaluated on the calling thread, and running them
    /// beside has not been timed.
    pub(super) fn evaluates_beside(self) -> bool {
        matches!(self, Self::NextState(_))
    }
}

/// The targets of an update and what making them needs. Sized for a batch
/// at construction (afterstates on first use), so the steady state
/// allocates nothing.
#[derive(Debug)]
pub(super) struct Targets {
    rule: TargetRule,
    /// The environment's action count (with afterstates the network has
    /// one output).
    actions: usize,
    reward_scale: f32,
    gamma: f32,
    /// One target per sampled state, or with `AllActions` row
    /// `r * actions + a` for action `a` of state `r`.
    values: Vec<f32>,
    /// With `Double`: the online network's choice in each next state
    /// (`u32::MAX` where it has no legal action), row for row with `values`.
    choices: Vec<u32>,
    /// With `AllActions`: where each action leads.
    successors: Successors,
    /// With `Afterstates`: the next states' afterstates.
    after: Afterstates,
}

impl Targets {
    /// The targets of `config`'s rule for batches of `config.batch_size`
    /// observations of `obs_size` values, with `actions` actions.
    pub(super) fn new(config: &DqnConfig, obs_size: usize, actions: usize) -> Self {
        let rule = TargetRule::of(config);
        let rows = config.batch_size * rule.per_state(actions);
        let successors =
            if rule.learns_every_action() { Successors::new(rows, obs_size) } else { Successors::default() };
        Self {
            rule,
            actions,
            reward_scale: config.reward_scale,
            gamma: config.gamma,
            values: vec![0.0; rows],
            choices: vec![0; rows],
            successors,
            after: Afterstates::default(),
        }
    }

    /// The rule these targets follow.
    pub(super) fn rule(&self) -> TargetRule {
        self.rule
    }

    /// The last batch's targets.
    pub(super) fn values(&self) -> &[f32] {
        &self.values
    }

    /// The online network's part, before the loss graph borrows it: the
    /// next states from `env`'s model where the rule takes them from there
    /// and, with [`Bootstrap::Double`], the online network's choice in each.
    pub(super) fn select<E: DqnEnv>(
        &mut self,
        env: &E,
        (net, online, tape): (&QNetwork, &Params, &mut Tape),
        batch: &Batch,
    ) -> Result<()> {
        let actions = self.actions;
        match self.rule {
            TargetRule::NextState(Bootstrap::MaxQ) => {}
            TargetRule::NextState(Bootstrap::Double) => {
                let legal = legal_actions(batch.next_mask(), actions);
                choose_next_actions(net, online, tape, batch.next_obs(), &legal, &mut self.choices)?;
            }
            TargetRule::Afterstates(bootstrap) => {
                self.after.expand(afterstates_of(env)?, batch.next_obs(), net.inputs(), actions)?;
                if bootstrap == Bootstrap::Double {
                    self.after.score(net, online, tape, self.reward_scale)?;
                    for (r, choice) in self.choices.iter_mut().enumerate() {
                        *choice = self.after.best(r, actions, u64::MAX).map_or(u32::MAX, |(a, _)| a as u32);
                    }
                }
            }
            TargetRule::AllActions(bootstrap) => {
                self.successors.fill(model_of(env)?, batch.obs(), net.inputs(), actions)?;
                if bootstrap == Bootstrap::Double {
                    let legal = every_action(actions);
                    choose_next_actions(net, online, tape, &self.successors.obs, &legal, &mut self.choices)?;
                }
            }
        }
        Ok(())
    }

    /// The target network's part, after [`Targets::select`]: each next
    /// state's value at the chosen action or at the target's own best,
    /// then the discounted targets of `batch`.
    pub(super) fn evaluate(
        &mut self,
        (net, target, tape): (&QNetwork, &Params, &mut Tape),
        batch: &Batch,
    ) -> Result<()> {
        let actions = self.actions;
        match self.rule {
            TargetRule::NextState(bootstrap) => {
                let legal = legal_actions(batch.next_mask(), actions);
                let next = batch.next_obs();
                target_values((net, target, tape), bootstrap, next, &legal, &self.choices, &mut self.values)?;
                discount(&mut self.values, batch);
            }
            TargetRule::Afterstates(bootstrap) => {
                let after = &mut self.after;
                after.score(net, target, tape, self.reward_scale)?;
                for (r, (y, &choice)) in self.values.iter_mut().zip(&self.choices).enumerate() {
                    *y = match (bootstrap, choice) {
                        (Bootstrap::Double, u32::MAX) => 0.0,
                        (Bootstrap::Double, a) => after.q[r * actions + a as usize],
                        (Bootstrap::MaxQ, _) => after.best(r, actions, u64::MAX).map_or(0.0, |(_, q)| q),
                    };
                }
                discount(&mut self.values, batch);
            }
            TargetRule::AllActions(bootstrap) => {
                let (next, legal) = (&self.successors, every_action(actions));
                target_values((net, target, tape), bootstrap, &next.obs, &legal, &self.choices, &mut self.values)?;
                let (scale, gamma) = (self.reward_scale, self.gamma);
                for ((y, &reward), &end) in self.values.iter_mut().zip(&next.rewards).zip(&next.terminal) {
                    *y = reward * scale + (1.0 - end) * gamma * *y;
                }
            }
        }
        Ok(())
    }
}

/// `y = r + (1 - done) * discount * y` for every row of the batch.
fn discount(targets: &mut [f32], batch: &Batch) {
    let (rewards, dones, discounts) = (batch.rewards(), batch.dones(), batch.discounts());
    for (r, y) in targets.iter_mut().enumerate() {
        *y = rewards[r] + (1.0 - dones[r]) * discounts[r] * *y;
    }
}
