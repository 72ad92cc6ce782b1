//! Where every action leads from each sampled state, by the environment's
//! model: the next states learning every action bootstraps from.

use crate::Result;
use crate::dqn::EnvModel;

/// Row `r * actions + a` is what action `a` does from sampled state `r`.
#[derive(Debug, Default)]
pub(super) struct Successors {
    pub(super) obs: Vec<f32>,
    pub(super) rewards: Vec<f32>,
    pub(super) terminal: Vec<f32>,
}

impl Successors {
    /// Room for `rows` successors of `obs_size` values.
    pub(super) fn new(rows: usize, obs_size: usize) -> Self {
        Self { obs: vec![0.0; rows * obs_size], rewards: vec![0.0; rows], terminal: vec![0.0; rows] }
    }

    /// The successors of each row of `states` (`inputs` values each)
    /// under each of `actions` actions.
    pub(super) fn fill(&mut self, model: &dyn EnvModel, states: &[f32], inputs: usize, actions: usize) -> Result<()> {
        let per_state = actions * inputs;
        for (r, state) in states.chunks_exact(inputs).enumerate() {
            model.successors(
                state,
                &mut self.obs[r * per_state..(r + 1) * per_state],
                &mut self.rewards[r * actions..(r + 1) * actions],
                &mut self.terminal[r * actions..(r + 1) * actions],
            )?;
        }
        Ok(())
    }
}
