//! What the DQN loop needs to know about an environment beyond [`Env`].

use crate::{Result, RlError};
use minnow_envs::cube2::OBSERVATION_SIZE;
use minnow_envs::{CartPole, Cube2, CubeState, Env, Game2048, Step};

/// An environment a [`DqnRun`](super::DqnRun) can train on.
pub trait DqnEnv: Env {
    /// Whether some actions can be illegal (then the replay stores each
    /// next state's legal actions and bootstrapping respects them).
    const MASKED: bool = false;

    /// Starts an episode from `seed` at curriculum `level` (0 without a
    /// curriculum) and returns its difficulty, which the curriculum
    /// counts only when it equals the current level.
    fn start_episode(&mut self, seed: u64, level: usize) -> usize {
        let _ = level;
        self.reset(seed);
        0
    }

    /// Whether the episode that `last` ended was a success (for the
    /// curriculum and the success rate shown while training).
    fn succeeded(&self, last: &Step) -> bool {
        let _ = last;
        false
    }

    /// Whether [`DqnEnv::successors`] is implemented: the environment is a
    /// known deterministic model (what `DqnConfig::all_actions` needs).
    const MODEL: bool = false;

    /// What every action does from the state that `obs` shows: action
    /// `a`'s next observation into row `a` of `next_obs`, its reward (in
    /// the environment's units) into `rewards[a]`, and 1 into `terminal[a]`
    /// when it ends the episode (0 otherwise; a time limit is no end).
    /// Every action must be legal in every state (the learner bootstraps
    /// from all of them).
    fn successors(&self, obs: &[f32], next_obs: &mut [f32], rewards: &mut [f32], terminal: &mut [f32]) -> Result<()> {
        let _ = (obs, next_obs, rewards, terminal);
        Err(RlError::NoModel { env: Self::NAME })
    }
}

impl DqnEnv for CartPole {
    /// Balanced until the time limit.
    fn succeeded(&self, last: &Step) -> bool {
        last.truncated && !last.done
    }
}

impl DqnEnv for Game2048 {
    const MASKED: bool = true;
}

impl DqnEnv for Cube2 {
    /// Level L: scramble depth drawn uniformly from 1..=L (mixing in the
    /// easy depths keeps their values sharp as deeper ones are learned).
    fn start_episode(&mut self, seed: u64, level: usize) -> usize {
        if level > 0 {
            let depth = 1 + (splitmix(seed) % level as u64) as usize;
            self.set_scramble_depth(depth).expect("curriculum levels are validated to be >= 1");
        }
        self.reset(seed);
        self.config().scramble_depth
    }

    fn succeeded(&self, last: &Step) -> bool {
        last.done
    }

    const MODEL: bool = true;

    fn successors(&self, obs: &[f32], next_obs: &mut [f32], rewards: &mut [f32], terminal: &mut [f32]) -> Result<()> {
        let state = CubeState::from_one_hot(obs)?;
        let config = self.config();
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

/// A well-mixed hash, to draw from a seed without a generator.
pub(crate) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
