//! A corridor with a goal at both ends, whose moves are a known model
//! ([`EnvModel`]) and whose mirror image is a symmetric view
//! ([`Symmetries`]): the DQN capabilities on an environment written here.

use minnow_envs::{Env, EnvError, Step};
use minnow_rl::dqn::{DqnEnv, EnvModel, Symmetries};
use minnow_rl::{Result, RlError};

pub const CELLS: usize = 7;
const LEFT: usize = 0;

/// Cells `0..CELLS`, a goal (+1, the end) at either end, -0.05 a step.
#[derive(Clone, Debug)]
pub struct Corridor {
    pub cell: usize,
    pub steps: u32,
    pub over: bool,
    /// Whether it offers its model and its mirror view.
    pub capable: bool,
}

pub fn corridor(capable: bool) -> Corridor {
    Corridor { cell: 3, steps: 0, over: false, capable }
}

/// The step from `cell` by `action`: the next cell, its reward, whether it ends.
fn walk(cell: usize, action: usize) -> (usize, f32, bool) {
    let next = if action == LEFT { cell - 1 } else { cell + 1 };
    let end = next == 0 || next == CELLS - 1;
    (next, if end { 1.0 } else { -0.05 }, end)
}

fn one_hot(cell: usize, out: &mut [f32]) {
    out.fill(0.0);
    out[cell] = 1.0;
}

fn cell_of(obs: &[f32]) -> Result<usize> {
    let cell = obs.iter().position(|&v| v == 1.0).filter(|&c| c > 0 && c < CELLS - 1);
    cell.ok_or(RlError::Length { op: "corridor", what: "an inner cell", expected: 1, found: 0 })
}

impl Env for Corridor {
    const NAME: &'static str = "corridor";

    fn observation_size(&self) -> usize {
        CELLS
    }

    fn action_count(&self) -> usize {
        2
    }

    fn reset(&mut self, seed: u64) {
        *self = Corridor { cell: 1 + (seed % (CELLS as u64 - 2)) as usize, steps: 0, over: false, ..*self };
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        if self.over {
            return Err(EnvError::EpisodeOver { env: Self::NAME });
        }
        if action > 1 {
            return Err(EnvError::ActionOutOfRange { env: Self::NAME, action, action_count: 2 });
        }
        let (next, reward, done) = walk(self.cell, action);
        self.cell = next;
        self.steps += 1;
        let truncated = self.steps >= 20;
        self.over = done || truncated;
        Ok(Step { reward, done, truncated })
    }

    fn legal_mask(&self) -> u64 {
        if self.over { 0 } else { 0b11 }
    }

    fn observe(&self, out: &mut [f32]) {
        one_hot(self.cell, out);
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

impl DqnEnv for Corridor {
    fn succeeded(&self, last: &Step) -> Option<bool> {
        Some(last.done)
    }

    fn model(&self) -> Option<&dyn EnvModel> {
        self.capable.then_some(self as &dyn EnvModel)
    }

    fn symmetries(&self) -> Option<&dyn Symmetries> {
        self.capable.then_some(self as &dyn Symmetries)
    }
}

impl EnvModel for Corridor {
    fn successors(&self, obs: &[f32], next_obs: &mut [f32], rewards: &mut [f32], terminal: &mut [f32]) -> Result<()> {
        let cell = cell_of(obs)?;
        for (a, row) in next_obs.chunks_exact_mut(CELLS).enumerate() {
            let (next, reward, end) = walk(cell, a);
            one_hot(next, row);
            (rewards[a], terminal[a]) = (reward, end as u8 as f32);
        }
        Ok(())
    }
}

impl Symmetries for Corridor {
    fn count(&self) -> usize {
        2
    }

    /// View 1: the corridor mirrored, left and right swapped.
    fn view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()> {
        let cell = cell_of(obs)?;
        one_hot(if k == 0 { cell } else { CELLS - 1 - cell }, out);
        (actions[0], actions[1]) = if k == 0 { (0, 1) } else { (1, 0) };
        Ok(())
    }
}
