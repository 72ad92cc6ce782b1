//! The Gumbel root of Danihelka et al. (2022), "Policy improvement by
//! planning with Gumbel": for small simulation budgets. At the root, the
//! top `considered` actions by `g(a) + logit(a)` (g Gumbel noise in
//! self-play, 0 when playing greedily) share the budget by sequential
//! halving: each of `ceil(log2 m)` phases splits its share of the budget
//! equally among the actions left, then keeps the better half by
//! `g + logit + sigma(q)`, `sigma(q) = (c_visit + max_b N(b)) c_scale q`
//! with `q` mapped to [0, 1]. The move is the best one left; the policy
//! target is `softmax(logit + sigma(completed q))`, unvisited actions
//! taking the root's mean value. Below the root, selection stays PUCT.
//!
//! Here: the halving schedule, and the search's Gumbel-root methods (the
//! considered actions drawn, the root edge chosen by the schedule, the
//! policy target).

use super::search::Search;
use super::tree::{NONE, ROOT};
use minnow_envs::Game;
use rand::Rng;

/// The paper's constants.
pub(crate) const C_VISIT: f32 = 50.0;
pub(crate) const C_SCALE: f32 = 1.0;

/// Per-search state of the halving schedule, over root edge indices.
#[derive(Clone, Debug, Default)]
pub(crate) struct Halving {
    /// `g(a) + logit(a)` per root edge.
    pub base: Vec<f32>,
    /// Visits of each root edge's child when the search began.
    pub start: Vec<u32>,
    /// Root edges still considered, best first after each halving.
    pub active: Vec<u16>,
    /// New visits each active edge is due by the end of this phase.
    pub target: u32,
    pub phases_left: u32,
    /// Simulations the halving shares out (the budget after expansion).
    pub budget: u32,
    pub ready: bool,
}

/// A standard Gumbel(0, 1) draw.
pub(crate) fn gumbel(rng: &mut impl Rng) -> f32 {
    let u: f64 = rng.random::<f64>().max(1e-300);
    -(-u.ln()).ln() as f32
}

impl Halving {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            base: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            active: Vec::with_capacity(n),
            ..Self::default()
        }
    }

    /// Starts the schedule over `m` active edges (already chosen and
    /// sorted into `active`).
    pub fn start_phases(&mut self, budget: u32) {
        let m = self.active.len().max(1) as u32;
        self.phases_left = (32 - (m - 1).leading_zeros()).max(1);
        self.budget = budget;
        self.target = self.share();
        self.ready = true;
    }

    /// New visits per active edge for one phase.
    pub fn share(&self) -> u32 {
        let phases = (32 - (self.active.len().max(1) as u32 - 1).leading_zeros()).max(1);
        (self.budget / (phases * self.active.len().max(1) as u32)).max(1)
    }
}

/// `sigma(q)` for a value `q` in [-1, 1] from the mover's view.
pub(crate) fn sigma(q: f32, max_visits: u32) -> f32 {
    (C_VISIT + max_visits as f32) * C_SCALE * (0.5 * (q + 1.0))
}

impl<G: Game> Search<G> {
    /// Whether the root is a Gumbel root (`gumbel_considered` > 0).
    pub(super) fn gumbel(&self) -> bool {
        self.config.gumbel_considered > 0
    }

    /// Visits of root edge `i`'s child.
    fn root_child_visits(&self, i: usize) -> (u32, u32) {
        let e = self.tree.edges(ROOT)[i];
        if e.child == NONE {
            (0, 0)
        } else {
            let c = self.tree.node(e.child);
            (c.visits, c.virtual_visits)
        }
    }

    /// The root's mean value for its mover, and its children's most visits.
    fn root_stats(&self) -> (f32, u32) {
        let most = (0..self.tree.edges(ROOT).len()).map(|i| self.root_child_visits(i).0).max().unwrap_or(0);
        (self.root_value(), most)
    }

