//! One search tree driven from outside: construction, moving the root
//! (with subtree reuse), and the rounds of a search (`begin`, `collect`,
//! `absorb`) or a whole search (`run`). Descent and selection live in
//! `descent.rs`, expansion and backup in `backup.rs`, the policy target and
//! the move choice in `policy.rs`, and the Gumbel root in `gumbel.rs`.

use super::config::NODES_PER_SIMULATION;
use super::descent::Descent;
use super::gumbel::Halving;
use super::locate::Sight;
use super::tree::{Kind, NONE, ROOT, Tree};
use super::{Evaluator, LeafBatch, MctsConfig};
use crate::{Result, RlError};
use minnow_envs::{EnvError, Game, Turn, check_game_sizes, game_legal_actions_checked};
use rand::Rng;

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
    pub(super) config: MctsConfig,
    pub(super) tree: Tree<G>,
    pub(super) legal: Vec<u16>,
    pub(super) outcomes: Vec<f32>,
    pub(super) noise: Vec<f32>,
    /// Leaves queued this round, in batch order.
    pub(super) queued: Vec<u32>,
    /// Simulations backed up in the current search.
    pub(super) done: u32,
    /// The current search's simulations (`config.simulations` unless
    /// [`begin_with`](Self::begin_with) asked for fewer).
    pub(super) budget: u32,
    pub(super) noise_pending: bool,
    /// Between `begin` and the next move of the root.
    pub(super) searching: bool,
    /// The Gumbel root's schedule (unused with a PUCT root).
    pub(super) halving: Halving,
    pub(super) gumbel_noise: bool,
    /// For `run`: a batch of this tree's own.
    pub(super) own_batch: LeafBatch<G>,
    /// For `set_root`: the position given, a tree node's, and the nodes
    /// of the plies below the root.
    pub(super) given: Sight,
    pub(super) probe: Sight,
    pub(super) nodes: Vec<u32>,
}

impl<G: Game> Search<G> {
    /// A search at `game`'s position, with arenas sized for
    /// `config.simulations` (allocated here, once). An error if the config
    /// is out of range, or `G` breaks a promise of `Game` at `game` (its
    /// sizes, its legal moves, an observation value left unwritten).
    pub fn new(config: &MctsConfig, game: &G) -> Result<Self> {
        config.validate()?;
        check_game_sizes::<G>()?;
        let tree = Tree::new(config.node_capacity(), config.points);
        let mut search = Self {
            config: *config,
            nodes: Vec::with_capacity(1 + tree.max_width),
            tree,
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
            given: Sight::new::<G>(),
            probe: Sight::new::<G>(),
        };
        search.given.see_checked(game)?;
        search.reset(game);
        Ok(search)
    }

    /// The settings this search was built with.
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
    /// root (the game is over, or dice must be rolled first), or the game
    /// lists no legal move (or one out of range) for the player to move.
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
        game_legal_actions_checked(self.tree.state(ROOT), &mut self.legal)?;
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
    /// `logits` `[queued, ACTIONS]` and `values` `[queued]`, in queue order)
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
}

/// The error for a search asked to move where no player is to move.
pub(super) fn wrong_turn<G: Game>(found: &'static str) -> RlError {
    RlError::Env(EnvError::WrongTurn { game: G::NAME, expected: "a player to move at the search root", found })
}
