//! One search tree and its simulations: PUCT selection with virtual loss,
//! chance nodes, expansion from batched evaluations, backup, root noise,
//! and the move chosen from the visit counts.

use super::config::NODES_PER_SIMULATION;
use super::gumbel::{Halving, gumbel, sigma};
use super::tree::{Edge, Kind, NONE, ROOT, Tree};
use super::{ChanceMode, Evaluator, LeafBatch, MctsConfig, dirichlet};
use crate::{Result, RlError};
use minnow_envs::{EnvError, Game, Turn};
use rand::Rng;

/// What one descent from the root ended in.
enum Descent {
    /// A new leaf, queued for evaluation.
    Queued(u32),
    /// A terminal (or, with a full arena, a known) value, backed up at once.
    Backed,
    /// The leaf is already queued by an earlier descent of this round.
    Collision,
}

/// A search tree over game `G` rooted at the current position.
///
/// Drive it by hand for batching across trees:
/// [`begin`](Self::begin), then rounds of [`collect`](Self::collect) (the
/// leaves go into a shared [`LeafBatch`]), one evaluation of the batch, and
/// [`absorb`](Self::absorb), until [`is_done`](Self::is_done); or call
/// [`run`](Self::run) for a single tree. After construction nothing
/// allocates.
#[derive(Clone, Debug)]
pub struct Search<G: Game> {
    config: MctsConfig,
    tree: Tree<G>,
    legal: Vec<u16>,
    outcomes: Vec<f32>,
    noise: Vec<f32>,
    /// Leaves queued this round, in batch order.
    queued: Vec<u32>,
    /// Simulations backed up in the current search.
    done: u32,
    /// The current search's simulations (`config.simulations` unless
    /// [`begin_with`](Self::begin_with) asked for fewer).
    budget: u32,
    noise_pending: bool,
    /// Between `begin` and the next move of the root.
    searching: bool,
    /// The Gumbel root's schedule (unused with a PUCT root).
    halving: Halving,
    gumbel_noise: bool,
    /// For `run`: a batch of this tree's own.
    own_batch: LeafBatch<G>,
}

impl<G: Game> Search<G> {
    /// A search at `game`'s position, with arenas sized for
    /// `config.simulations` (allocated here, once).
    pub fn new(config: &MctsConfig, game: &G) -> Result<Self> {
        config.validate()?;
        let mut search = Self {
            config: *config,
            tree: Tree::new(config.node_capacity()),
            legal: vec![0; G::MAX_LEGAL.max(1)],
            outcomes: vec![0.0; G::MAX_OUTCOMES.max(1)],
            noise: vec![0.0; G::MAX_LEGAL.max(1)],
            queued: Vec::with_capacity(config.leaves_per_round as usize),
            done: 0,
            budget: config.simulations,
            noise_pending: false,
            searching: false,
            halving: Halving::with_capacity(G::MAX_LEGAL.max(1)),
            gumbel_noise: false,
            own_batch: LeafBatch::new(config.leaves_per_round as usize),
        };
        search.reset(game);
        Ok(search)
    }

    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Forgets the tree; `game` becomes the root.
    pub fn reset(&mut self, game: &G) {
        self.tree.reset(game, &mut self.outcomes);
        self.queued.clear();
        self.done = 0;
        self.searching = false;
    }

    /// The position at the root (the real game, for a player that follows
    /// every move through [`apply`](Self::apply)).
    pub fn root(&self) -> &G {
        self.tree.state(ROOT)
    }

    /// Nodes in the tree now.
    pub fn tree_size(&self) -> usize {
        self.tree.len()
    }

    /// Moves the root along `action`, keeping its subtree when
    /// `reuse_tree` is on. An illegal action, or a root where no player
    /// moves, is an error and leaves the search unchanged.
    pub fn apply(&mut self, action: usize) -> Result<()> {
        let mut next = self.root().clone();
        next.apply(action)?;
        let child = self.tree.edges(ROOT).iter().find(|e| e.action as usize == action).map_or(NONE, |e| e.child);
        self.follow(child, &next);
        Ok(())
    }

    /// Moves the root along chance outcome `outcome`, keeping its subtree
    /// when `reuse_tree` is on.
    pub fn apply_chance(&mut self, outcome: usize) -> Result<()> {
        let mut next = self.root().clone();
        next.apply_chance(outcome)?;
        let root = self.tree.node(ROOT);
        let child = if root.kind == Kind::Chance { self.tree.edges(ROOT)[outcome].child } else { NONE };
        self.follow(child, &next);
        Ok(())
    }

    fn follow(&mut self, child: u32, next: &G) {
        if self.config.reuse_tree && child != NONE {
            self.tree.keep_subtree(child);
            self.queued.clear();
            self.done = 0;
            self.searching = false;
        } else {
            self.reset(next);
        }
    }

    /// Starts a search of `config.simulations` new simulations from the
    /// root, with Dirichlet noise on the root priors if `noise` (and the
    /// config's fraction is > 0). An error if no player is to move at the
    /// root (the game is over, or dice must be rolled first).
    pub fn begin(&mut self, noise: bool, rng: &mut impl Rng) -> Result<()> {
        self.begin_with(self.config.simulations, noise, rng)
    }

