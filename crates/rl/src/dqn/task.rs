//! What the DQN loop needs to know about an environment beyond [`Env`].

use crate::{Result, RlError};
use minnow_envs::cube2::{CubeSymmetry, OBSERVATION_SIZE, SYMMETRY_COUNT};
use minnow_envs::game2048::{BOARD_SYMMETRY_COUNT, BoardSymmetry};
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
        Err(RlError::NoModel { env: Self::NAME, option: "all_actions", needs: "successors" })
    }

    /// Whether [`DqnEnv::afterstates`] is implemented (what
    /// `DqnConfig::afterstates` needs).
    const AFTERSTATES: bool = false;

    /// Where every action leads from the state that `obs` shows, before
    /// the environment's chance event (2048's tile spawn): action `a`'s
    /// afterstate observation into row `a` of `out` (a valid observation
    /// even for an illegal action) and its reward into `rewards[a]`.
    /// Returns the legal actions' mask.
    fn afterstates(&self, obs: &[f32], out: &mut [f32], rewards: &mut [f32]) -> Result<u64> {
        let _ = (obs, out, rewards);
        Err(RlError::NoModel { env: Self::NAME, option: "afterstates", needs: "afterstates" })
    }

    /// How many symmetric views of a state [`DqnEnv::symmetric_view`]
    /// gives (1: only the state itself).
    const SYMMETRIES: usize = 1;

    /// View `k` of the state `obs` shows, into `out`: a state exactly as
    /// good, where action `actions[a]` does what action `a` does in the
    /// original. View 0 is the state itself.
    fn symmetric_view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()> {
        if k > 0 {
            return Err(RlError::NoModel { env: Self::NAME, option: "symmetric_eval", needs: "symmetric_view" });
        }
        out.copy_from_slice(obs);
        actions.iter_mut().enumerate().for_each(|(a, v)| *v = a);
        Ok(())
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

    const AFTERSTATES: bool = true;

    /// The board slid (and merged) each way, before the new tile appears.
    fn afterstates(&self, obs: &[f32], out: &mut [f32], rewards: &mut [f32]) -> Result<u64> {
        let encoding = self.config().encoding;
        let board = encoding.read(obs)?;
        let (boards, gains) = board.slides();
        let mut legal = 0;
        for (m, row) in out.chunks_exact_mut(obs.len()).enumerate() {
            encoding.write(boards[m], row);
            rewards[m] = gains[m] as f32;
            legal |= ((boards[m] != board) as u64) << m;
        }
        Ok(legal)
    }

    const SYMMETRIES: usize = BOARD_SYMMETRY_COUNT;

    /// The board turned or mirrored.
    fn symmetric_view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()> {
        let encoding = self.config().encoding;
        let symmetry = &BoardSymmetry::all()[k];
        encoding.write(symmetry.apply(encoding.read(obs)?), out);
        actions.iter_mut().enumerate().for_each(|(a, v)| *v = symmetry.map_move(a));
        Ok(())
    }
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

    const SYMMETRIES: usize = SYMMETRY_COUNT;

    /// The whole cube turned and maybe mirrored, the reference corner kept.
    fn symmetric_view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()> {
        Ok(CubeSymmetry::all()[k].view(obs, out, actions)?)
    }

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
