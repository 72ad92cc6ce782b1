//! One descent from the root to a leaf: PUCT selection over a player's
//! moves (virtual loss keeps parallel descents apart), sampled or
//! stratified selection over chance outcomes, and the new node pushed where
//! the descent leaves the tree.

use super::ChanceMode;
use super::search::Search;
use super::tree::{Edge, Kind, NONE, ROOT};
use minnow_envs::Game;
use rand::Rng;

/// What one descent from the root ended in.
pub(super) enum Descent {
    /// A new leaf, queued for evaluation.
    Queued(u32),
    /// A terminal (or, with a full arena, a known) value, backed up at once.
    Backed,
    /// The leaf is already queued by an earlier descent of this round.
    Collision,
}

impl<G: Game> Search<G> {
    /// Descends from the root by selection, marking the path with a
    /// virtual loss, to a new leaf or a known value.
    pub(super) fn descend(&mut self, rng: &mut impl Rng) -> Descent {
        let mut n = ROOT;
        loop {
            self.tree.node_mut(n).virtual_visits += 1;
            let node = *self.tree.node(n);
            let edge = match node.kind {
                Kind::Terminal => {
                    self.backup(n, node.terminal_value);
                    return Descent::Backed;
                }
                Kind::Player if node.proven && n != ROOT => {
                    self.backup(n, node.terminal_value);
                    return Descent::Backed;
                }
                Kind::Leaf if node.pending => {
                    self.revert(n);
                    return Descent::Collision;
                }
                Kind::Leaf => {
                    self.tree.node_mut(n).pending = true;
                    return Descent::Queued(n);
                }
                Kind::Player if n == ROOT && self.halving.ready => match self.select_root_gumbel() {
                    Some(e) => e,
                    None => {
                        // This phase's visits are all issued: wait for them.
                        self.revert(n);
                        return Descent::Collision;
                    }
                },
                Kind::Player => self.select_action_edge(n),
                Kind::Chance => self.select_outcome_edge(n, rng),
            };
            let e = (node.first_edge as usize) + edge;
            let child = self.tree.a.edges[e].child;
            if child != NONE {
                n = child;
                continue;
            }
            if self.tree.room() == 0 {
                // The arena is full (a search longer than the tree was
                // sized for): count the node's own mean as this simulation.
                let mean = if node.visits > 0 { node.value_sum / node.visits as f32 } else { 0.0 };
                self.backup(n, mean);
                return Descent::Backed;
            }
            let mut next = self.tree.state(n).clone();
            let action = self.tree.a.edges[e].action as usize;
            match node.kind {
                Kind::Chance => next.apply_chance(action).expect("Search: a listed chance outcome was refused"),
                _ => next.apply(action).expect("Search: a legal action was refused"),
            }
            let c = self.tree.push(next, n, &mut self.outcomes);
            self.tree.a.edges[e].child = c;
            n = c;
        }
    }

    /// PUCT over the edges of player node `n`: the index of the best edge.
    fn select_action_edge(&self, n: u32) -> usize {
        let node = self.tree.node(n);
        let sign = if node.mover == 0 { 1.0 } else { -1.0 };
        let parent_visits = (node.visits + node.virtual_visits).max(1) as f32;
        let explore = self.config.c_puct * parent_visits.sqrt();
        let parent_q = if node.visits > 0 { sign * node.value_sum / node.visits as f32 } else { 0.0 };
        let fpu = parent_q - self.config.fpu_reduction;
        let mut best = (0, f32::NEG_INFINITY);
        for (i, e) in self.tree.edges(n).iter().enumerate() {
            let (q, visits) = if e.child == NONE {
                (fpu, 0)
            } else {
                let c = self.tree.node(e.child);
                let visits = c.visits + c.virtual_visits;
                if c.proven && self.config.solver {
                    (sign * c.terminal_value, visits)
                } else if visits == 0 {
                    (fpu, 0)
                } else {
                    ((sign * c.value_sum - c.virtual_visits as f32) / visits as f32, visits)
                }
            };
            let score = q + explore * e.prior / (1 + visits) as f32;
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }

    /// The outcome edge of chance node `n` the next descent takes (see [`ChanceMode`]).
    fn select_outcome_edge(&self, n: u32, rng: &mut impl Rng) -> usize {
        let edges = self.tree.edges(n);
        let node = self.tree.node(n);
        let total = (node.visits + node.virtual_visits) as f32;
        if self.config.chance == ChanceMode::Sample || total == 0.0 {
            return sample_outcome(edges, rng);
        }
        // Stratified: the outcome furthest below its share of the visits.
        // The first visit is a draw and ties go to a random outcome, so
        // rarely visited nodes do not all favour the first of the most
        // likely outcomes (in backgammon, the opponent rolling 1-2).
        let start = rng.random_range(0..edges.len());
        let mut best = (start, f32::NEG_INFINITY);
        for i in (start..edges.len()).chain(0..start) {
            let e = &edges[i];
            let taken = if e.child == NONE {
                0.0
            } else {
                let c = self.tree.node(e.child);
                (c.visits + c.virtual_visits) as f32
            };
            let deficit = e.prior * total - taken;
            if e.prior > 0.0 && deficit > best.1 {
                best = (i, deficit);
            }
        }
        best.0
    }
}

/// An outcome drawn in proportion to the edges' probabilities.
fn sample_outcome(edges: &[Edge], rng: &mut impl Rng) -> usize {
    let mut x = rng.random::<f32>();
    for (i, e) in edges.iter().enumerate() {
        if x < e.prior {
            return i;
        }
        x -= e.prior;
    }
    edges.iter().rposition(|e| e.prior > 0.0).unwrap_or(0)
}
