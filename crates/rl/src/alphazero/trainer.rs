//! The learner: the network, its parameters and Adam, trained on replay
//! minibatches with loss = cross-entropy(policy logits, visit
//! distribution) + value_weight * MSE(value, outcome).

use super::{NetworkConfig, PositionReplay, TrainingConfig};
use crate::{Result, RlError};
use minnow_autodiff::{Params, Tape};
use minnow_envs::Game;
use minnow_nn::{Forward, PolicyValueNet, PolicyValueNetConfig};
use minnow_optim::{Adam, AdamConfig, Decay, Optimizer, Schedule, ScheduleConfig};
use rand::Rng;

/// One update's losses (before the update).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrainLoss {
    /// Policy cross-entropy against the visit distribution.
    pub policy: f32,
    /// Value mean squared error.
    pub value: f32,
}

/// A game's mirror of one sample (observation, policy target).
type Mirror = fn(&mut [f32], &mut [f32]);

/// The network's shape for game `G`.
pub fn network_config<G: Game>(n: &NetworkConfig) -> PolicyValueNetConfig {
    PolicyValueNetConfig { inputs: G::OBSERVATION_SIZE, width: n.width, blocks: n.blocks, policy: G::ACTIONS }
}

/// Parameters, optimiser, tape and batch buffers: an update after the
/// first allocates nothing.
#[derive(Debug)]
pub struct Trainer {
    pub(crate) net: PolicyValueNet,
    pub(crate) params: Params,
    pub(crate) adam: Adam,
    /// The learning rate by update, when it decays.
    lr: Option<Schedule>,
    tape: Tape,
    config: TrainingConfig,
    inputs: usize,
    actions: usize,
    /// The game's mirror, when it has one and `config.mirror` is on.
    mirror: Option<Mirror>,
    obs: Vec<f32>,
    policy: Vec<f32>,
    value: Vec<f32>,
}

impl Trainer {
    /// A freshly initialised network for game `G`, with Adam and the batch
    /// buffers.
    pub fn new<G: Game>(network: &NetworkConfig, config: &TrainingConfig, rng: &mut impl Rng) -> Result<Self> {
        let shape = network_config::<G>(network);
        let mut params = Params::new();
        let net = shape.init(&mut params, "az", rng)?;
        let adam =
            AdamConfig { lr: config.lr, weight_decay: config.weight_decay, ..AdamConfig::default() }.build(&params)?;
        let b = config.batch;
        let (t_max, eta_min) = (config.lr_decay_updates, config.lr_final);
        let decay = Decay::CosineHold { t_max, eta_min };
        let lr = (t_max > 0).then(|| ScheduleConfig { base: config.lr, warmup: None, decay }.build()).transpose()?;
        Ok(Self {
            net,
            params,
            adam,
            lr,
            tape: Tape::new(),
            config: *config,
            inputs: G::OBSERVATION_SIZE,
            actions: G::ACTIONS,
            mirror: (G::MIRRORED && config.mirror).then_some(G::mirror as Mirror),
            obs: vec![0.0; b * G::OBSERVATION_SIZE],
            policy: vec![0.0; b * G::ACTIONS],
            value: vec![0.0; b],
        })
    }

    /// The network's layers.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// The learner's parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Updates made so far.
    pub fn updates(&self) -> u64 {
        self.adam.step_count()
    }

    /// One Adam update on a minibatch drawn from `replay`.
    pub fn step(&mut self, replay: &PositionReplay, rng: &mut impl Rng) -> Result<TrainLoss> {
        if let Some(lr) = &self.lr {
            lr.apply(&mut self.adam);
        }
        replay.sample_into(rng, &mut self.obs, &mut self.policy, &mut self.value);
        if let Some(mirror) = self.mirror {
            // Each sample as stored or mirrored, with equal odds.
            let rows = self.obs.chunks_exact_mut(self.inputs).zip(self.policy.chunks_exact_mut(self.actions));
            for (obs, policy) in rows {
                if rng.random::<bool>() {
                    mirror(obs, policy);
                }
            }
        }
        self.params.zero_grads();
        let b = self.config.batch;
        let mut g = self.tape.graph(&mut self.params);
        let x = g.input(&[b, self.inputs], &self.obs)?;
        let (logits, v) = self.net.forward(&mut g, x)?;
        let policy_loss = g.soft_cross_entropy(logits, &self.policy, None)?;
        let value_loss = g.mse(v, &self.value, None)?;
        let weighted = g.scale(value_loss, self.config.value_weight)?;
        let loss = g.add(policy_loss, weighted)?;
        let out = TrainLoss { policy: g.scalar(policy_loss), value: g.scalar(value_loss) };
        if !g.scalar(loss).is_finite() {
            return Err(RlError::Diverged { update: self.adam.step_count(), loss: g.scalar(loss) });
        }
        g.backward(loss)?;
        self.adam.step(&mut self.params)?;
        Ok(out)
    }
}
