//! Finding a given position in the tree, for a caller that does not tell
//! the search every move (`Search::set_root`): the root when it shows the
//! position, else a node a move or two below it whose subtree can be kept,
//! else a new tree. A position is recognised by what the game exposes
//! through its trait: whose turn it is, its legal moves and its
//! observation.

use super::search::Search;
use super::tree::{Kind, NONE, ROOT};
use crate::Result;
use minnow_envs::{Game, Turn, game_legal_actions_checked, game_observe_checked};

/// How far below the root a position is looked for: the player's own
/// move and the reply to it (or the dice after it).
pub(super) const REUSE_PLIES: usize = 2;

/// What a position shows: the turn, the legal moves and the observation.
#[derive(Clone, Debug)]
pub(super) struct Sight {
    turn: Turn,
    legal: Vec<u16>,
    moves: usize,
    obs: Vec<f32>,
}

impl Sight {
    pub(super) fn new<G: Game>() -> Self {
        Self { turn: Turn::Over, legal: vec![0; G::MAX_LEGAL.max(1)], moves: 0, obs: vec![0.0; G::OBSERVATION_SIZE] }
    }

    /// Takes in `game`, checking that it keeps `Game`'s promises (every
    /// observation value written, legal moves in range, one at least when
    /// a player is to move).
    pub(super) fn see_checked<G: Game>(&mut self, game: &G) -> Result<()> {
        self.turn = game.turn();
        self.moves = game_legal_actions_checked(game, &mut self.legal)?;
        game_observe_checked(game, &mut self.obs)?;
        Ok(())
    }

    fn see<G: Game>(&mut self, game: &G) {
        self.turn = game.turn();
        self.moves = game.legal_actions(&mut self.legal);
        game.observe(&mut self.obs);
    }

    fn same(&self, other: &Sight) -> bool {
        self.turn == other.turn
            && self.legal[..self.moves] == other.legal[..other.moves]
            && self.obs.iter().zip(&other.obs).all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl<G: Game> Search<G> {
    /// Makes `game` the root, whatever the search was told before: the
    /// tree stays as it is when its root shows `game`; with `reuse_tree`,
    /// the subtree of a node at most two moves (or dice) below the root
    /// that shows it is kept, as [`apply`](Self::apply) would have
    /// kept it; otherwise the tree starts afresh at `game`. So a caller can
    /// hand the search any sequence of positions and never search a stale
    /// tree.
    ///
    /// A position is recognised by whose turn it is, its legal moves and
    /// its observation; a game whose observation leaves out state that
    /// changes what follows (a move counter that ends the game, say) gets a
    /// kept subtree built with the state of the tree's own positions.
    /// An error if `game` breaks a promise of `Game`: an observation value
    /// left unwritten, a legal move out of range, none while a player is
    /// to move.
    pub fn set_root(&mut self, game: &G) -> Result<()> {
        self.given.see_checked(game)?;
        if self.shows(ROOT) {
            return Ok(());
        }
        if self.config.reuse_tree
            && let Some(node) = self.below_root_showing()
        {
            self.tree.keep_subtree(node);
            self.queued.clear();
            self.done = 0;
            self.searching = false;
            return Ok(());
        }
        self.reset(game);
        Ok(())
    }

    /// Whether node `n`'s position looks like the given one.
    fn shows(&mut self, n: u32) -> bool {
        self.probe.see(self.tree.state(n));
        self.probe.same(&self.given)
    }

    /// The first node (breadth first) at most [`REUSE_PLIES`] below the
    /// root that shows the given position.
    fn below_root_showing(&mut self) -> Option<u32> {
        // Each ply's nodes follow the previous ply's in `level`; the last
        // ply's are only looked at, so it holds at most one node's width.
        let mut level = std::mem::take(&mut self.nodes);
        level.clear();
        level.push(ROOT);
        let mut start = 0;
        let mut found = None;
        'plies: for ply in 0..REUSE_PLIES {
            let end = level.len();
            for i in start..end {
                let node = *self.tree.node(level[i]);
                if !matches!(node.kind, Kind::Player | Kind::Chance) {
                    continue;
                }
                for e in node.first_edge..node.first_edge + node.num_edges {
                    let child = self.tree.a.edges[e as usize].child;
                    if child == NONE {
                        continue;
                    }
                    if self.shows(child) {
                        found = Some(child);
                        break 'plies;
                    }
                    if ply + 1 < REUSE_PLIES {
                        level.push(child);
                    }
                }
            }
            start = end;
        }
        self.nodes = level;
        found
    }
}
