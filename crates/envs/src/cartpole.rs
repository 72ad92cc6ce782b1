//! CartPole exactly as gymnasium's `CartPole-v1`: the Barto, Sutton and
//! Anderson cart-pole with Euler integration, in f64 like gymnasium (the
//! observation is cast to f32 as gymnasium returns it). Seeds do not
//! reproduce gymnasium's numpy streams; the dynamics and episode rules do.

use crate::{Env, EnvError, Step, env::check_action};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// Gravity, m/s² (the physics constants are gymnasium's).
pub const GRAVITY: f64 = 9.8;
/// Mass of the cart, kg.
pub const MASS_CART: f64 = 1.0;
/// Mass of the pole, kg.
pub const MASS_POLE: f64 = 0.1;
/// Half the pole's length.
pub const HALF_LENGTH: f64 = 0.5;
/// The push, N.
pub const FORCE: f64 = 10.0;
/// Seconds per step.
pub const TAU: f64 = 0.02;
/// The episode ends when |theta| exceeds 12 degrees...
pub const THETA_THRESHOLD: f64 = 12.0 * 2.0 * std::f64::consts::PI / 360.0;
/// ...or the cart leaves [-2.4, 2.4].
pub const X_THRESHOLD: f64 = 2.4;
/// Each state variable starts uniform in [-0.05, 0.05).
pub const INITIAL_BOUND: f64 = 0.05;

/// Push the cart left (action 0).
pub const PUSH_LEFT: usize = 0;
/// Push the cart right (action 1).
pub const PUSH_RIGHT: usize = 1;

/// CartPole's options.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CartPoleConfig {
    /// Steps before truncation (gymnasium's TimeLimit for v1: 500).
    pub max_steps: usize,
}

impl Default for CartPoleConfig {
    fn default() -> Self {
        Self { max_steps: 500 }
    }
}

impl CartPoleConfig {
    /// Checks every field, naming the one out of range.
    pub fn validate(&self) -> Result<(), EnvError> {
        if !(1..=crate::MAX_EPISODE_STEPS).contains(&self.max_steps) {
            let expected = "1..=1000000 (MAX_EPISODE_STEPS)";
            return Err(minnow_config::Check("CartPoleConfig")
                .count("max_steps", expected, self.max_steps as u64)
                .into());
        }
        Ok(())
    }
}

/// Cart-pole balancing. State and observation are (x, x_dot, theta,
/// theta_dot); actions [`PUSH_LEFT`] and [`PUSH_RIGHT`] push with 10 N.
/// Every step pays 1, including the one that drops the pole (`done`).
#[derive(Clone, Debug)]
pub struct CartPole {
    config: CartPoleConfig,
    state: [f64; 4],
    steps: usize,
    over: bool,
}

impl CartPole {
    /// A CartPole with `config`, reset with seed 0.
    pub fn new(config: CartPoleConfig) -> Result<Self, EnvError> {
        config.validate()?;
        let mut env = Self { config, state: [0.0; 4], steps: 0, over: false };
        env.reset(0);
        Ok(env)
    }

    /// (x, x_dot, theta, theta_dot).
    pub fn state(&self) -> [f64; 4] {
        self.state
    }

    /// Starts a new episode from `state`.
    pub fn reset_to(&mut self, state: [f64; 4]) {
        self.state = state;
        self.steps = 0;
        self.over = false;
    }

    /// Steps taken in this episode.
    pub fn steps(&self) -> usize {
        self.steps
    }
}

impl Env for CartPole {
    const NAME: &'static str = "cartpole";

    fn observation_size(&self) -> usize {
        4
    }

    fn action_count(&self) -> usize {
        2
    }

    fn reset(&mut self, seed: u64) {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let state = std::array::from_fn(|_| rng.random_range(-INITIAL_BOUND..INITIAL_BOUND));
        self.reset_to(state);
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        let [x, x_dot, theta, theta_dot] = self.state;
        let force = if action == PUSH_RIGHT { FORCE } else { -FORCE };
        let (sin, cos) = theta.sin_cos();
        let total_mass = MASS_POLE + MASS_CART;
        let pole_mass_length = MASS_POLE * HALF_LENGTH;
        // The equations of motion as gymnasium writes them (Florian 2005,
        // frictionless), term for term so the rounding matches too.
        let temp = (force + pole_mass_length * theta_dot * theta_dot * sin) / total_mass;
        let theta_acc = (GRAVITY * sin - cos * temp) / (HALF_LENGTH * (4.0 / 3.0 - MASS_POLE * cos * cos / total_mass));
        let x_acc = temp - pole_mass_length * theta_acc * cos / total_mass;
        self.state = [x + TAU * x_dot, x_dot + TAU * x_acc, theta + TAU * theta_dot, theta_dot + TAU * theta_acc];
        self.steps += 1;
        let [x, _, theta, _] = self.state;
        let done = !(-X_THRESHOLD..=X_THRESHOLD).contains(&x) || !(-THETA_THRESHOLD..=THETA_THRESHOLD).contains(&theta);
        let truncated = self.steps >= self.config.max_steps;
        self.over = done || truncated;
        Ok(Step { reward: 1.0, done, truncated })
    }

