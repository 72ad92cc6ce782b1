//! CartPole as a DQN task: an episode succeeds when the pole stays up
//! until the time limit.

use crate::wrap::wrap_env;
use minnow_envs::{CartPole, Step};
use minnow_rl::dqn::DqnEnv;

/// [`CartPole`] with what DQN needs to know about it.
#[derive(Clone, Debug)]
pub struct CartPoleDqn(pub CartPole);

wrap_env!(CartPoleDqn, CartPole);

impl DqnEnv for CartPoleDqn {
    /// Balanced until the time limit.
    fn succeeded(&self, last: &Step) -> Option<bool> {
        Some(last.truncated && !last.done)
    }
}
