//! The 2x2x2 cube as an environment: start from a scramble, solve it.

mod distances;
mod state;
mod symmetry;

pub use distances::CubeDistances;
pub use state::{CubeState, MOVE_COUNT, MOVE_NAMES, OBSERVATION_SIZE, STATE_COUNT, inverse};
pub use symmetry::{CubeSymmetry, SYMMETRY_COUNT};

use crate::{Env, EnvError, Step, env::check_action};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// How episodes start, end and pay.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cube2Config {
    /// Moves in the scramble a reset starts from (at least 1); a
    /// curriculum raises it with [`Cube2::set_scramble_depth`].
    pub scramble_depth: usize,
    /// Moves before the episode is truncated (at least 1). The default is
    /// the diameter, 14: every state can be solved within it.
    pub max_steps: usize,
    /// Reward of the move that solves the cube.
    pub reward_solved: f32,
    /// Reward of every other move.
    pub reward_step: f32,
}

impl Default for Cube2Config {
    fn default() -> Self {
        Self { scramble_depth: 7, max_steps: 14, reward_solved: 1.0, reward_step: 0.0 }
    }
}

impl Cube2Config {
    /// Checks every field, naming the one out of range.
    pub fn validate(&self) -> Result<(), EnvError> {
        let check = minnow_config::Check("Cube2Config");
        check.count_in("scramble_depth", "at least 1", self.scramble_depth as u64, 1, u64::MAX)?;
        let steps = self.max_steps as u64;
        check.count_in("max_steps", "1..=1000000 (MAX_EPISODE_STEPS)", steps, 1, crate::MAX_EPISODE_STEPS as u64)?;
        check.finite("reward_solved", self.reward_solved)?;
        check.finite("reward_step", self.reward_step)?;
        Ok(())
    }
}

/// The 2x2x2 cube: 6 actions (quarter turns of U, R, F both ways, see
/// [`MOVE_NAMES`]), all always legal; observation is the one-hot sticker
/// colours (144 values, see [`CubeState::write_one_hot`]). The episode is
/// done when a move solves the cube and truncated after `max_steps` moves.
#[derive(Clone, Debug)]
pub struct Cube2 {
    config: Cube2Config,
    state: CubeState,
    steps: usize,
    over: bool,
}

impl Cube2 {
    /// A cube environment with `config`.
    pub fn new(config: Cube2Config) -> Result<Self, EnvError> {
        config.validate()?;
        let mut env = Self { config, state: CubeState::SOLVED, steps: 0, over: false };
        env.reset(0);
        Ok(env)
    }

    /// Its options.
    pub fn config(&self) -> &Cube2Config {
        &self.config
    }

