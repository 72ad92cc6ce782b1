//! Supervised pretraining of a cube Q network from the exact BFS distances
//! (an option, reported apart from reinforcement learning alone).

use minnow_envs::cube2::{MOVE_COUNT, OBSERVATION_SIZE};
use minnow_envs::{CubeDistances, CubeState};
use minnow_rl::Result;
use minnow_rl::dqn::DqnLearner;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The value of a state `d` moves from solved when every move costs
/// `step_reward` except the solving one, which pays `solved_reward`.
fn value(d: usize, gamma: f64, step_reward: f64, solved_reward: f64) -> f64 {
    if d == 0 {
        return 0.0;
    }
    // d - 1 paid moves, then the solving move.
    (0..d - 1).map(|k| gamma.powi(k as i32) * step_reward).sum::<f64>() + gamma.powi(d as i32 - 1) * solved_reward
}

/// Regresses every action's Q onto its exact value, on positions drawn
/// uniformly over distances 1..=14, for `steps` Adam steps of `batch`
/// positions; then copies the result into the target network. Returns the
/// last loss.
pub fn pretrain_cube(
    learner: &mut DqnLearner,
    steps: u64,
    batch: usize,
    step_reward: f32,
    solved_reward: f32,
    seed: u64,
) -> Result<f32> {
    let table = CubeDistances::get();
    let gamma = learner.config().gamma as f64;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let (mut obs, mut targets) = (vec![0.0; batch * OBSERVATION_SIZE], vec![0.0; batch * MOVE_COUNT]);
    let mut loss = f32::NAN;
    for _ in 0..steps {
        for b in 0..batch {
            let d = rng.random_range(1..=table.diameter());
            let state: CubeState = table.sample_at_distance(d, &mut rng)?;
            state.write_one_hot(&mut obs[b * OBSERVATION_SIZE..(b + 1) * OBSERVATION_SIZE]);
            for m in 0..MOVE_COUNT {
                let next = state.apply(m);
                targets[b * MOVE_COUNT + m] = if next.is_solved() {
                    solved_reward
                } else {
                    (step_reward as f64
                        + gamma * value(table.distance(&next), gamma, step_reward as f64, solved_reward as f64))
                        as f32
                };
            }
        }
        loss = learner.regress(&obs, &targets)?;
    }
    learner.sync_target()?;
    Ok(loss)
}
