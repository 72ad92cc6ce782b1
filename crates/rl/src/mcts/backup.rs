//! What an evaluation does to the tree: the leaf expanded with the
//! softmax of its legal logits, Dirichlet noise mixed into the root's
//! priors, the value backed up to the root (lifting the virtual loss), and
//! with the solver, proven values carried up to the ancestors they settle.

use super::dirichlet;
use super::evaluator::final_value;
use super::search::Search;
use super::tree::{Edge, Kind, NONE, ROOT};
use minnow_envs::Game;
use rand::Rng;

impl<G: Game> Search<G> {
    /// Gives leaf `n` one edge per legal action, priors the softmax of the
    /// legal logits.
    pub(super) fn expand(&mut self, n: u32, logits: &[f32]) {
        let k = self.tree.state(n).legal_actions(&mut self.legal);
        let first = self.tree.a.edges.len() as u32;
        let node = self.tree.node_mut(n);
        node.pending = false;
        if k == 0 {
            // A player to move without a legal move: score it as the game
            // reports, or a draw.
            node.kind = Kind::Terminal;
            node.proven = true;
            let v = final_value(self.tree.state(n), 0, self.config.points);
            self.tree.node_mut(n).terminal_value = v;
            return;
        }
        node.kind = Kind::Player;
        node.first_edge = first;
        node.num_edges = k as u32;
        let max = self.legal[..k].iter().map(|&a| logits[a as usize]).fold(f32::NEG_INFINITY, f32::max);
        let mut total = 0.0;
        for &a in &self.legal[..k] {
            let p = (logits[a as usize] - max).exp();
            total += p;
            self.tree.a.edges.push(Edge { action: a, prior: p, child: NONE });
        }
        let total = if total.is_finite() && total > 0.0 { total } else { f32::NAN };
        for e in self.tree.edges_mut(n) {
            e.prior = if total.is_nan() { 1.0 / k as f32 } else { e.prior / total };
        }
    }

    /// Mixes Dirichlet noise into the root's priors.
    pub(super) fn add_noise(&mut self, rng: &mut impl Rng) {
        self.noise_pending = false;
        let k = self.tree.node(ROOT).num_edges as usize;
        dirichlet::dirichlet(self.config.dirichlet_alpha, rng, &mut self.noise[..k]);
        let f = self.config.dirichlet_fraction;
        for (e, &x) in self.tree.edges_mut(ROOT).iter_mut().zip(&self.noise[..k]) {
            e.prior = (1.0 - f) * e.prior + f * x;
        }
    }

    /// Adds value `v0` (player 0's view) to every node from `n` up to the
    /// root, lifting the descent's virtual loss.
    pub(super) fn backup(&mut self, mut n: u32, v0: f32) {
        if self.config.solver && self.tree.node(n).proven {
            self.prove_ancestors(n);
        }
        while n != NONE {
            let node = self.tree.node_mut(n);
            node.visits += 1;
            node.value_sum += v0;
            node.virtual_visits -= 1;
            n = node.parent;
        }
        self.done += 1;
    }

    /// Proves the ancestors of proven node `n` that its value settles.
    fn prove_ancestors(&mut self, mut n: u32) {
        loop {
            let parent = self.tree.node(n).parent;
            if parent == NONE || !self.prove(parent) {
                return;
            }
            n = parent;
        }
    }

    /// Proves player node `n` if a child wins for its mover or all its
    /// children are proven (their best value for the mover); returns
    /// whether `n` is proven now.
    fn prove(&mut self, n: u32) -> bool {
        let node = *self.tree.node(n);
        if node.proven || node.kind != Kind::Player {
            return node.proven;
        }
        let sign = if node.mover == 0 { 1.0 } else { -1.0 };
        let mut best = f32::NEG_INFINITY;
        let mut all = true;
        for e in self.tree.edges(n) {
            let c = if e.child == NONE { None } else { Some(self.tree.node(e.child)) };
            match c {
                Some(c) if c.proven => {
                    let v = sign * c.terminal_value;
                    best = best.max(v);
                    if v >= 1.0 {
                        break;
                    }
                }
                _ => all = false,
            }
        }
        if best >= 1.0 || all {
            let node = self.tree.node_mut(n);
            node.proven = true;
            node.terminal_value = sign * best;
            return true;
        }
        false
    }

    /// Lifts the virtual loss of a descent that queued nothing, from `n`
    /// up to the root.
    pub(super) fn revert(&mut self, mut n: u32) {
        while n != NONE {
            let node = self.tree.node_mut(n);
            node.virtual_visits -= 1;
            n = node.parent;
        }
    }
}