    /// Root edge `i`'s value for the root's mover, the root's mean if unvisited.
    fn completed_q(&self, i: usize, root_mean: f32) -> f32 {
        let e = self.tree.edges(ROOT)[i];
        if e.child == NONE || self.tree.node(e.child).visits == 0 {
            return root_mean;
        }
        let c = self.tree.node(e.child);
        let sign = if self.tree.node(ROOT).mover == 0 { 1.0 } else { -1.0 };
        sign * c.value_sum / c.visits as f32
    }

    /// Root edge `i`'s halving score, `g + logit + sigma(completed q)`.
    pub(super) fn gumbel_score(&self, i: usize) -> f32 {
        let (mean, most) = self.root_stats();
        self.halving.base[i] + sigma(self.completed_q(i, mean), most)
    }

    /// Draws the noise, picks the considered actions and plans the phases.
    pub(super) fn init_halving(&mut self, rng: &mut impl Rng) {
        let k = self.tree.edges(ROOT).len();
        let mut h = std::mem::take(&mut self.halving);
        h.base.clear();
        h.start.clear();
        h.active.clear();
        for i in 0..k {
            let prior = self.tree.edges(ROOT)[i].prior.max(1e-30);
            let g = if self.gumbel_noise { gumbel(rng) } else { 0.0 };
            h.base.push(prior.ln() + g);
            h.start.push(self.root_child_visits(i).0);
            h.active.push(i as u16);
        }
        let base = &h.base;
        h.active.sort_unstable_by(|&a, &b| base[b as usize].total_cmp(&base[a as usize]).then(a.cmp(&b)));
        h.active.truncate((self.config.gumbel_considered as usize).min(k).max(1));
        h.start_phases(self.budget.saturating_sub(self.done));
        self.halving = h;
    }

    /// The root edge the next simulation takes under the halving, or None
    /// while this phase's visits are in flight.
    pub(super) fn select_root_gumbel(&mut self) -> Option<usize> {
        loop {
            let h = &self.halving;
            let mut best = (0usize, u32::MAX);
            let mut in_flight = false;
            for &i in &h.active {
                let (visits, flying) = self.root_child_visits(i as usize);
                in_flight |= flying > 0;
                let load = visits - h.start[i as usize] + flying;
                if load < best.1 {
                    best = (i as usize, load);
                }
            }
            if best.1 < h.target {
                return Some(best.0);
            }
            if in_flight {
                return None;
            }
            let mut h = std::mem::take(&mut self.halving);
            if h.phases_left > 1 && h.active.len() > 1 {
                let mut active = std::mem::take(&mut h.active);
                self.halving = h;
                active.sort_unstable_by(|&a, &b| {
                    self.gumbel_score(b as usize).total_cmp(&self.gumbel_score(a as usize)).then(a.cmp(&b))
                });
                active.truncate(active.len().div_ceil(2));
                h = std::mem::take(&mut self.halving);
                h.active = active;
                h.phases_left -= 1;
                h.target += h.share();
            } else {
                // The schedule is spent (rounding): one more visit each.
                h.target += 1;
            }
            self.halving = h;
        }
    }

    /// `softmax(logit + sigma(completed q))` over the root's legal actions.
    pub(super) fn gumbel_policy(&self, out: &mut [f32]) {
        let (mean, most) = self.root_stats();
        let edges = self.tree.edges(ROOT);
        let mut max = f32::NEG_INFINITY;
        for (i, e) in edges.iter().enumerate() {
            let x = e.prior.max(1e-30).ln() + sigma(self.completed_q(i, mean), most);
            out[e.action as usize] = x;
            max = max.max(x);
        }
        let mut total = 0.0;
        for e in edges {
            let p = (out[e.action as usize] - max).exp();
            out[e.action as usize] = p;
            total += p;
        }
        for e in edges {
            out[e.action as usize] /= total;
        }
    }
}
