//! Batched weighted A* (DeepCubeA's search): `f = lambda g + h`; each
//! iteration pops the `batch` open nodes of lowest `f`, expands them, and
//! scores all of their new children in one heuristic call. It stops when
//! the goal is generated. Nodes reached again by a shorter path are
//! reopened, so with `lambda = 1`, `batch = 1` and an admissible,
//! consistent `h` the first solution is optimal. The search is complete:
//! the state space is finite and a state is pushed again only with a
//! strictly shorter path.

use super::{Heuristic, Puzzle};
use crate::{Check, Result, RlError};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Weighted batched A*: `f = lambda * g + h`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchConfig {
    /// The weight of the path cost: below 1 trusts the heuristic more
    /// (fewer expansions, longer solutions).
    pub lambda: f32,
    /// Open nodes expanded per iteration (the heuristic's batch is up to
    /// `batch` times the moves).
    pub batch: usize,
}

impl SearchConfig {
    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let check = Check("SearchConfig");
        check.non_negative("lambda", self.lambda)?;
        Ok(check.count_in("batch", "a batch in 1..=65536", self.batch as u64, 1, 65536)?)
    }
}

/// What one search found and what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Moves in the solution (see [`WeightedAStar::path`]).
    pub length: usize,
    /// Nodes whose children were generated.
    pub expanded: u64,
    /// States the heuristic scored.
    pub evaluated: u64,
}

/// An open node; the heap pops the lowest `f`, then the lowest `h`.
#[derive(Clone, Copy, Debug)]
struct Open<S> {
    f: f32,
    h: f32,
    g: u32,
    state: S,
}

impl<S> PartialEq for Open<S> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<S> Eq for Open<S> {}

impl<S> PartialOrd for Open<S> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<S> Ord for Open<S> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.total_cmp(&self.f).then(other.h.total_cmp(&self.h))
    }
}

/// The search's tables, indexed by [`Puzzle::index`] and allocated once;
/// a search stamps the entries it writes, so nothing is cleared between
/// searches. After a warm-up search as large as later ones, a search
/// allocates nothing.
#[derive(Debug)]
pub struct WeightedAStar<P: Puzzle> {
    config: SearchConfig,
    stamp: Vec<u32>,
    g: Vec<u32>,
    h: Vec<f32>,
    /// The move that reached each state on its best known path.
    parent: Vec<u8>,
    search_id: u32,
    open: BinaryHeap<Open<P::State>>,
    popped: Vec<Open<P::State>>,
    new_children: Vec<P::State>,
    values: Vec<f32>,
    path: Vec<usize>,
}

impl<P: Puzzle> WeightedAStar<P> {
    /// A searcher with one table entry per state of `puzzle` (allocated here).
    pub fn new(puzzle: &P, config: SearchConfig) -> Result<Self> {
        config.validate()?;
        Check("WeightedAStar").count_in("moves", "1..=255 moves", puzzle.moves() as u64, 1, 255)?;
        let n = puzzle.state_count();
        let children = config.batch * puzzle.moves();
        Ok(Self {
            config,
            stamp: vec![0; n],
            g: vec![0; n],
            h: vec![0.0; n],
            parent: vec![0; n],
            search_id: 0,
            open: BinaryHeap::with_capacity(4 * children),
            popped: Vec::with_capacity(config.batch),
            new_children: Vec::with_capacity(children),
            values: vec![0.0; children],
            path: Vec::with_capacity(64),
        })
    }

    /// The search's settings.
    pub fn config(&self) -> SearchConfig {
        self.config
    }

    /// The moves of the last solution, from the start.
    pub fn path(&self) -> &[usize] {
        &self.path
    }

    /// Searches from `start` to the goal.
    pub fn solve<H: Heuristic<P>>(&mut self, puzzle: &P, heuristic: &mut H, start: P::State) -> Result<Solution> {
        self.begin();
        self.path.clear();
        let mut solution = Solution { length: 0, expanded: 0, evaluated: 0 };
        if puzzle.is_goal(start) {
            return Ok(solution);
        }
        let (lambda, moves) = (self.config.lambda, puzzle.moves());
        let root = puzzle.index(start);
        self.stamp[root] = self.search_id;
        self.g[root] = 0;
        heuristic.estimate(puzzle, &[start], &mut self.values[..1])?;
        solution.evaluated = 1;
        self.h[root] = self.values[0];
        self.open.push(Open { f: self.values[0], h: self.values[0], g: 0, state: start });
        loop {
            self.popped.clear();
            while self.popped.len() < self.config.batch
                && let Some(node) = self.open.pop()
            {
                // Skip entries superseded by a shorter path.
                if self.g[puzzle.index(node.state)] == node.g {
                    self.popped.push(node);
                }
            }
            if self.popped.is_empty() {
                return Err(RlError::Unreachable { puzzle: P::NAME });
            }
            self.new_children.clear();
            for k in 0..self.popped.len() {
                let node = self.popped[k];
                solution.expanded += 1;
                let g = node.g + 1;
                for a in 0..moves {
                    let child = puzzle.apply(node.state, a);
                    let i = puzzle.index(child);
                    let seen = self.stamp[i] == self.search_id;
                    if seen && self.g[i] <= g {
                        continue;
                    }
                    self.stamp[i] = self.search_id;
                    self.g[i] = g;
                    self.parent[i] = a as u8;
                    if puzzle.is_goal(child) {
                        // Ancestors reopened since their children were generated
                        // make the traced path shorter than `g`.
                        self.trace_back(puzzle, child, start);
                        solution.length = self.path.len();
                        return Ok(solution);
                    }
                    if !seen {
                        self.h[i] = f32::NAN;
                        self.new_children.push(child);
                    } else if !self.h[i].is_nan() {
                        let h = self.h[i];
                        self.open.push(Open { f: lambda * g as f32 + h, h, g, state: child });
                    }
                }
            }
            let count = self.new_children.len();
            if count > 0 {
                heuristic.estimate(puzzle, &self.new_children, &mut self.values[..count])?;
            }
            solution.evaluated += count as u64;
            for (&child, &h) in self.new_children.iter().zip(&self.values) {
                let i = puzzle.index(child);
                let g = self.g[i];
                self.h[i] = h;
                self.open.push(Open { f: lambda * g as f32 + h, h, g, state: child });
            }
        }
    }

    /// A fresh stamp; the tables are cleared only when the stamps wrap.
    fn begin(&mut self) {
        self.open.clear();
        self.search_id = self.search_id.wrapping_add(1);
        if self.search_id == 0 {
            self.stamp.fill(0);
            self.search_id = 1;
        }
    }

    fn trace_back(&mut self, puzzle: &P, goal: P::State, start: P::State) {
        let mut state = goal;
        while state != start {
            let a = self.parent[puzzle.index(state)] as usize;
            self.path.push(a);
            state = puzzle.apply(state, puzzle.inverse(a));
        }
        self.path.reverse();
    }
}
