use crate::EnvError;

/// The longest episode an environment's `max_steps` may ask for: an
/// evaluation plays every episode to its end, so a good policy under a
/// limit of 10^12 steps would never finish (10^6 steps of CartPole are
/// 5.5 hours of simulated balancing).
pub const MAX_EPISODE_STEPS: usize = 1_000_000;

/// The outcome of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Step {
    /// The reward for the step.
    pub reward: f32,
    /// The episode reached a terminal state: bootstrapping stops here
    /// (the cube is solved, 2048 has no move left, the pole fell).
    pub done: bool,
    /// The episode reached its step limit: bootstrapping would continue
    /// from the last observation. As in gymnasium it can coincide with
    /// `done`, and then `done` decides.
    pub truncated: bool,
}

impl Step {
    /// Whether the episode has ended either way; the next call must be a reset.
    pub fn is_over(&self) -> bool {
        self.done || self.truncated
    }
}

/// A single-agent environment with discrete actions.
///
/// An environment is ready after construction (as if reset with seed 0).
/// Its whole state is plain data, so `clone` is a cheap copy (tens of
/// bytes) and two clones stepped with the same actions stay identical.
/// Stepping an episode that is over is an error, never a silent reset.
pub trait Env: Clone {
    /// A short name for messages and benchmarks (`"cube2"`, `"2048"`).
    const NAME: &'static str;

    /// Length of the buffer [`Env::observe`] writes.
    fn observation_size(&self) -> usize;

    /// Number of actions; actions are `0..action_count()`, at most 64.
    fn action_count(&self) -> usize;

    /// Starts a new episode; all randomness of the episode (the scramble,
    /// tile spawns, the initial state) comes from `seed`.
    fn reset(&mut self, seed: u64);

    /// Takes `action`: an error if it is out of range, illegal here (see
    /// [`Env::legal_mask`]) or the episode is over; the state is then unchanged.
    fn step(&mut self, action: usize) -> Result<Step, EnvError>;

    /// Bit `a` is set when action `a` is legal now; at least one bit while
    /// the episode runs, none once it is over. By default every action is
    /// legal while the episode runs.
    fn legal_mask(&self) -> u64 {
        if self.is_over() {
            return 0;
        }
        match self.action_count() {
            n @ 0..64 => (1 << n) - 1,
            _ => u64::MAX,
        }
    }

    /// Writes the observation of the current state into every value of
    /// `out`, which holds exactly `observation_size()` values (it is
    /// reused: a value left unwritten would be stale). Allocates nothing.
    fn observe(&self, out: &mut [f32]);

    /// Whether the last step ended the episode (done or truncated). It has
    /// no default: only the environment knows, and a wrong answer would
    /// let a finished episode be stepped on.
    fn is_over(&self) -> bool;

    /// [`Env::legal_mask`] as one flag per action.
    #[track_caller]
    fn legal_actions(&self, mask: &mut [bool]) {
        assert_eq!(mask.len(), self.action_count(), "{}: legal_actions mask length", Self::NAME);
        let bits = self.legal_mask();
        for (a, m) in mask.iter_mut().enumerate() {
            *m = bits >> a & 1 == 1;
        }
    }
}

/// Checks the common preconditions of [`Env::step`]: the episode is
/// running and `action` is in range and legal. A `step` can begin with it
/// and leave the errors to it.
pub fn check_action<E: Env>(env: &E, action: usize) -> Result<(), EnvError> {
    if env.is_over() {
        return Err(EnvError::EpisodeOver { env: E::NAME });
    }
    let action_count = env.action_count();
    if action >= action_count {
        return Err(EnvError::ActionOutOfRange { env: E::NAME, action, action_count });
    }
    let legal = env.legal_mask();
    if legal >> action & 1 == 0 {
        return Err(EnvError::IllegalAction { env: E::NAME, action, legal });
    }
    Ok(())
}
