//! What the DQN loop needs to know about an environment beyond [`Env`],
//! and the capabilities some environments add: a model of every action's
//! result ([`EnvModel`]), afterstates ([`AfterstateModel`]) and symmetric
//! views ([`Symmetries`]). An environment offers a capability by
//! implementing its trait and returning itself from the matching
//! [`DqnEnv`] method; a config option that needs a capability the
//! environment lacks is refused when the run is built.

use crate::{Result, RlError};
use minnow_envs::{Env, Step};

/// An environment a [`DqnRun`](super::DqnRun) can train on.
pub trait DqnEnv: Env {
    /// Whether some actions can be illegal (then the replay stores each
    /// next state's legal actions and bootstrapping respects them).
    const MASKED: bool = false;

    /// Starts an episode from `seed` at curriculum `level` (0 without a
    /// curriculum) and returns its difficulty, which the curriculum
    /// counts only when it equals the current level. The episode must be
    /// fixed by `seed`, `level` and the actions then taken, whatever the
    /// environment played before: a run resumed from a stop replays its
    /// episodes under way from these.
    fn start_episode(&mut self, seed: u64, level: usize) -> usize {
        let _ = level;
        self.reset(seed);
        0
    }

    /// Whether the episode that `last` ended was a success (for the
    /// curriculum and the success rate shown while training), or `None`
    /// when the environment has no notion of success: by default, so a
    /// report leaves the success rate out rather than show 0%. A
    /// curriculum needs it.
    fn succeeded(&self, last: &Step) -> Option<bool> {
        let _ = last;
        None
    }

    /// The environment's model of every action (what
    /// `DqnConfig::all_actions` needs), if it has one.
    fn model(&self) -> Option<&dyn EnvModel> {
        None
    }

    /// The environment's afterstates (what `DqnConfig::afterstates`
    /// needs), if it has them.
    fn afterstate_model(&self) -> Option<&dyn AfterstateModel> {
        None
    }

    /// The environment's symmetric views (what `DqnConfig::symmetric_eval`
    /// needs), if it has any.
    fn symmetries(&self) -> Option<&dyn Symmetries> {
        None
    }
}

/// A known deterministic model: where every action leads.
pub trait EnvModel {
    /// What every action does from the state that `obs` shows: action
    /// `a`'s next observation into row `a` of `next_obs`, its reward (in
    /// the environment's units) into `rewards[a]`, and 1 into `terminal[a]`
    /// when it ends the episode (0 otherwise; a time limit is no end).
    /// Every action must be legal in every state (the learner bootstraps
    /// from all of them). An error if `obs` shows no valid state.
    fn successors(&self, obs: &[f32], next_obs: &mut [f32], rewards: &mut [f32], terminal: &mut [f32]) -> Result<()>;
}

/// Where each action leads before the environment's chance event (a new
/// tile, a die roll): the afterstate, whose value DQN can learn instead of
/// each action's Q.
pub trait AfterstateModel {
    /// Action `a`'s afterstate observation from the state that `obs` shows
    /// into row `a` of `out` (a valid observation even for an illegal
    /// action) and its reward into `rewards[a]`. Returns the legal
    /// actions' mask; an error if `obs` shows no valid state.
    fn afterstates(&self, obs: &[f32], out: &mut [f32], rewards: &mut [f32]) -> Result<u64>;
}

/// Views of a state that are exactly as good (a board turned or mirrored,
/// a puzzle seen from another side), with the actions renamed to match.
pub trait Symmetries {
    /// How many views [`Symmetries::view`] gives, the state itself included.
    fn count(&self) -> usize;

    /// View `k` (`< count()`) of the state `obs` shows, into `out`, where
    /// action `actions[a]` does what action `a` does in the original. View
    /// 0 is the state itself.
    fn view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()>;
}

/// `env`'s model, or the error naming the option that needs it.
pub(crate) fn model_of<E: DqnEnv>(env: &E) -> Result<&dyn EnvModel> {
    env.model().ok_or(RlError::NoModel { env: E::NAME, option: "all_actions", needs: "model" })
}

/// `env`'s afterstates, or the error naming the option that needs them.
pub(crate) fn afterstates_of<E: DqnEnv>(env: &E) -> Result<&dyn AfterstateModel> {
    env.afterstate_model().ok_or(RlError::NoModel { env: E::NAME, option: "afterstates", needs: "afterstate_model" })
}

/// `env`'s symmetric views, or the error naming the option that needs them.
pub(crate) fn symmetries_of<E: DqnEnv>(env: &E) -> Result<&dyn Symmetries> {
    env.symmetries().ok_or(RlError::NoModel { env: E::NAME, option: "symmetric_eval", needs: "symmetries" })
}
