//! Greedy play of a learner, batched: every game of a set advances one
//! move per forward pass. It touches none of the learner's training state
//! (its own tape, no random draws of the learner), so a task's evaluation
//! can run between training steps.

use super::{DqnEnv, DqnLearner};
use crate::Result;
use minnow_envs::{check_env_sizes, legal_mask_checked, observe_checked};

/// How one greedy episode went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Moves made.
    pub steps: u32,
    /// Undiscounted return, in the environment's reward units.
    pub ret: f32,
    /// [`DqnEnv::succeeded`] on the last step; `None` if the budget ran
    /// out first (see `over`) or the environment judges no success.
    pub success: Option<bool>,
    /// The episode ended before the budget ran out.
    pub over: bool,
}

/// Plays every env greedily, all in one batch, until its episode is over
/// or it has made `budget` moves. An error if an environment breaks a
/// promise of `Env` (a value of an observation left unwritten, a
/// legal-action mask empty or past the actions) or refuses a move.
pub fn play_greedy<E: DqnEnv>(learner: &mut DqnLearner, envs: &mut [E], budget: usize) -> Result<Vec<Outcome>> {
    let n = envs.len();
    let o = envs.first().map_or(0, |e| e.observation_size());
    if let Some(env) = envs.first() {
        check_env_sizes(env)?;
    }
    let mut outcomes = vec![Outcome::default(); n];
    let mut active: Vec<usize> = (0..n).filter(|&i| !envs[i].is_over()).collect();
    let (mut obs, mut masks, mut actions) = (vec![0.0; n * o], vec![0u64; n], vec![0u32; n]);
    for _ in 0..budget {
        if active.is_empty() {
            break;
        }
        for (row, &i) in active.iter().enumerate() {
            observe_checked(&envs[i], &mut obs[row * o..(row + 1) * o])?;
            masks[row] = legal_mask_checked(&envs[i])?;
        }
        let rows = active.len();
        learner.eval_greedy(&envs[0], &obs[..rows * o], &masks[..rows], &mut actions[..rows])?;
        for (row, &i) in active.iter().enumerate() {
            let step = envs[i].step(actions[row] as usize)?;
            let outcome = &mut outcomes[i];
            outcome.steps += 1;
            outcome.ret += step.reward;
            if step.is_over() {
                outcome.over = true;
                outcome.success = envs[i].succeeded(&step);
            }
        }
        active.retain(|&i| !outcomes[i].over);
    }
    Ok(outcomes)
}
