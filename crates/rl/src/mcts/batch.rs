//! Leaves of many trees gathered for one batched evaluation.

use super::{Evaluator, Search};
use minnow_envs::Game;
use rand::Rng;

/// Up to `capacity` leaf states with room for their evaluations:
/// `logits` `[capacity, ACTIONS]` and `values` `[capacity]`. Allocated once.
#[derive(Clone, Debug)]
pub struct LeafBatch<G> {
    states: Vec<G>,
    logits: Vec<f32>,
    values: Vec<f32>,
    capacity: usize,
}

impl<G> Default for LeafBatch<G> {
    fn default() -> Self {
        Self { states: Vec::new(), logits: Vec::new(), values: Vec::new(), capacity: 0 }
    }
}

impl<G: Game> LeafBatch<G> {
    /// Room for `capacity` leaves (allocated here, once).
    pub fn new(capacity: usize) -> Self {
        Self {
            states: Vec::with_capacity(capacity),
            logits: vec![0.0; capacity * G::ACTIONS],
            values: vec![0.0; capacity],
            capacity,
        }
    }

    /// Empties the batch for the next round.
    pub fn clear(&mut self) {
        self.states.clear();
    }

    /// Leaves gathered.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether no leaf is gathered.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Leaves the batch holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Adds a copy of leaf `state`; panics when full.
    #[track_caller]
    pub fn push(&mut self, state: &G) {
        assert!(self.states.len() < self.capacity, "LeafBatch::push: full at {}", self.capacity);
        self.states.push(state.clone());
    }

    /// The leaves gathered, in push order.
    pub fn states(&self) -> &[G] {
        &self.states
    }

    /// Evaluates the states gathered so far.
    pub fn evaluate(&mut self, evaluator: &mut impl Evaluator<G>) {
        let n = self.states.len();
        if n > 0 {
            evaluator.evaluate(&self.states, &mut self.logits[..n * G::ACTIONS], &mut self.values[..n]);
        }
    }

    /// The evaluations of the gathered states: (logits `[n, ACTIONS]`,
    /// values `[n]`).
    pub fn outputs(&self) -> (&[f32], &[f32]) {
        let n = self.states.len();
        (&self.logits[..n * G::ACTIONS], &self.values[..n])
    }
}

/// Runs one search on every tree of `searches` at once (each already
/// [`begun`](Search::begin)): every round gathers each unfinished tree's
/// leaves into `batch` and evaluates them in one call. `batch` needs room
/// for `leaves_per_round` leaves of every tree.
pub fn search_batched<G: Game>(
    searches: &mut [Search<G>],
    batch: &mut LeafBatch<G>,
    evaluator: &mut impl Evaluator<G>,
    rng: &mut impl Rng,
) {
    loop {
        batch.clear();
        let mut active = false;
        for s in searches.iter_mut() {
            if !s.is_done() {
                active = true;
                s.collect(batch, rng);
            }
        }
        if !active {
            return;
        }
        batch.evaluate(evaluator);
        let (logits, values) = batch.outputs();
        let mut row = 0;
        for s in searches.iter_mut() {
            let n = s.queued();
            if n > 0 {
                s.absorb(&logits[row * G::ACTIONS..(row + n) * G::ACTIONS], &values[row..row + n], rng);
                row += n;
            }
        }
    }
}