    fn legal_mask(&self) -> u64 {
        if self.over { 0 } else { 0b11 }
    }

    #[track_caller]
    fn observe(&self, out: &mut [f32]) {
        assert_eq!(out.len(), 4, "cartpole observe: buffer length");
        for (o, &s) in out.iter_mut().zip(&self.state) {
            *o = s as f32;
        }
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(found: [f64; 4], expected: [f64; 4]) {
        for k in 0..4 {
            assert!((found[k] - expected[k]).abs() < 1e-12, "component {k}: {found:?} vs {expected:?}");
        }
    }

    #[test]
    fn first_steps_from_rest_by_hand() {
        // At theta = 0: temp = 10 / 1.1 = 100/11; the denominator is
        // 0.5 (4/3 - 0.1/1.1) = 41/66, so theta_acc = -600/41 and
        // x_acc = 100/11 + 0.05 (600/41) / 1.1 = 4400/451.
        let mut env = CartPole::new(CartPoleConfig::default()).unwrap();
        env.reset_to([0.0; 4]);
        assert_eq!(env.step(PUSH_RIGHT).unwrap(), Step { reward: 1.0, done: false, truncated: false });
        assert_close(env.state(), [0.0, 0.02 * 4400.0 / 451.0, 0.0, -0.02 * 600.0 / 41.0]);
        // theta is still 0, so the accelerations repeat; positions move by tau * velocity.
        env.step(PUSH_RIGHT).unwrap();
        assert_close(
            env.state(),
            [0.02 * 0.02 * 4400.0 / 451.0, 0.04 * 4400.0 / 451.0, -0.02 * 0.02 * 600.0 / 41.0, -0.04 * 600.0 / 41.0],
        );
        let mut obs = [0.0f32; 4];
        env.observe(&mut obs);
        assert_eq!(obs, env.state().map(|s| s as f32));
    }

    #[test]
    fn a_tilted_step_matches_gymnasiums_formula() {
        // From gymnasium's step() evaluated in Python (float64) at
        // (0.01, -0.02, 0.03, 0.04) with action 0.
        let mut env = CartPole::new(CartPoleConfig::default()).unwrap();
        env.reset_to([0.01, -0.02, 0.03, 0.04]);
        env.step(PUSH_LEFT).unwrap();
        assert_close(
            env.state(),
            [0.009600000000000001, -0.21553901710278936, 0.030799999999999998, 0.34199522377603914],
        );
    }

    #[test]
    fn pushing_one_way_drops_the_pole_on_step_nine() {
        let mut env = CartPole::new(CartPoleConfig::default()).unwrap();
        env.reset_to([0.0; 4]);
        for _ in 0..8 {
            assert!(!env.step(PUSH_RIGHT).unwrap().is_over());
        }
        assert_eq!(env.step(PUSH_RIGHT).unwrap(), Step { reward: 1.0, done: true, truncated: false });
        assert!(env.state()[2] < -THETA_THRESHOLD);
        assert_eq!(env.step(PUSH_RIGHT), Err(EnvError::EpisodeOver { env: "cartpole" }));
    }

    #[test]
    fn a_balancing_controller_is_truncated_at_500() {
        let mut env = CartPole::new(CartPoleConfig::default()).unwrap();
        for seed in 0..10 {
            env.reset(seed);
            for t in 1..=500 {
                let [_, _, theta, theta_dot] = env.state();
                let step = env.step(if theta + 0.5 * theta_dot > 0.0 { PUSH_RIGHT } else { PUSH_LEFT }).unwrap();
                assert!(!step.done);
                assert_eq!(step.truncated, t == 500);
            }
            assert!(env.is_over());
        }
    }

    #[test]
    fn resets_are_seeded_and_small() {
        let mut env = CartPole::new(CartPoleConfig::default()).unwrap();
        let mut first = [0.0; 4];
        for seed in 0..1000 {
            env.reset(seed);
            assert!(env.state().iter().all(|s| s.abs() <= INITIAL_BOUND));
            if seed == 0 {
                first = env.state();
            }
        }
        env.reset(0);
        assert_eq!(env.state(), first);
        assert_eq!(env.step(2), Err(EnvError::ActionOutOfRange { env: "cartpole", action: 2, action_count: 2 }));
        assert!(CartPole::new(CartPoleConfig { max_steps: 0 }).is_err());
    }
}
