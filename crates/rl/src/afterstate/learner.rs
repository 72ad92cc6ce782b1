//! TD(lambda) from self-play, offline within a game: both sides play the
//! 1-ply best afterstate with the weights fixed for the game; then every
//! afterstate `a_t` learns towards its lambda-return
//! `G_t = (1 - lambda) V(a_{t+1}) + lambda G_{t+1}`, where the last
//! afterstate's `G` is the game's result, `V` the ratings made while
//! playing, and each term is read from the view of the player who made
//! `a_t`. With lambda = 0 this is TD(0) on afterstates; with 1, every
//! afterstate learns the game's result (Monte Carlo).

use super::{AfterstateGame, Searcher, ValueNet};
use crate::{Check, Result};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// TD(lambda) settings for learning afterstate values by self-play.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdLambdaConfig {
    /// The trace decay: how far back along the game a result is felt.
    pub lambda: f32,
    /// The SGD step size on each afterstate's cross-entropy.
    pub learning_rate: f32,
}

impl TdLambdaConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("td_lambda");
        check.unit_closed("lambda", self.lambda)?;
        Ok(check.positive("learning_rate", self.learning_rate)?)
    }
}

/// One training game's numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameStats {
    /// Decisions made (both sides).
    pub decisions: u64,
    /// Sum over the learning afterstates of the squared distance between
    /// the rating and its target, before the step.
    pub squared_error: f64,
    /// The winner.
    pub winner: usize,
    /// The result from the winner's view (the game's outputs).
    pub result_equity: f32,
}

/// The learner's buffers: after the longest game so far, a game allocates
/// nothing.
#[derive(Debug)]
pub struct TdLambda<G: AfterstateGame> {
    searcher: Searcher<G>,
    candidates: Vec<G::State>,
    /// Per non-final afterstate: features (`FEATURES`), ratings while
    /// playing (`OUTPUTS`, the mover's view), the mover.
    features: Vec<f32>,
    ratings: Vec<f32>,
    movers: Vec<u8>,
    targets: Vec<f32>,
    next: Vec<f32>,
    result: Vec<f32>,
    probabilities: Vec<f32>,
    scratch: Vec<f32>,
}

/// Afterstates of one game the buffers hold before growing.
const RESERVED_DECISIONS: usize = 1024;

impl<G: AfterstateGame> TdLambda<G> {
    /// Buffers for a network shaped like `net`.
    pub fn new(net: &ValueNet) -> Self {
        Self {
            searcher: Searcher::new(net),
            candidates: Vec::with_capacity(4096),
            features: Vec::with_capacity(RESERVED_DECISIONS * G::FEATURES),
            ratings: Vec::with_capacity(RESERVED_DECISIONS * G::OUTPUTS),
            movers: Vec::with_capacity(RESERVED_DECISIONS),
            targets: vec![0.0; G::OUTPUTS],
            next: vec![0.0; G::OUTPUTS],
            result: vec![0.0; G::OUTPUTS],
            probabilities: vec![0.0; G::MAX_CHANCES],
            scratch: vec![0.0; net.learn_scratch()],
        }
    }

    /// Plays one game against itself from `seed` (the start and every
    /// chance outcome follow from it), then learns from it.
    pub fn train_game(&mut self, game: &mut G, net: &mut ValueNet, seed: u64, config: &TdLambdaConfig) -> GameStats {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        self.features.clear();
        self.ratings.clear();
        self.movers.clear();
        let mut state = game.start(seed);
        let mut decisions = 0;
        let last_mover = loop {
            let mover = game.mover(&state);
            game.afterstates(&state, &mut self.candidates);
            let (i, _) = self.searcher.one_ply(game, net, mover, &self.candidates);
            decisions += 1;
            let after = self.candidates[i];
            if game.result(&after, mover, &mut self.result) {
                break mover;
            }
            self.features.extend_from_slice(self.searcher.features());
            self.ratings.extend_from_slice(self.searcher.best_outputs());
            self.movers.push(mover as u8);
            let n = game.chances(&after, &mut self.probabilities);
            state = game.decision(&after, sample(&self.probabilities[..n], &mut rng));
        };
        let result_equity = G::equity(&self.result);
        let squared_error = self.learn(net, last_mover, config);
        GameStats { decisions, squared_error, winner: last_mover, result_equity }
    }

