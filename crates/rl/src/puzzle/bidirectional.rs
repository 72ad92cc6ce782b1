//! Blind bidirectional breadth-first search, the baseline a learned
//! heuristic must beat: whole layers from the start and from the goal,
//! always the smaller frontier first, until a state is reached from both
//! sides. The first meeting gives an optimal solution (every state nearer
//! to either side was already marked by it). A puzzle's moves are closed
//! under inverse, so the goal side expands with the same moves.

use super::Puzzle;
use crate::{Result, RlError};

/// Per-side marks, indexed by [`Puzzle::index`] and allocated once, with a
/// stamp per search so nothing is cleared between searches.
#[derive(Debug)]
pub struct BidirectionalBfs<P: Puzzle> {
    stamp: [Vec<u32>; 2],
    depth: [Vec<u16>; 2],
    frontier: [Vec<P::State>; 2],
    next: Vec<P::State>,
    search_id: u32,
}

impl<P: Puzzle> BidirectionalBfs<P> {
    /// A searcher with one table entry per state of `puzzle`, per direction.
    pub fn new(puzzle: &P) -> Self {
        let n = puzzle.state_count();
        Self {
            stamp: [vec![0; n], vec![0; n]],
            depth: [vec![0; n], vec![0; n]],
            frontier: [Vec::new(), Vec::new()],
            next: Vec::new(),
            search_id: 0,
        }
    }

    /// The optimal solution length from `start` and the nodes expanded.
    pub fn solve(&mut self, puzzle: &P, start: P::State) -> Result<(usize, u64)> {
        if puzzle.is_goal(start) {
            return Ok((0, 0));
        }
        self.search_id = self.search_id.wrapping_add(1);
        if self.search_id == 0 {
            self.stamp.iter_mut().for_each(|s| s.fill(0));
            self.search_id = 1;
        }
        let id = self.search_id;
        let mut expanded = 0;
        for (side, root) in [start, puzzle.goal()].into_iter().enumerate() {
            let i = puzzle.index(root);
            self.stamp[side][i] = id;
            self.depth[side][i] = 0;
            self.frontier[side].clear();
            self.frontier[side].push(root);
        }
        loop {
            let side = if self.frontier[0].len() <= self.frontier[1].len() { 0 } else { 1 };
            let other = 1 - side;
            if self.frontier[side].is_empty() {
                return Err(RlError::Unreachable { puzzle: P::NAME });
            }
            self.next.clear();
            for k in 0..self.frontier[side].len() {
                let state = self.frontier[side][k];
                let d = self.depth[side][puzzle.index(state)] + 1;
                expanded += 1;
                for a in 0..puzzle.moves() {
                    let child = puzzle.apply(state, a);
                    let i = puzzle.index(child);
                    if self.stamp[other][i] == id {
                        return Ok((d as usize + self.depth[other][i] as usize, expanded));
                    }
                    if self.stamp[side][i] != id {
                        self.stamp[side][i] = id;
                        self.depth[side][i] = d;
                        self.next.push(child);
                    }
                }
            }
            std::mem::swap(&mut self.frontier[side], &mut self.next);
        }
    }
}
