//! What a search asks of a leaf: priors over the actions and a value.

use minnow_envs::{Game, Turn};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Evaluates leaves in batches.
///
/// For each `states[i]` (a player to move) it writes policy logits over
/// all `G::ACTIONS` actions into `logits[i * G::ACTIONS..(i + 1) *
/// G::ACTIONS]` (the search keeps only the legal ones and softmaxes them)
/// and the expected result for the player to move, in [-1, 1], into
/// `values[i]`. `logits` and `values` are exactly as long as that.
pub trait Evaluator<G: Game> {
    /// Evaluates `states` into `logits` `[states, ACTIONS]` and `values`
    /// `[states]`.
    fn evaluate(&mut self, states: &[G], logits: &mut [f32], values: &mut [f32]);
}

/// Uniform priors and a value of 0 everywhere: search by visit counts and
/// terminal results alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&mut self, _states: &[G], logits: &mut [f32], values: &mut [f32]) {
        logits.fill(0.0);
        values.fill(0.0);
    }
}

/// The classic MCTS baseline: uniform priors, and the value is the mean
/// result of `rollouts` uniformly random games played out from the leaf
/// (dice drawn with their probabilities).
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    rollouts: u32,
    rng: Pcg64Mcg,
    legal: Vec<u16>,
    outcomes: Vec<f32>,
}

impl RolloutEvaluator {
    /// `rollouts` is clamped to at least 1.
    pub fn new<G: Game>(rollouts: u32, seed: u64) -> Self {
        Self {
            rollouts: rollouts.max(1),
            rng: Pcg64Mcg::seed_from_u64(seed),
            legal: vec![0; G::MAX_LEGAL.max(1)],
            outcomes: vec![0.0; G::MAX_OUTCOMES.max(1)],
        }
    }

    /// One random playout from `game`: the result for `player`, in [-1, 1].
    pub fn playout<G: Game>(&mut self, game: &G, player: usize) -> f32 {
        let mut g = game.clone();
        loop {
            match g.turn() {
                Turn::Over => return final_value(&g, player, false),
                Turn::Player(_) => {
                    let n = g.legal_actions(&mut self.legal);
                    if n == 0 {
                        return 0.0;
                    }
                    let a = self.legal[self.rng.random_range(0..n)] as usize;
                    g.apply(a).expect("RolloutEvaluator: a legal action was refused");
                }
                Turn::Chance => {
                    let n = g.chance_outcomes(&mut self.outcomes);
                    let i = sample_index(&self.outcomes[..n], &mut self.rng);
                    g.apply_chance(i).expect("RolloutEvaluator: a listed chance outcome was refused");
                }
            }
        }
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn evaluate(&mut self, states: &[G], logits: &mut [f32], values: &mut [f32]) {
        logits.fill(0.0);
        for (state, value) in states.iter().zip(values.iter_mut()) {
            let Turn::Player(me) = state.turn() else {
                *value = 0.0;
                continue;
            };
            let total: f32 = (0..self.rollouts).map(|_| self.playout(state, me)).sum();
            *value = total / self.rollouts as f32;
        }
    }
}

/// An index drawn with probability proportional to `weights` (which need
/// not sum to 1); the last index if rounding leaves the draw past the end.
pub(crate) fn sample_index(weights: &[f32], rng: &mut impl Rng) -> usize {
    let total: f32 = weights.iter().sum();
    let mut x = rng.random::<f32>() * total;
    for (i, &w) in weights.iter().enumerate() {
        if x < w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
}

/// A finished game's value for `player` in [-1, 1]: its result, or with
/// `points` ([`MctsConfig::points`](super::MctsConfig::points)) the
/// points won over [`Game::MAX_POINTS`]; 0 for a game still running.
pub fn final_value<G: Game>(game: &G, player: usize, points: bool) -> f32 {
    let value = if points { game.points(player).map(|p| p / G::MAX_POINTS) } else { game.outcome(player) };
    value.unwrap_or(0.0).clamp(-1.0, 1.0)
}