    /// Walks the game backwards turning each rating into its
    /// lambda-return, then takes one SGD step per afterstate, first to last.
    fn learn(&mut self, net: &mut ValueNet, last_mover: usize, config: &TdLambdaConfig) -> f64 {
        let (o, f, lambda) = (G::OUTPUTS, G::FEATURES, config.lambda);
        let steps = self.movers.len();
        // At step t, `g` holds G_{t+1} and `next` V(a_{t+1}), both in the
        // view of `g_mover`, the player who made a_{t+1}.
        let (g, next) = (&mut self.targets, &mut self.next);
        g.copy_from_slice(&self.result);
        let mut g_mover = last_mover as u8;
        for t in (0..steps).rev() {
            if t + 1 < steps {
                for (gk, &v) in g.iter_mut().zip(next.iter()) {
                    *gk = (1.0 - lambda) * v + lambda * *gk;
                }
            }
            if self.movers[t] != g_mover {
                G::flip(g);
                g_mover = self.movers[t];
            }
            let slot = &mut self.ratings[t * o..(t + 1) * o];
            next.copy_from_slice(slot);
            slot.copy_from_slice(g);
        }
        let mut squared = 0.0;
        for t in 0..steps {
            let x = &self.features[t * f..(t + 1) * f];
            let target = &self.ratings[t * o..(t + 1) * o];
            squared += net.learn(x, target, config.learning_rate, &mut self.scratch) as f64;
        }
        squared
    }
}

/// An outcome drawn with the given probabilities.
fn sample(probabilities: &[f32], rng: &mut impl Rng) -> usize {
    let mut u: f32 = rng.random();
    for (k, &p) in probabilities.iter().enumerate() {
        if u < p {
            return k;
        }
        u -= p;
    }
    probabilities.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dice race with nothing to choose: each player moves a counter
    /// from 0 by a roll of 1 or 2 (even odds); the first to reach
    /// `GOAL` wins. An afterstate is `(mover's counter, other's counter,
    /// mover)`; its one output is the mover's probability of winning.
    #[derive(Debug, Default)]
    struct Race;

    const GOAL: usize = 6;

    impl AfterstateGame for Race {
        type State = (usize, usize, usize);
        const FEATURES: usize = 2 * GOAL;
        const OUTPUTS: usize = 1;
        const MAX_CHANCES: usize = 2;

        fn start(&self, seed: u64) -> Self::State {
            // A decision: (counter of the player to move, the other's,
            // the player to move), here after the first roll.
            (1 + (seed % 2) as usize, 0, 0)
        }
        fn mover(&self, s: &Self::State) -> usize {
            s.2
        }
        fn afterstates(&mut self, s: &Self::State, out: &mut Vec<Self::State>) {
            out.clear();
            out.push(*s);
        }
        fn result(&self, s: &Self::State, _: usize, out: &mut [f32]) -> bool {
            out[0] = 1.0;
            s.0 >= GOAL
        }
        fn encode(&self, s: &Self::State, _: usize, out: &mut [f32]) {
            out.fill(0.0);
            out[s.0] = 1.0;
            out[GOAL + s.1] = 1.0;
        }
        fn chances(&self, _: &Self::State, out: &mut [f32]) -> usize {
            out[..2].copy_from_slice(&[0.5, 0.5]);
            2
        }
        fn decision(&self, s: &Self::State, outcome: usize) -> Self::State {
            (s.1 + outcome + 1, s.0, 1 - s.2)
        }
        fn equity(v: &[f32]) -> f32 {
            v[0]
        }
        fn flip(v: &mut [f32]) {
            v[0] = 1.0 - v[0];
        }
    }

    /// The exact probability that the player who just moved to `a` wins,
    /// the other at `b` to roll.
    fn exact(a: usize, b: usize) -> f32 {
        (1..=2).map(|d| if b + d >= GOAL { 0.0 } else { 0.5 * (1.0 - exact(b + d, a)) }).sum()
    }

    #[test]
    fn self_play_learns_the_exact_win_probabilities_of_a_dice_race() {
        for lambda in [0.0, 0.7, 1.0] {
            let mut net = ValueNet::new(2 * GOAL, 32, 1, &mut Pcg64Mcg::seed_from_u64(1));
            let mut td = TdLambda::<Race>::new(&net);
            let config = TdLambdaConfig { lambda, learning_rate: 0.05 };
            for k in 0..20_000 {
                let stats = td.train_game(&mut Race, &mut net, k, &config);
                assert!(stats.decisions >= 4, "{stats:?}");
            }
            // Every afterstate the race reaches in at least 1% of games.
            let mut visits = [[0u32; GOAL]; GOAL];
            let mut rng = Pcg64Mcg::seed_from_u64(7);
            for _ in 0..10_000 {
                let mut s = Race.start(rng.random());
                while s.0 < GOAL {
                    visits[s.0][s.1] += 1;
                    s = Race.decision(&s, rng.random_range(0..2));
                }
            }
            let (mut h, mut y) = ([0.0; 32], [0.0; 1]);
            let (mut worst, mut checked) = (0.0f32, 0);
            for a in 0..GOAL {
                for b in 0..GOAL {
                    if visits[a][b] < 100 {
                        continue;
                    }
                    let mut x = [0.0; 2 * GOAL];
                    Race.encode(&(a, b, 0), 0, &mut x);
                    net.forward(&x, &mut h, &mut y);
                    worst = worst.max((y[0] - exact(a, b)).abs());
                    checked += 1;
                }
            }
            assert!(checked >= 10, "{checked} afterstates");
            // Untrained, the worst is near 0.5; the rest is the noise of
            // a constant step size.
            assert!(worst < 0.12, "lambda {lambda}: worst error {worst}");
        }
    }
}
