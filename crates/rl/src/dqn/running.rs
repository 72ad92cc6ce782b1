//! The episodes a DQN run has under way, kept as what replays them: the
//! seed and curriculum level each started from and the actions taken
//! since. An episode is fixed by these ([`DqnEnv::start_episode`](super::DqnEnv::start_episode)),
//! so a checkpoint written between boundaries (where a stop lands)
//! carries them rather than the environments' own state, and the resumed
//! run replays them to where they stood.

use serde::{Deserialize, Serialize};

/// Room for an episode's actions from the start: a log grows (doubling)
/// only when an episode outlasts every earlier one of its environment,
/// so steady steps allocate nothing.
const ACTIONS_ROOM: usize = 1024;

/// One environment's episode under way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Running {
    /// The seed the episode started from.
    pub seed: u64,
    /// The curriculum level it started at (0 without a curriculum).
    pub level: usize,
    /// The actions taken since (every action is below 64).
    pub actions: Vec<u8>,
}

impl Running {
    /// No episode yet, with room for a long one.
    pub(crate) fn new() -> Self {
        Self { seed: 0, level: 0, actions: Vec::with_capacity(ACTIONS_ROOM) }
    }

    /// A new episode from `seed` at `level`.
    pub(crate) fn start(&mut self, seed: u64, level: usize) {
        (self.seed, self.level) = (seed, level);
        self.actions.clear();
    }

    /// Adds the action just taken.
    pub(crate) fn record(&mut self, action: u32) {
        debug_assert!(action < 64, "Running::record: action {action} of at most 64");
        self.actions.push(action as u8);
    }
}
