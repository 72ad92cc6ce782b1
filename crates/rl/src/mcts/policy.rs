//! What a finished search says: the root's visit distribution (the policy
//! target), its visits and values, and the move to play.

use super::search::{Search, wrong_turn};
use super::tree::{Edge, Kind, NONE, ROOT};
use crate::Result;
use minnow_envs::Game;
use rand::Rng;

impl<G: Game> Search<G> {
    /// The root's visit distribution over all `G::ACTIONS` actions (sums to
    /// 1): the policy target. Before any child is visited, the priors.
    pub fn visit_policy(&self, out: &mut [f32]) {
        out.fill(0.0);
        if self.halving.ready {
            return self.gumbel_policy(out);
        }
        let edges = self.tree.edges(ROOT);
        let mut total = 0.0;
        for e in edges {
            if e.child != NONE {
                let v = self.tree.node(e.child).visits as f32;
                out[e.action as usize] = v;
                total += v;
            }
        }
        if total > 0.0 {
            out.iter_mut().for_each(|v| *v /= total);
        } else {
            for e in edges {
                out[e.action as usize] = e.prior;
            }
        }
    }

    /// Visits of the root's child along `action` (0 if never taken).
    pub fn visits(&self, action: usize) -> u32 {
        self.tree
            .edges(ROOT)
            .iter()
            .find(|e| e.action as usize == action)
            .map_or(0, |e| if e.child == NONE { 0 } else { self.tree.node(e.child).visits })
    }

    /// The line the search expects: from the root, the most visited child
    /// (ties to the higher prior) and on down, while the player to move is
    /// searched and a child was visited. It stops at a chance node (the
    /// dice are not the search's to choose) and at the game's end. Empty
    /// before a search. With a Gumbel root the first move may differ from
    /// [`choose_action`](Self::choose_action)'s (the halving's survivor).
    pub fn principal_variation(&self) -> Vec<usize> {
        let mut line = Vec::new();
        let mut node = ROOT;
        while self.tree.node(node).kind == Kind::Player {
            let visited = self.tree.edges(node).iter().filter(|e| e.child != NONE);
            let visits = |e: &Edge| self.tree.node(e.child).visits;
            let best = visited.max_by(|a, b| visits(a).cmp(&visits(b)).then(a.prior.total_cmp(&b.prior)));
            match best {
                Some(e) if visits(e) > 0 => {
                    line.push(e.action as usize);
                    node = e.child;
                }
                _ => break,
            }
        }
        line
    }

    /// Visits of the root.
    pub fn root_visits(&self) -> u32 {
        self.tree.node(ROOT).visits
    }

    /// The root's mean value for the player to move there.
    pub fn root_value(&self) -> f32 {
        let root = self.tree.node(ROOT);
        let sign = if root.mover == 0 { 1.0 } else { -1.0 };
        if root.visits == 0 { 0.0 } else { sign * root.value_sum / root.visits as f32 }
    }

    /// The root's exact value for the player to move there, once the
    /// solver (`config.solver`) has proven it.
    pub fn proven_value(&self) -> Option<f32> {
        let root = self.tree.node(ROOT);
        let sign = if root.mover == 0 { 1.0 } else { -1.0 };
        (root.proven && root.kind == Kind::Player).then_some(sign * root.terminal_value)
    }

    /// The move to play: with `temperature` 0 the most visited (ties go to
    /// the higher prior), else drawn with probability proportional to
    /// visits^(1 / temperature). An error if the root has no expanded moves
    /// (no search was run).
    pub fn choose_action(&self, temperature: f32, rng: &mut impl Rng) -> Result<usize> {
        super::config::check_temperature("choose_action", "temperature", temperature)?;
        let edges = self.tree.edges(ROOT);
        if edges.is_empty() || self.tree.node(ROOT).kind != Kind::Player {
            return Err(wrong_turn::<G>("a root that no search has expanded"));
        }
        if self.halving.ready {
            // The halving's survivor; its noise was the exploration.
            let best = self.halving.active.iter().map(|&i| (i as usize, self.gumbel_score(i as usize)));
            let best = best.fold((0, f32::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
            return Ok(edges[best.0].action as usize);
        }
        let visits = |e: &Edge| if e.child == NONE { 0 } else { self.tree.node(e.child).visits };
        // With the solver: 2 a proven win for the root's mover, 0 a proven
        // loss, 1 anything else.
        let sign = if self.tree.node(ROOT).mover == 0 { 1.0 } else { -1.0 };
        let rank = |e: &Edge| match self.tree.a.nodes.get(e.child as usize) {
            Some(c) if self.config.solver && c.proven && sign * c.terminal_value >= 1.0 => 2,
            Some(c) if self.config.solver && c.proven && sign * c.terminal_value <= -1.0 => 0,
            _ => 1,
        };
        let most = edges.iter().map(visits).max().unwrap_or(0);
        let winning = edges.iter().any(|e| rank(e) == 2);
        if temperature == 0.0 || most == 0 || winning {
            let mut best = (0, 0, 0, f32::NEG_INFINITY);
            for e in edges {
                let (r, v) = (rank(e), visits(e));
                if (r, v) > (best.1, best.2) || ((r, v) == (best.1, best.2) && e.prior > best.3) {
                    best = (e.action as usize, r, v, e.prior);
                }
            }
            return Ok(best.0);
        }
        let inv_t = 1.0 / temperature as f64;
        let mut x =
            rng.random::<f64>() * edges.iter().map(|e| (visits(e) as f64 / most as f64).powf(inv_t)).sum::<f64>();
        for e in edges {
            let w = (visits(e) as f64 / most as f64).powf(inv_t);
            if x < w {
                return Ok(e.action as usize);
            }
            x -= w;
        }
        Ok(edges.iter().rev().find(|e| visits(e) > 0).map_or(edges[0].action as usize, |e| e.action as usize))
    }
}
