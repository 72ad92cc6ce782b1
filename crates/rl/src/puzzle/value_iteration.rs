//! Approximate value iteration for a cost-to-go network (DeepCubeA's
//! DAVI): states from random walks of 1..=`max_scramble` moves from the
//! goal, targets `y(s) = min_a 1 + J_target(a(s))` with `J = 0` at the
//! goal (and `y = 0` for a walk that came back to it), mean squared error,
//! Adam. The target network takes the online weights when the loss falls
//! below a threshold or when it has grown too old.

use super::{CostToGo, CostToGoConfig, LearnedHeuristic, Puzzle};
use crate::{Check, Result, RlError};
use minnow_autodiff::{Params, Tape};
use minnow_nn::Forward;
use minnow_optim::{Adam, AdamConfig, Optimizer};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// When the target network takes the online weights: checked every
/// `check_every` steps, it updates if the last step's loss is below
/// `loss_below` or if `max_age` steps have passed since the last update.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetRule {
    /// Steps between checks, at least 1.
    pub check_every: u64,
    /// A check whose last loss is below this updates the target, > 0.
    pub loss_below: f32,
    /// A check this many steps after the last update updates the target, at
    /// least 1.
    pub max_age: u64,
}

/// Everything about a value-iteration run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueIterationConfig {
    /// The cost-to-go network's shape.
    pub net: CostToGoConfig,
    /// States per step (each also scores all of its children).
    pub batch_size: usize,
    /// Walks are 1..=max_scramble moves long, uniformly.
    pub max_scramble: usize,
    /// Training steps (the run's length).
    pub steps: u64,
    /// Adam's learning rate, annealed linearly to `final_lr` over `steps`
    /// (so a run stopped early and resumed with more steps anneals differently).
    pub lr: f32,
    /// The learning rate at the last step, > 0.
    pub final_lr: f32,
    /// When the target network takes the online weights.
    pub target: TargetRule,
    /// Seeds the network's initialisation and the random walks.
    pub seed: u64,
}

impl ValueIterationConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        self.net.validate()?;
        let check = Check("ValueIterationConfig");
        check.count_in("batch_size", "a batch in 1..=65536", self.batch_size as u64, 1, 65536)?;
        check.count_in("max_scramble", "a walk length in 1..=10000", self.max_scramble as u64, 1, 10_000)?;
        check.count_in("steps", "at least 1 step", self.steps, 1, u64::MAX)?;
        check.positive("lr", self.lr)?;
        check.positive("final_lr", self.final_lr)?;
        check.count_in("target.check_every", "at least 1 step", self.target.check_every, 1, u64::MAX)?;
        check.count_in("target.max_age", "at least 1 step", self.target.max_age, 1, u64::MAX)?;
        Ok(check.positive("target.loss_below", self.target.loss_below)?)
    }

    /// The memory a learner of this config needs, roughly, in bytes, for
    /// observations of `obs_size` values and `moves` moves: the online and
    /// target networks with gradients and Adam's moments, and the
    /// activations of a batch and of its children's targets.
    pub fn memory_bytes(&self, obs_size: usize, moves: usize) -> f64 {
        let (o, h, w) = (obs_size as f64, self.net.hidden as f64, self.net.width as f64);
        let params = (o + 1.0) * h + (h + 1.0) * w + self.net.blocks as f64 * 2.0 * (w + 1.0) * w + w + 1.0;
        let rows = self.batch_size as f64 * (moves as f64 + 1.0);
        let activations = rows * (o + h + w * (2.0 * self.net.blocks as f64 + 1.0)) * 4.0;
        4.0 * (5.0 * params + activations)
    }

    /// The learning rate at step `step`.
    fn lr_at(&self, step: u64) -> f32 {
        let progress = (step as f64 / self.steps as f64).clamp(0.0, 1.0);
        (self.lr as f64 + (self.final_lr as f64 - self.lr as f64) * progress) as f32
    }

    /// What a checkpoint must share with the config that resumes it:
    /// everything but the step budget.
    pub fn identity(&self) -> String {
        minnow_train::config_identity(self, &["steps"])
    }
}

/// What one step measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ValueIterationStats {
    /// Mean squared error of the batch before the update.
    pub loss: f32,
    /// Mean target `y` of the batch.
    pub mean_target: f32,
    /// Target network updates so far.
    pub target_updates: u64,
}

/// The online and target networks, Adam and the step's buffers. After
/// construction a step allocates nothing.
#[derive(Debug)]
pub struct ValueIteration {
    pub(crate) config: ValueIterationConfig,
    pub(crate) net: CostToGo,
    pub(crate) online: Params,
    pub(crate) target: Params,
    pub(crate) adam: Adam,
    pub(crate) rng: Pcg64Mcg,
    pub(crate) steps: u64,
    pub(crate) target_updates: u64,
    pub(crate) last_target_update: u64,
    pub(crate) last_loss: f32,
    tape: Tape,
    eval_tape: Tape,
    obs: Vec<f32>,
    child_obs: Vec<f32>,
    child_goal: Vec<bool>,
    at_goal: Vec<bool>,
    child_values: Vec<f32>,
    targets: Vec<f32>,
}

