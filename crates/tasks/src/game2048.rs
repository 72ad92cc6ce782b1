//! 2048 as a DQN task: some moves are illegal, a move's afterstate is the
//! board slid before the new tile appears, and the board's 8 turns and
//! mirrors are views.

use crate::wrap::wrap_env;
use minnow_envs::Game2048;
use minnow_envs::game2048::{BOARD_SYMMETRY_COUNT, BoardSymmetry};
use minnow_rl::Result;
use minnow_rl::dqn::{AfterstateModel, DqnEnv, Symmetries};

/// [`Game2048`] with what DQN needs to know about it.
#[derive(Clone, Debug)]
pub struct Game2048Dqn(pub Game2048);

wrap_env!(Game2048Dqn, Game2048);

impl DqnEnv for Game2048Dqn {
    const MASKED: bool = true;

    fn afterstate_model(&self) -> Option<&dyn AfterstateModel> {
        Some(self)
    }

    fn symmetries(&self) -> Option<&dyn Symmetries> {
        Some(self)
    }
}

impl AfterstateModel for Game2048Dqn {
    /// The board slid (and merged) each way, before the new tile appears.
    fn afterstates(&self, obs: &[f32], out: &mut [f32], rewards: &mut [f32]) -> Result<u64> {
        let encoding = self.0.config().encoding;
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
}

impl Symmetries for Game2048Dqn {
    fn count(&self) -> usize {
        BOARD_SYMMETRY_COUNT
    }

    /// The board turned or mirrored.
    fn view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()> {
        let encoding = self.0.config().encoding;
        let symmetry = &BoardSymmetry::all()[k];
        encoding.write(symmetry.apply(encoding.read(obs)?), out);
        actions.iter_mut().enumerate().for_each(|(a, v)| *v = symmetry.map_move(a));
        Ok(())
    }
}
