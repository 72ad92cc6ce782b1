//! The 2x2x2 cube as a DQN task: an episode succeeds when the cube is
//! solved, curriculum level L draws scramble depths from 1..=L, the
//! cube's moves are a known model, and its 48 symmetries are views.

use crate::wrap::wrap_env;
use minnow_envs::cube2::{CubeSymmetry, OBSERVATION_SIZE, SYMMETRY_COUNT};
use minnow_envs::{Cube2, CubeState, Env, Step};
use minnow_rl::dqn::{DqnEnv, EnvModel, Symmetries};
use minnow_rl::{Result, splitmix};

/// [`Cube2`] with what DQN needs to know about it.
#[derive(Clone, Debug)]
pub struct CubeDqn(pub Cube2);

wrap_env!(CubeDqn, Cube2);

impl DqnEnv for CubeDqn {
    /// Level L: scramble depth drawn uniformly from 1..=L (mixing in the
    /// easy depths keeps their values sharp as deeper ones are learned).
    fn start_episode(&mut self, seed: u64, level: usize) -> usize {
        if level > 0 {
            let depth = 1 + (splitmix(seed) % level as u64) as usize;
            self.0.set_scramble_depth(depth).expect("curriculum levels are validated to be >= 1");
        }
        self.0.reset(seed);
        self.0.config().scramble_depth
    }

    fn succeeded(&self, last: &Step) -> Option<bool> {
        Some(last.done)
    }

    fn model(&self) -> Option<&dyn EnvModel> {
        Some(self)
    }

    fn symmetries(&self) -> Option<&dyn Symmetries> {
        Some(self)
    }
}

impl EnvModel for CubeDqn {
    /// Each of the six moves applied to the cube `obs` shows.
    fn successors(&self, obs: &[f32], next_obs: &mut [f32], rewards: &mut [f32], terminal: &mut [f32]) -> Result<()> {
        let state = CubeState::from_one_hot(obs)?;
        let config = self.0.config();
        for (m, row) in next_obs.chunks_exact_mut(OBSERVATION_SIZE).enumerate() {
            let next = state.apply(m);
            next.write_one_hot(row);
            let solved = next.is_solved();
            rewards[m] = if solved { config.reward_solved } else { config.reward_step };
            terminal[m] = solved as u8 as f32;
        }
        Ok(())
    }
}

impl Symmetries for CubeDqn {
    fn count(&self) -> usize {
        SYMMETRY_COUNT
    }

    /// The whole cube turned and maybe mirrored, the reference corner kept.
    fn view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()> {
        Ok(CubeSymmetry::all()[k].view(obs, out, actions)?)
    }
}
