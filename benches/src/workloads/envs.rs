//! `env/cube2`, `env/2048`, `env/cartpole`: environment steps per second
//! as a DQN actor takes them. Each step draws a uniformly random legal
//! action, steps, and writes the observation into a reused buffer; an
//! episode that ends is reset at once (with the next seed) and observed.
//! The cube starts from depth-14 scrambles with the default 14-move limit;
//! 2048 uses the one-hot (256-value) observation.

use crate::roofline::Roofline;
use crate::{Work, Workload};
use minnow_envs::{CartPole, CartPoleConfig, Cube2, Cube2Config, Env, Game2048, Game2048Config};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Environment steps per `run` call.
const STEPS_PER_CALL: usize = 4096;

/// Random-action steps of one environment.
#[derive(Debug)]
pub struct EnvSteps<E: Env> {
    env: E,
    rng: Pcg64Mcg,
    observation: Vec<f32>,
    episodes: u64,
}

impl<E: Env> EnvSteps<E> {
    /// The workload on `env`.
    pub fn new(env: E) -> Self {
        let observation = vec![0.0; env.observation_size()];
        Self { env, rng: Pcg64Mcg::seed_from_u64(17), observation, episodes: 0 }
    }

    /// Takes `steps` random legal steps; returns the episodes finished.
    pub fn play(&mut self, steps: usize) -> u64 {
        let before = self.episodes;
        for _ in 0..steps {
            let mut legal = self.env.legal_mask();
            for _ in 0..self.rng.random_range(0..legal.count_ones()) {
                legal &= legal - 1;
            }
            let step = self.env.step(legal.trailing_zeros() as usize).expect("a legal action in a running episode");
            if step.is_over() {
                self.episodes += 1;
                self.env.reset(self.episodes);
            }
            self.env.observe(&mut self.observation);
        }
        std::hint::black_box(&self.observation);
        self.episodes - before
    }
}

impl<E: Env + Send> Workload for EnvSteps<E> {
    fn name(&self) -> String {
        format!("env/{}", E::NAME)
    }
    fn work(&self) -> Work {
        Work::Items(STEPS_PER_CALL as f64, "steps/s")
    }
    fn run(&mut self) {
        self.play(STEPS_PER_CALL);
    }
    fn roofline(&self) -> Roofline {
        Roofline::NoFloor(
            "branches and integer logic on a state of a few dozen bytes; its only unavoidable traffic, \
             the observation written into a reused L1-resident buffer, has no measured limit",
        )
    }
}

/// `env/cube2`.
pub fn cube2() -> EnvSteps<Cube2> {
    EnvSteps::new(Cube2::new(Cube2Config { scramble_depth: 14, ..Cube2Config::default() }).expect("valid config"))
}

/// `env/2048`.
pub fn game2048() -> EnvSteps<Game2048> {
    EnvSteps::new(Game2048::new(Game2048Config::default()).expect("valid config"))
}

/// `env/cartpole`.
pub fn cartpole() -> EnvSteps<CartPole> {
    EnvSteps::new(CartPole::new(CartPoleConfig::default()).expect("valid config"))
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(cube2()));
    list.push(Box::new(game2048()));
    list.push(Box::new(cartpole()));
}
