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