    /// The scramble depth of later resets.
    pub fn set_scramble_depth(&mut self, depth: usize) -> Result<(), EnvError> {
        let config = Cube2Config { scramble_depth: depth, ..self.config };
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// The step limit, from the current episode on.
    pub fn set_max_steps(&mut self, max_steps: usize) -> Result<(), EnvError> {
        let config = Cube2Config { max_steps, ..self.config };
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// Starts a new episode from `state` (for evaluation sets drawn with
    /// [`CubeDistances::sample_at_distance`]). A solved start is allowed:
    /// the episode then ends when a move solves the cube again.
    pub fn reset_to(&mut self, state: CubeState) {
        self.state = state;
        self.steps = 0;
        self.over = false;
    }

    /// The cube's current state.
    pub fn state(&self) -> &CubeState {
        &self.state
    }

    /// Moves taken in this episode.
    pub fn steps(&self) -> usize {
        self.steps
    }
}

impl Env for Cube2 {
    const NAME: &'static str = "cube2";

    fn observation_size(&self) -> usize {
        OBSERVATION_SIZE
    }

    fn action_count(&self) -> usize {
        MOVE_COUNT
    }

    /// Scrambles `scramble_depth` moves from solved, drawing again in the
    /// rare case the walk comes back to solved.
    fn reset(&mut self, seed: u64) {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut state = CubeState::scrambled(self.config.scramble_depth, &mut rng);
        while state.is_solved() {
            state = CubeState::scrambled(self.config.scramble_depth, &mut rng);
        }
        self.reset_to(state);
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        self.state = self.state.apply(action);
        self.steps += 1;
        let done = self.state.is_solved();
        let truncated = self.steps >= self.config.max_steps;
        self.over = done || truncated;
        let reward = if done { self.config.reward_solved } else { self.config.reward_step };
        Ok(Step { reward, done, truncated })
    }

    fn legal_mask(&self) -> u64 {
        if self.over { 0 } else { (1 << MOVE_COUNT) - 1 }
    }

    #[track_caller]
    fn observe(&self, out: &mut [f32]) {
        self.state.write_one_hot(out);
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solving_move_ends_the_episode_with_the_reward() {
        let mut env = Cube2::new(Cube2Config { scramble_depth: 1, ..Cube2Config::default() }).unwrap();
        for seed in 0..20 {
            env.reset(seed);
            let table = CubeDistances::get();
            assert_eq!(table.distance(env.state()), 1);
            let m = table.optimal_moves(env.state()).trailing_zeros() as usize;
            assert_eq!(env.step(m).unwrap(), Step { reward: 1.0, done: true, truncated: false });
            assert!(env.is_over());
            assert_eq!(env.legal_mask(), 0);
            assert_eq!(env.step(m), Err(EnvError::EpisodeOver { env: "cube2" }));
        }
    }

    #[test]
    fn episode_is_truncated_at_the_step_limit() {
        let config = Cube2Config { scramble_depth: 5, max_steps: 3, reward_step: -0.1, ..Cube2Config::default() };
        let mut env = Cube2::new(config).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let start = CubeDistances::get().sample_at_distance(5, &mut rng).unwrap();
        env.reset_to(start);
        // Three moves cannot solve a position five moves from solved.
        let steps: Vec<Step> = [0, 1, 0].iter().map(|&a| env.step(a).unwrap()).collect();
        assert_eq!(steps[0], Step { reward: -0.1, done: false, truncated: false });
        assert_eq!(steps[2], Step { reward: -0.1, done: false, truncated: true });
        assert_eq!(*env.state(), start.apply(0));
        assert_eq!(env.step(0), Err(EnvError::EpisodeOver { env: "cube2" }));
    }

    #[test]
    fn resets_are_seeded_and_never_start_solved() {
        let mut a = Cube2::new(Cube2Config { scramble_depth: 4, ..Cube2Config::default() }).unwrap();
        let mut b = a.clone();
        let mut distinct = std::collections::HashSet::new();
        for seed in 0..2000 {
            a.reset(seed);
            b.reset(seed);
            assert_eq!(a.state(), b.state());
            assert!(!a.state().is_solved());
            distinct.insert(*a.state());
        }
        assert!(distinct.len() > 300, "{} distinct depth-4 scrambles", distinct.len());
    }

    #[test]
    fn bad_actions_and_configs_are_errors() {
        let mut env = Cube2::new(Cube2Config::default()).unwrap();
        let before = *env.state();
        assert_eq!(env.step(6), Err(EnvError::ActionOutOfRange { env: "cube2", action: 6, action_count: 6 }));
        assert_eq!(*env.state(), before);
        assert_eq!(env.steps(), 0);
        let err = Cube2::new(Cube2Config { scramble_depth: 0, ..Cube2Config::default() }).unwrap_err();
        assert!(matches!(&err, EnvError::Config(e) if e.key == "scramble_depth"), "{err:?}");
        assert_eq!(err.to_string(), "Cube2Config.scramble_depth: expected at least 1, found 0");
        assert!(env.set_max_steps(0).is_err());
        assert!(Cube2::new(Cube2Config { reward_step: f32::NAN, ..Cube2Config::default() }).is_err());
        let mut mask = [false; 6];
        env.legal_actions(&mut mask);
        assert_eq!(mask, [true; 6]);
    }

    #[test]
    fn config_reads_from_json_with_defaults() {
        let c: Cube2Config = serde_json::from_str(r#"{"scramble_depth": 3}"#).unwrap();
        assert_eq!(c, Cube2Config { scramble_depth: 3, ..Cube2Config::default() });
        assert!(serde_json::from_str::<Cube2Config>(r#"{"scramble": 3}"#).is_err());
    }
}