    /// [`begin`](Self::begin) with `simulations` new simulations, at most
    /// `config.simulations` (the arena's size): a cheaper search, for
    /// moves whose search is not used as a training target.
    pub fn begin_with(&mut self, simulations: u32, noise: bool, rng: &mut impl Rng) -> Result<()> {
        match self.root().turn() {
            Turn::Player(_) => {}
            Turn::Over => return Err(wrong_turn::<G>("game over")),
            Turn::Chance => return Err(wrong_turn::<G>("a chance node (roll the dice first)")),
        }
        self.budget = simulations.clamp(1, self.config.simulations);
        let need = NODES_PER_SIMULATION * (self.budget as usize + 1);
        if self.tree.room() < need {
            let root = self.root().clone();
            self.tree.reset(&root, &mut self.outcomes);
        }
        self.queued.clear();
        self.done = 0;
        self.searching = true;
        self.halving.ready = false;
        if self.gumbel() {
            self.gumbel_noise = noise;
            self.noise_pending = false;
            if self.tree.node(ROOT).kind == Kind::Player {
                self.init_halving(rng);
            }
            return Ok(());
        }
        self.noise_pending = noise && self.config.dirichlet_fraction > 0.0;
        if self.noise_pending && self.tree.node(ROOT).kind == Kind::Player {
            self.add_noise(rng);
        }
        Ok(())
    }

    /// Whether the search begun last has all its simulations backed up
    /// (true, too, when no search was begun since the root last moved).
    pub fn is_done(&self) -> bool {
        !self.searching || (self.done >= self.budget && self.queued.is_empty())
    }

    /// Simulations backed up since [`begin`](Self::begin).
    pub fn simulations_done(&self) -> u32 {
        self.done
    }

    /// Leaves queued by the last [`collect`](Self::collect).
    pub fn queued(&self) -> usize {
        self.queued.len()
    }

    /// Runs descents until `leaves_per_round` leaves are queued, the
    /// simulation budget is reached or a descent meets a leaf already
    /// queued; pushes the queued leaves' states onto `batch` and returns
    /// how many. Terminal leaves are backed up on the spot.
    pub fn collect(&mut self, batch: &mut LeafBatch<G>, rng: &mut impl Rng) -> usize {
        debug_assert!(self.queued.is_empty(), "Search::collect: absorb the previous round first");
        while self.queued.len() < self.config.leaves_per_round as usize
            && self.done + (self.queued.len() as u32) < self.budget
            && batch.len() < batch.capacity()
        {
            match self.descend(rng) {
                Descent::Queued(leaf) => {
                    self.queued.push(leaf);
                    batch.push(self.tree.state(leaf));
                }
                Descent::Backed => {}
                Descent::Collision => break,
            }
        }
        self.queued.len()
    }

    /// Expands the queued leaves from their evaluations (row `i` of
    /// `logits` [queued, ACTIONS] and `values` [queued], in queue order)
    /// and backs the values up.
    pub fn absorb(&mut self, logits: &[f32], values: &[f32], rng: &mut impl Rng) {
        let a = G::ACTIONS;
        for i in 0..self.queued.len() {
            let leaf = self.queued[i];
            self.expand(leaf, &logits[i * a..(i + 1) * a]);
            if leaf == ROOT && self.noise_pending {
                self.add_noise(rng);
            }
            let node = *self.tree.node(leaf);
            let v = values[i].clamp(-1.0, 1.0);
            let v0 = match node.kind {
                Kind::Terminal => node.terminal_value,
                _ if node.mover == 0 => v,
                _ => -v,
            };
            self.backup(leaf, v0);
            if leaf == ROOT && self.gumbel() && node.kind == Kind::Player {
                self.init_halving(rng);
            }
        }
        self.queued.clear();
    }

    /// A whole search on this tree alone, `leaves_per_round` leaves per
    /// evaluation.
    pub fn run(&mut self, evaluator: &mut impl Evaluator<G>, noise: bool, rng: &mut impl Rng) -> Result<()> {
        self.begin(noise, rng)?;
        let mut batch = std::mem::take(&mut self.own_batch);
        while !self.is_done() {
            batch.clear();
            self.collect(&mut batch, rng);
            batch.evaluate(evaluator);
            let (logits, values) = batch.outputs();
            self.absorb(logits, values, rng);
        }
        self.own_batch = batch;
        Ok(())
    }

    fn descend(&mut self, rng: &mut impl Rng) -> Descent {
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

    /// Gives leaf `n` one edge per legal action, priors the softmax of the
    /// legal logits.
    fn expand(&mut self, n: u32, logits: &[f32]) {
        let k = self.tree.state(n).legal_actions(&mut self.legal);
        let first = self.tree.a.edges.len() as u32;
        let node = self.tree.node_mut(n);
        node.pending = false;
        if k == 0 {
            // A player to move without a legal move: score it as the game
            // reports, or a draw.
            node.kind = Kind::Terminal;
            node.proven = true;
            let v = self.tree.state(n).outcome(0).unwrap_or(0.0).clamp(-1.0, 1.0);
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

    fn add_noise(&mut self, rng: &mut impl Rng) {
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
    fn backup(&mut self, mut n: u32, v0: f32) {
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

    fn revert(&mut self, mut n: u32) {
        while n != NONE {
            let node = self.tree.node_mut(n);
            node.virtual_visits -= 1;
            n = node.parent;
        }
    }

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

impl<G: Game> Search<G> {
    fn gumbel(&self) -> bool {
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

    fn gumbel_score(&self, i: usize) -> f32 {
        let (mean, most) = self.root_stats();
        self.halving.base[i] + sigma(self.completed_q(i, mean), most)
    }

    /// Draws the noise, picks the considered actions and plans the phases.
    fn init_halving(&mut self, rng: &mut impl Rng) {
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
    fn select_root_gumbel(&mut self) -> Option<usize> {
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
    fn gumbel_policy(&self, out: &mut [f32]) {
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

fn wrong_turn<G: Game>(found: &'static str) -> RlError {
    RlError::Env(EnvError::WrongTurn { game: G::NAME, expected: "a player to move at the search root", found })
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
