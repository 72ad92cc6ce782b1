//! The search tree: nodes, edges and game states in preallocated arenas,
//! addressed by `u32` index. Nothing here allocates after construction;
//! keeping a subtree for the next move copies it into a second arena of the
//! same size and swaps the two.

use super::evaluator::final_value;
use minnow_envs::{Game, Turn};

/// No node (an edge not yet traversed, the root's parent).
pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A player to move, not evaluated yet: no edges.
    Leaf,
    /// A player to move, with one edge per legal action.
    Player,
    /// Nature to move, with one edge per outcome (the prior is its
    /// probability).
    Chance,
    /// The game is over; `terminal_value` holds player 0's result.
    Terminal,
}

/// One position. Values are summed from player 0's view, so a node reads
/// the same whoever moves next and however many moves a player makes in a
/// row; the parent flips the sign for its mover when it selects.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub kind: Kind,
    /// The player to move (Leaf and Player nodes).
    pub mover: u8,
    /// Queued for evaluation in the current round.
    pub pending: bool,
    pub parent: u32,
    pub first_edge: u32,
    pub num_edges: u32,
    pub visits: u32,
    /// Descents in flight through this node (each counts as a loss for the
    /// player selecting it until its evaluation is backed up).
    pub virtual_visits: u32,
    pub value_sum: f32,
    /// Player 0's exact value here, once `proven`.
    pub terminal_value: f32,
    /// The exact value is known: the game is over here (every terminal
    /// node), or the solver proved it from the children.
    pub proven: bool,
}

/// A move (or dice outcome) out of a node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub action: u16,
    pub prior: f32,
    pub child: u32,
}

/// The arenas of one tree.
#[derive(Clone, Debug)]
pub(crate) struct Arena<G> {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub states: Vec<G>,
}

impl<G> Arena<G> {
    fn with_capacity(nodes: usize, edges: usize) -> Self {
        Self { nodes: Vec::with_capacity(nodes), edges: Vec::with_capacity(edges), states: Vec::with_capacity(nodes) }
    }

    fn clear(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.states.clear();
    }
}

/// A tree of at most `node_capacity` nodes; node 0 is the root.
#[derive(Clone, Debug)]
pub(crate) struct Tree<G> {
    pub a: Arena<G>,
    spare: Arena<G>,
    queue: Vec<u32>,
    node_capacity: usize,
    edge_capacity: usize,
    /// The most edges one node needs (legal actions or dice outcomes).
    pub max_width: usize,
    /// Terminal nodes are valued in points ([`super::MctsConfig::points`]).
    points: bool,
}

pub(crate) const ROOT: u32 = 0;

impl<G: Game> Tree<G> {
    pub fn new(node_capacity: usize, points: bool) -> Self {
        let max_width = G::MAX_LEGAL.max(G::MAX_OUTCOMES).max(1);
        let edge_capacity = node_capacity * max_width;
        Self {
            a: Arena::with_capacity(node_capacity, edge_capacity),
            spare: Arena::with_capacity(node_capacity, edge_capacity),
            queue: Vec::with_capacity(node_capacity),
            node_capacity,
            edge_capacity,
            max_width,
            points,
        }
    }

    pub fn len(&self) -> usize {
        self.a.nodes.len()
    }

    /// Nodes that can still be added.
    pub fn room(&self) -> usize {
        let by_edges = (self.edge_capacity - self.a.edges.len()) / self.max_width;
        (self.node_capacity - self.a.nodes.len()).min(by_edges)
    }

    /// Drops everything and makes `game` the root.
    pub fn reset(&mut self, game: &G, outcomes: &mut [f32]) {
        self.a.clear();
        self.push(game.clone(), NONE, outcomes);
    }

    /// Adds a node for `game` under `parent`; a chance node gets its
    /// outcome edges at once (they need no evaluation). Needs `room() > 0`.
    pub fn push(&mut self, game: G, parent: u32, outcomes: &mut [f32]) -> u32 {
        debug_assert!(self.room() > 0, "Tree::push: the arena is full");
        let index = self.a.nodes.len() as u32;
        let mut node = Node {
            kind: Kind::Leaf,
            mover: 0,
            pending: false,
            parent,
            first_edge: self.a.edges.len() as u32,
            num_edges: 0,
            visits: 0,
            virtual_visits: 0,
            value_sum: 0.0,
            terminal_value: 0.0,
            proven: false,
        };
        match game.turn() {
            Turn::Player(p) => node.mover = p as u8,
            Turn::Over => {
                node.kind = Kind::Terminal;
                node.proven = true;
                node.terminal_value = final_value(&game, 0, self.points);
            }
            Turn::Chance => {
                node.kind = Kind::Chance;
                let n = game.chance_outcomes(outcomes);
                for (i, &p) in outcomes[..n].iter().enumerate() {
                    self.a.edges.push(Edge { action: i as u16, prior: p, child: NONE });
                }
                node.num_edges = n as u32;
                if n == 0 {
                    // A game that reports a chance node without outcomes:
                    // nothing can follow, so score it as a draw.
                    node.kind = Kind::Terminal;
                    node.proven = true;
                }
            }
        }
        self.a.nodes.push(node);
        self.a.states.push(game);
        index
    }

    pub fn node(&self, i: u32) -> &Node {
        &self.a.nodes[i as usize]
    }

    pub fn node_mut(&mut self, i: u32) -> &mut Node {
        &mut self.a.nodes[i as usize]
    }

    pub fn state(&self, i: u32) -> &G {
        &self.a.states[i as usize]
    }

    pub fn edges(&self, i: u32) -> &[Edge] {
        let n = &self.a.nodes[i as usize];
        &self.a.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize]
    }

    pub fn edges_mut(&mut self, i: u32) -> &mut [Edge] {
        let n = self.a.nodes[i as usize];
        &mut self.a.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize]
    }

    /// Makes the subtree under `new_root` the whole tree (breadth-first
    /// copy into the spare arena, then a swap): no allocation.
    pub fn keep_subtree(&mut self, new_root: u32) {
        let (old, new) = (&self.a, &mut self.spare);
        new.clear();
        self.queue.clear();
        self.queue.push(new_root);
        new.nodes.push(old.nodes[new_root as usize]);
        new.states.push(old.states[new_root as usize].clone());
        let mut head = 0;
        while head < self.queue.len() {
            let from = self.queue[head] as usize;
            let at = head;
            head += 1;
            let n = old.nodes[from];
            let first = new.edges.len() as u32;
            for e in &old.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize] {
                let mut e = *e;
                if e.child != NONE {
                    let child = e.child as usize;
                    e.child = new.nodes.len() as u32;
                    let mut c = old.nodes[child];
                    c.parent = at as u32;
                    new.nodes.push(c);
                    new.states.push(old.states[child].clone());
                    self.queue.push(child as u32);
                }
                new.edges.push(e);
            }
            new.nodes[at].first_edge = first;
        }
        new.nodes[0].parent = NONE;
        std::mem::swap(&mut self.a, &mut self.spare);
    }
}
