//! Choosing a move with the value network: 1-ply (the afterstate rated
//! best) or 2-ply (expectimax: each of the best few afterstates is worth
//! the probability-weighted equity left after every chance outcome and
//! the opponent's best 1-ply reply).

use super::{AfterstateGame, ValueNet};

/// Reusable buffers for rating afterstates: after the first few
/// decisions, choosing allocates nothing.
#[derive(Debug)]
pub struct Searcher<G: AfterstateGame> {
    x: Vec<f32>,
    hidden: Vec<f32>,
    y: Vec<f32>,
    /// The outputs of the afterstate [`Searcher::one_ply`] chose.
    best: Vec<f32>,
    replies: Vec<G::State>,
    /// `(1-ply equity, candidate)`, best first.
    ranked: Vec<(f32, usize)>,
    probabilities: Vec<f32>,
}

/// Candidates a decision holds before the buffers grow.
const RESERVED_CANDIDATES: usize = 4096;

impl<G: AfterstateGame> Searcher<G> {
    /// Buffers for a network shaped like `net`.
    pub fn new(net: &ValueNet) -> Self {
        Self {
            x: vec![0.0; G::FEATURES],
            hidden: vec![0.0; net.hidden()],
            y: vec![0.0; G::OUTPUTS],
            best: vec![0.0; G::OUTPUTS],
            replies: Vec::with_capacity(RESERVED_CANDIDATES),
            ranked: Vec::with_capacity(RESERVED_CANDIDATES),
            probabilities: vec![0.0; G::MAX_CHANCES],
        }
    }

    /// `mover`'s equity of `after` (the game's exact result if it ends
    /// there, else the network's); its outputs stay in
    /// [`Searcher::outputs`].
    pub fn rate(&mut self, game: &G, net: &ValueNet, after: &G::State, mover: usize) -> f32 {
        if !game.result(after, mover, &mut self.y) {
            game.encode(after, mover, &mut self.x);
            net.forward(&self.x, &mut self.hidden, &mut self.y);
        }
        G::equity(&self.y)
    }

    /// The outputs (or exact result) of the last afterstate rated, in the
    /// rater's view.
    pub fn outputs(&self) -> &[f32] {
        &self.y
    }

    /// The features of the last afterstate rated: the one
    /// [`Searcher::one_ply`] chose, unless it ended the game.
    pub fn features(&self) -> &[f32] {
        &self.x
    }

    /// The outputs (or exact result) of the afterstate the last
    /// [`Searcher::one_ply`] chose, in `mover`'s view.
    pub fn best_outputs(&self) -> &[f32] {
        &self.best
    }

    /// The candidate whose afterstate `mover` rates best (the first on
    /// ties), with its equity. Leaves its outputs in
    /// [`Searcher::best_outputs`] and its features in
    /// [`Searcher::features`].
    #[track_caller]
    pub fn one_ply(&mut self, game: &G, net: &ValueNet, mover: usize, candidates: &[G::State]) -> (usize, f32) {
        assert!(!candidates.is_empty(), "Searcher::one_ply: no candidates");
        let mut best = (0, f32::NEG_INFINITY);
        for (i, c) in candidates.iter().enumerate() {
            let e = self.rate(game, net, c, mover);
            if e > best.1 {
                best = (i, e);
                self.best.copy_from_slice(&self.y);
            }
        }
        let (i, e) = best;
        // Leave the chosen afterstate's features in `x`.
        self.rate(game, net, &candidates[i], mover);
        (i, e)
    }

    /// Every candidate's 1-ply equity for `mover` as `(equity,
    /// candidate)`, best first (the earlier candidate first on ties).
    pub fn rank(&mut self, game: &G, net: &ValueNet, mover: usize, candidates: &[G::State]) -> &[(f32, usize)] {
        self.ranked.clear();
        for (i, c) in candidates.iter().enumerate() {
            let e = self.rate(game, net, c, mover);
            self.ranked.push((e, i));
        }
        self.ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        &self.ranked
    }

    /// `mover`'s 2-ply value of `after`: its exact result if the game ends
    /// there, else the probability-weighted equity left after each chance
    /// outcome and the replying player's best 1-ply afterstate.
    pub fn expected_equity(&mut self, game: &mut G, net: &ValueNet, mover: usize, after: &G::State) -> f32 {
        if game.result(after, mover, &mut self.y) {
            return G::equity(&self.y);
        }
        let mut replies = std::mem::take(&mut self.replies);
        let n = game.chances(after, &mut self.probabilities);
        let mut value = 0.0;
        for k in 0..n {
            let p = self.probabilities[k];
            let next = game.decision(after, k);
            let replier = game.mover(&next);
            game.afterstates(&next, &mut replies);
            let mut reply = f32::NEG_INFINITY;
            for a in &replies {
                reply = reply.max(self.rate(game, net, a, replier));
            }
            value += p * if replier == mover { reply } else { -reply };
        }
        self.replies = replies;
        value
    }

    /// 2-ply: the `keep` candidates `mover` rates best at 1-ply (all if
    /// fewer), each valued by [`Searcher::expected_equity`]; returns the
    /// best by that value (the better 1-ply rating on ties).
    #[track_caller]
    pub fn two_ply(
        &mut self,
        game: &mut G,
        net: &ValueNet,
        mover: usize,
        candidates: &[G::State],
        keep: usize,
    ) -> usize {
        assert!(!candidates.is_empty(), "Searcher::two_ply: no candidates");
        self.rank(game, net, mover, candidates);
        let keep = keep.clamp(1, self.ranked.len());
        if keep == 1 {
            return self.ranked[0].1;
        }
        let mut best = (self.ranked[0].1, f32::NEG_INFINITY);
        for r in 0..keep {
            let i = self.ranked[r].1;
            let value = self.expected_equity(game, net, mover, &candidates[i]);
            if value > best.1 {
                best = (i, value);
            }
        }
        best.0
    }
}
