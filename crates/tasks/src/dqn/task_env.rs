//! What differs between the DQN tasks: the environment's config and
//! preset, the metric the curve shows, the oracle to pretrain from and the
//! greedy evaluation; one implementation per shipped environment.

use super::{DqnEvalConfig, DqnTaskConfig};
use crate::eval::{evaluate_2048, evaluate_cube};
use crate::{CartPoleDqn, CubeDqn, Game2048Dqn, presets, pretrain_cube};
use minnow_envs::{CartPole, CartPoleConfig, Cube2, Cube2Config, EnvError, Game2048, Game2048Config};
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{DqnEnv, DqnLearner};
use minnow_train::Metrics;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Supervised pretraining from an oracle: `(learner, env, steps, seed)` to
/// the last loss.
pub type Pretrain<C> = fn(&mut DqnLearner, &C, u64, u64) -> minnow_rl::Result<f32>;

/// An environment a DQN task trains on, with what the task needs to know
/// about it.
pub trait DqnTaskEnv: DqnEnv + Clone + Send + Sync + Sized + 'static {
    /// The environment's config.
    type EnvConfig: Clone + std::fmt::Debug + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The task's name (`dqn-cube`).
    const TASK: &'static str;
    /// One line on what it trains and to what target.
    const ABOUT: &'static str;
    /// The metric plotted beside the loss.
    const HEADLINE: &'static str = "mean_return_last_100";
    /// Supervised pretraining from an oracle, where the task has one.
    const PRETRAIN: Option<Pretrain<Self::EnvConfig>> = None;

    /// The preset.
    fn defaults() -> DqnTaskConfig<Self::EnvConfig>;

    /// The environment `config` describes.
    fn build(config: &Self::EnvConfig) -> Result<Self, EnvError>;

    /// Evaluation metrics (the headline first) and a table to print: by
    /// default the greedy policy's mean return over `count` episodes, the
    /// environment reset with seeds `seed`, `seed + 1`, ...
    fn evaluate(learner: &mut DqnLearner, env: &Self, count: usize, seed: u64) -> minnow_rl::Result<(Metrics, String)> {
        let mut envs: Vec<Self> = (0..count as u64)
            .map(|k| {
                let mut e = env.clone();
                e.reset(seed + k);
                e
            })
            .collect();
        let outcomes = play_greedy(learner, &mut envs, usize::MAX)?;
        let mean = outcomes.iter().map(|o| o.ret as f64).sum::<f64>() / count.max(1) as f64;
        Ok((vec![("greedy_return", mean)], format!("greedy return over {count} episodes: {mean:.1}\n")))
    }
}

impl DqnTaskEnv for CubeDqn {
    type EnvConfig = Cube2Config;
    const TASK: &'static str = "dqn-cube";
    const ABOUT: &'static str = "DQN on the 2x2x2 cube from scrambles, with a curriculum";
    const HEADLINE: &'static str = "solved_d7_2d";
    const PRETRAIN: Option<Pretrain<Cube2Config>> =
        Some(|learner, env, steps, seed| pretrain_cube(learner, steps, 256, env.reward_step, env.reward_solved, seed));

    /// A cost of 1 per move: Q estimates minus the moves left, so
    /// neighbouring distances differ by a whole unit at every depth.
    fn defaults() -> DqnTaskConfig<Cube2Config> {
        let env = Cube2Config { scramble_depth: 1, max_steps: 14, reward_solved: 0.0, reward_step: -1.0 };
        DqnTaskConfig {
            dqn: presets::cube(),
            env,
            eval: DqnEvalConfig { during: 100, last: 1000, seed: 2024 },
            pretrain_steps: 0,
        }
    }

    fn build(config: &Cube2Config) -> Result<Self, EnvError> {
        Cube2::new(*config).map(CubeDqn)
    }

    fn evaluate(learner: &mut DqnLearner, _: &Self, count: usize, seed: u64) -> minnow_rl::Result<(Metrics, String)> {
        let results = evaluate_cube(learner, 1..=14, count, seed)?;
        let at = |d: usize| results[d - 1];
        let metrics = vec![
            ("solved_d7_2d", at(7).solved_within_2d),
            ("solved_d4_d", at(4).solved_within_d),
            ("solved_d7_d", at(7).solved_within_d),
            ("solved_d10_2d", at(10).solved_within_2d),
            ("solved_d14_2d", at(14).solved_within_2d),
        ];
        let mut table =
            format!("{:>8} {:>10} {:>12} {:>12} {:>12}\n", "distance", "positions", "within d", "within 2d", "excess");
        for r in &results {
            table += &format!(
                "{:>8} {:>10} {:>11.1}% {:>11.1}% {:>12.2}\n",
                r.distance,
                r.positions,
                100.0 * r.solved_within_d,
                100.0 * r.solved_within_2d,
                r.mean_excess
            );
        }
        Ok((metrics, table))
    }
}

impl DqnTaskEnv for Game2048Dqn {
    type EnvConfig = Game2048Config;
    const TASK: &'static str = "dqn-2048";
    const ABOUT: &'static str = "DQN playing 2048";
    const HEADLINE: &'static str = "mean_score";

    fn defaults() -> DqnTaskConfig<Game2048Config> {
        DqnTaskConfig {
            dqn: presets::game2048(),
            env: Game2048Config::default(),
            eval: DqnEvalConfig { during: 100, last: 1000, seed: 2048 },
            pretrain_steps: 0,
        }
    }

    fn build(config: &Game2048Config) -> Result<Self, EnvError> {
        Game2048::new(*config).map(Game2048Dqn)
    }

    fn evaluate(learner: &mut DqnLearner, env: &Self, count: usize, seed: u64) -> minnow_rl::Result<(Metrics, String)> {
        let r = evaluate_2048(learner, env, count, seed)?;
        Ok((r.metrics(), format!("{r}\n")))
    }
}

impl DqnTaskEnv for CartPoleDqn {
    type EnvConfig = CartPoleConfig;
    const TASK: &'static str = "dqn-cartpole";
    const ABOUT: &'static str = "DQN on CartPole-v1, target mean return >= 475 within 100k steps";

    fn defaults() -> DqnTaskConfig<CartPoleConfig> {
        DqnTaskConfig {
            dqn: presets::cartpole(),
            env: CartPoleConfig::default(),
            eval: DqnEvalConfig { during: 20, last: 100, seed: 500 },
            pretrain_steps: 0,
        }
    }

    fn build(config: &CartPoleConfig) -> Result<Self, EnvError> {
        CartPole::new(*config).map(CartPoleDqn)
    }
}
