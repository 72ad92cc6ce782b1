//! One DQN gradient update: sample, the targets by the learner's rule
//! (the target network's forward beside the online network's when that
//! pays), the Huber loss weighted by importance weights and its backward
//! pass, clip, Adam, new priorities, the target network's move.

use super::DqnLearner;
use super::loss::{backward, huber_loss};
use crate::dqn::run::mean;
use crate::dqn::shards::Shards;
use crate::dqn::{DqnEnv, TargetUpdate};
use crate::{Check, Result};
use minnow_autodiff::beside;
use minnow_nn::Forward;
use minnow_optim::{Optimizer, clip_grad_norm};

/// What one update measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// The batch's (importance-weighted) Huber loss before the update.
    pub loss: f32,
    /// Mean Q of the actions taken in the batch (with `all_actions`, of
    /// every action).
    pub mean_q: f32,
}

impl DqnLearner {
    /// One gradient update on a fresh minibatch, its targets by the
    /// config's rule: bootstrapped from the replayed next states, from
    /// their afterstates (`afterstates`), or for every action of each
    /// sampled state from where it leads (`all_actions`), the last two
    /// through `env`'s model.
    pub fn update<E: DqnEnv>(&mut self, env: &E) -> Result<UpdateStats> {
        self.update_in(env, None)
    }

    /// [`DqnLearner::update`] of a learner built with `all_actions`, where
    /// every action of each sampled state gets a target; an error for any
    /// other learner.
    pub fn update_all_actions<E: DqnEnv>(&mut self, env: &E) -> Result<UpdateStats> {
        if !self.targets.rule().learns_every_action() {
            return Err(Check("DqnConfig").count("all_actions", "true for update_all_actions", 0).into());
        }
        self.update_in(env, None)
    }

    /// As [`DqnLearner::update`]; with `shards`, as one rank of a
    /// data-parallel update (the gradient of this rank's rows, summed over
    /// the ranks).
    pub(crate) fn update_in<E: DqnEnv>(&mut self, env: &E, mut shards: Option<&mut Shards>) -> Result<UpdateStats> {
        let (b, inputs, rule) = (self.config.batch_size, self.net.inputs(), self.targets.rule());
        self.memory.sample_into(b, self.updates, &mut self.rng, &mut self.batch)?;
        // The online network's part of the targets, before the loss graph borrows it.
        self.targets.select(env, (&self.net, &self.online, &mut self.eval_tape), &self.batch)?;
        // With threads to spare, the target network's forward on the next
        // states runs beside the online network's forward: the two share
        // nothing, so each is computed whole, as on one thread. Only when
        // a forward is large enough to pay for waking a second worker, as
        // for a split product (the weights count the multiply-adds a row).
        let threads = if rule.evaluates_beside() { self.tape.threads_for(b * self.online.numel()) } else { 1 };

        self.clear_grads();
        let rows = shards.as_ref().map_or(0..b, |s| s.rows());
        let per_state = self.targets_per_state();
        let elements = rows.start * per_state..rows.end * per_state;
        // Only a prioritized memory needs the TD errors (its new priorities).
        let prioritized = self.memory.is_prioritized();
        let (loss, mut mean_q) = {
            let mut g = self.tape.graph(&mut self.online);
            let x = g.input(&[rows.len(), inputs], &self.batch.obs()[rows.start * inputs..rows.end * inputs])?;
            let (targets, net, batch) = (&mut self.targets, &self.net, &self.batch);
            let target = (net, &self.target, &mut self.eval_tape);
            let (evaluated, q) = beside(threads, || targets.evaluate(target, batch), || net.forward(&mut g, x));
            evaluated?;
            let y = &self.targets.values()[elements.clone()];
            let taken = (!rule.learns_every_action()).then(|| &self.batch.actions()[rows.clone()]);
            let weights = prioritized.then(|| &self.batch.weights()[rows.clone()]);
            let (loss, q) = huber_loss(&mut g, q?, taken, y, self.config.huber_delta, weights)?;
            if prioritized && shards.is_none() {
                td_errors(&mut self.td_errors, g.value(q), y);
            }
            backward(&mut g, loss, q, elements, shards.as_deref_mut(), self.updates)?
        };
        let loss = match shards {
            None => loss,
            Some(shards) => {
                let loss = shards.reduce(self.online.grads_mut(), loss, self.updates)?;
                if prioritized {
                    td_errors(&mut self.td_errors, &shards.q, self.targets.values());
                }
                mean_q = mean(shards.q.iter().copied());
                loss
            }
        };
        self.step_optimizer()?;
        if prioritized {
            self.memory.update_priorities(self.batch.indices(), &self.td_errors)?;
        }
        Ok(UpdateStats { loss, mean_q })
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

/// `td = q - y`, row by row.
fn td_errors(td: &mut [f32], q: &[f32], targets: &[f32]) {
    for ((td, &q), &y) in td.iter_mut().zip(q).zip(targets) {
        *td = q - y;
    }
}