impl ValueIteration {
    /// A learner for puzzles whose observations have `observation_size` floats
    /// and `moves` moves.
    pub fn new(config: &ValueIterationConfig, observation_size: usize, moves: usize) -> Result<Self> {
        config.validate()?;
        if moves == 0 {
            return Err(Check("ValueIteration").count("moves", "at least 1 move", 0).into());
        }
        let what = format!(
            "the cost-to-go learner (hidden {}, width {}x{})",
            config.net.hidden, config.net.width, config.net.blocks
        );
        minnow_train::memory::check_fits(&what, config.memory_bytes(observation_size, moves))?;
        let mut rng = Pcg64Mcg::seed_from_u64(config.seed ^ 0xdeeb_c0be_a000);
        let mut online = Params::new();
        let net = config.net.init(&mut online, observation_size, &mut rng)?;
        let target = online.clone();
        let adam = AdamConfig { lr: config.lr, ..AdamConfig::default() }.build(&online)?;
        let (b, n) = (config.batch_size, observation_size);
        Ok(Self {
            config: config.clone(),
            net,
            target,
            online,
            adam,
            rng,
            steps: 0,
            target_updates: 0,
            last_target_update: 0,
            last_loss: f32::INFINITY,
            tape: Tape::new(),
            eval_tape: Tape::new(),
            obs: vec![0.0; b * n],
            child_obs: vec![0.0; b * moves * n],
            child_goal: vec![false; b * moves],
            at_goal: vec![false; b],
            child_values: vec![0.0; b * moves],
            targets: vec![0.0; b],
        })
    }

    /// The run's settings.
    pub fn config(&self) -> &ValueIterationConfig {
        &self.config
    }

    /// The network's layers.
    pub fn network(&self) -> &CostToGo {
        &self.net
    }

    /// The online network's parameters (what is evaluated and saved).
    pub fn params(&self) -> &Params {
        &self.online
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Whether `config.steps` steps have been taken.
    pub fn is_done(&self) -> bool {
        self.steps >= self.config.steps
    }

    /// A copy of the online network as a search heuristic.
    pub fn heuristic(&self) -> LearnedHeuristic {
        LearnedHeuristic::new(self.net.clone(), self.online.clone())
    }

    /// One step: a batch of random walks, their bootstrapped targets, one
    /// Adam update, and the target rule.
    pub fn step<P: Puzzle>(&mut self, puzzle: &P) -> Result<ValueIterationStats> {
        let (b, moves, n) = (self.config.batch_size, puzzle.moves(), puzzle.observation_size());
        if n != self.net.inputs() || self.child_goal.len() != b * moves {
            return Err(RlError::Length {
                op: "ValueIteration::step",
                what: "the puzzle's observation floats times moves",
                expected: self.net.inputs() * self.child_goal.len() / b,
                found: n * moves,
            });
        }
        for r in 0..b {
            let state = self.random_walk(puzzle);
            self.at_goal[r] = puzzle.is_goal(state);
            puzzle.observe(state, &mut self.obs[r * n..(r + 1) * n]);
            for a in 0..moves {
                let child = puzzle.apply(state, a);
                let k = r * moves + a;
                self.child_goal[k] = puzzle.is_goal(child);
                puzzle.observe(child, &mut self.child_obs[k * n..(k + 1) * n]);
            }
        }
        self.net.evaluate(&mut self.eval_tape, &self.target, &self.child_obs, &mut self.child_values)?;
        bellman_targets(&self.child_values, &self.child_goal, &self.at_goal, &mut self.targets);

        self.online.zero_grads();
        let loss = {
            let mut g = self.tape.graph(&mut self.online);
            let x = g.input(&[b, n], &self.obs)?;
            let j = self.net.forward(&mut g, x)?;
            let loss = g.mse(j, &self.targets, None)?;
            let value = g.scalar(loss);
            if !value.is_finite() {
                return Err(RlError::Diverged { update: self.steps, loss: value });
            }
            g.backward(loss)?;
            value
        };
        self.adam.set_lr(self.config.lr_at(self.steps));
        self.adam.step(&mut self.online)?;
        self.steps += 1;
        self.last_loss = loss;
        let rule = self.config.target;
        if self.steps.is_multiple_of(rule.check_every)
            && (loss < rule.loss_below || self.steps - self.last_target_update >= rule.max_age)
        {
            self.target.copy_values_from(&self.online)?;
            self.target_updates += 1;
            self.last_target_update = self.steps;
        }
        let mean_target = self.targets.iter().sum::<f32>() / b as f32;
        Ok(ValueIterationStats { loss, mean_target, target_updates: self.target_updates })
    }

    /// A walk of 1..=max_scramble random moves from the goal that never
    /// undoes its previous move.
    fn random_walk<P: Puzzle>(&mut self, puzzle: &P) -> P::State {
        let length = self.rng.random_range(1..=self.config.max_scramble);
        let (mut state, mut last) = (puzzle.goal(), usize::MAX);
        for _ in 0..length {
            let mut a = self.rng.random_range(0..puzzle.moves());
            while puzzle.moves() > 1 && last != usize::MAX && a == puzzle.inverse(last) {
                a = self.rng.random_range(0..puzzle.moves());
            }
            state = puzzle.apply(state, a);
            last = a;
        }
        state
    }

    /// The targets of the last step.
    pub fn last_targets(&self) -> &[f32] {
        &self.targets
    }
}

/// `out[r] = 0` if state `r` is the goal, else `1 + min_a J(child)` over
/// its `child_values.len() / out.len()` children, with `J = 0` at a goal
/// child and negative estimates read as 0.
pub fn bellman_targets(child_values: &[f32], child_goal: &[bool], at_goal: &[bool], out: &mut [f32]) {
    let moves = child_values.len() / out.len();
    for (r, y) in out.iter_mut().enumerate() {
        let children = r * moves..(r + 1) * moves;
        let best = child_values[children.clone()]
            .iter()
            .zip(&child_goal[children])
            .map(|(&j, &goal)| if goal { 0.0 } else { j.max(0.0) })
            .fold(f32::INFINITY, f32::min);
        *y = if at_goal[r] { 0.0 } else { 1.0 + best };
    }
}
