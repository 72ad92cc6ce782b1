//! TD(0) on afterstates (Szubert & Jaśkowski 2014): after each move, the
//! previous afterstate's value moves towards the reward of the move just
//! made plus the value of the afterstate it led to,
//! `V(s'_t) += alpha * (r_{t+1} + V(s'_{t+1}) - V(s'_t))`, with `V = 0`
//! past the end of the episode.
//!
//! With temporal coherence (TC; Beal & Smith 1999, for 2048 Jaśkowski
//! 2016) each entry has its own step size, `alpha * |E| / A`, where `E`
//! sums the entry's shares of the TD errors and `A` their magnitudes (1
//! before the first update): entries whose errors keep one sign learn at
//! full speed, those whose errors cancel slow down. The sums are the
//! learner's state, as large as the tables.

use super::NTupleNetwork;
use crate::{Result, RlError, state::StateSource};

/// The learner's memory of the last afterstate and, with TC, its sums.
/// Allocates only when a board longer than any before arrives.
#[derive(Clone, Debug, PartialEq)]
pub struct TdLearner {
    alpha: f32,
    previous: Vec<u8>,
    previous_stage: usize,
    pending: bool,
    coherence: Option<Coherence>,
}

/// TC's sums per entry of the tables.
#[derive(Clone, Debug, PartialEq)]
struct Coherence {
    /// `E`: the signed shares of the TD errors.
    errors: Vec<f32>,
    /// `A`: their magnitudes.
    magnitudes: Vec<f32>,
}

impl TdLearner {
    /// `alpha`: the step size, the share of the TD error a board's value
    /// moves by (before any placements collide).
    pub fn new(alpha: f32) -> Self {
        Self { alpha, previous: Vec::new(), previous_stage: 0, pending: false, coherence: None }
    }

    /// TD(0) with temporal coherence over the entries of `net` (allocates
    /// two arrays as large as its tables).
    pub fn coherent(alpha: f32, net: &NTupleNetwork) -> Self {
        let len = net.weights().len();
        Self { coherence: Some(Coherence { errors: vec![0.0; len], magnitudes: vec![0.0; len] }), ..Self::new(alpha) }
    }

    /// The current step size.
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// Sets the step size (for a decay the caller runs).
    pub fn set_alpha(&mut self, alpha: f32) {
        self.alpha = alpha;
    }

    /// TC's sums, `E` and `A` (in the tables' flat order), when it learns with TC.
    pub fn coherence(&self) -> Option<(&[f32], &[f32])> {
        self.coherence.as_ref().map(|c| (&c.errors[..], &c.magnitudes[..]))
    }

    /// Reads TC's sums back from `source`'s arrays `errors` and
    /// `magnitudes` (same lengths as its own, finite, magnitudes >= 0).
    /// A learner without TC refuses them; on an error nothing changes.
    pub fn restore_coherence(&mut self, source: &dyn StateSource, errors: &str, magnitudes: &str) -> Result<()> {
        let fail = |name: &str, detail: String| RlError::State { name: name.to_string(), detail };
        let Some(c) = self.coherence.as_mut() else {
            return Err(fail(errors, "this learner has no temporal coherence".into()));
        };
        let read = |name: &str, own: &[f32], signed: bool| -> Result<Vec<f32>> {
            let saved = source.array(name).ok_or_else(|| fail(name, "missing".into()))?;
            if saved.len() != own.len() {
                return Err(fail(name, format!("{} sums, the tables have {} entries", saved.len(), own.len())));
            }
            if let Some(bad) = saved.iter().find(|v| !v.is_finite() || (!signed && **v < 0.0)) {
                return Err(fail(
                    name,
                    format!("a sum is {bad}, expected finite values{}", if signed { "" } else { " >= 0" }),
                ));
            }
            Ok(saved.to_vec())
        };
        let (e, a) = (read(errors, &c.errors, true)?, read(magnitudes, &c.magnitudes, false)?);
        c.errors.copy_from_slice(&e);
        c.magnitudes.copy_from_slice(&a);
        Ok(())
    }

    /// A move earned `reward` and led to `afterstate` (the board before the
    /// environment's chance event). Updates the previous afterstate of this
    /// episode, if any, and returns its TD error (0 on the first move).
    #[track_caller]
    pub fn step(&mut self, net: &mut NTupleNetwork, afterstate: &[u8], reward: f32) -> f32 {
        self.staged_step(net, 0, afterstate, reward)
    }

    /// [`TdLearner::step`] for an afterstate valued by stage `stage` of a
    /// multi-stage network.
    #[track_caller]
    pub fn staged_step(&mut self, net: &mut NTupleNetwork, stage: usize, afterstate: &[u8], reward: f32) -> f32 {
        let error = if self.pending {
            reward + net.staged_value(stage, afterstate) - net.staged_value(self.previous_stage, &self.previous)
        } else {
            0.0
        };
        if self.pending {
            self.update_previous(net, error);
        }
        self.previous.clear();
        self.previous.extend_from_slice(afterstate);
        self.previous_stage = stage;
        self.pending = true;
        error
    }

    /// The episode ended after the last afterstate: its value moves
    /// towards 0. Returns that TD error; the next `step` starts afresh.
    pub fn finish(&mut self, net: &mut NTupleNetwork) -> f32 {
        if !self.pending {
            return 0.0;
        }
        self.pending = false;
        let error = -net.staged_value(self.previous_stage, &self.previous);
        self.update_previous(net, error);
        error
    }

    fn update_previous(&mut self, net: &mut NTupleNetwork, error: f32) {
        let (alpha, stage) = (self.alpha, self.previous_stage);
        match &mut self.coherence {
            // The plain rule's arithmetic is `update`'s, so runs without TC
            // keep their bits.
            None => {
                let share = alpha * error / net.features() as f32;
                net.update_each(stage, &self.previous, |_, w| *w += share);
            }
            Some(c) => {
                let share = error / net.features() as f32;
                net.update_each(stage, &self.previous, |i, w| {
                    let a = c.magnitudes[i];
                    let rate = if a > 0.0 { c.errors[i].abs() / a } else { 1.0 };
                    *w += alpha * rate * share;
                    c.errors[i] += share;
                    c.magnitudes[i] = a + share.abs();
                });
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_updates_the_previous_afterstate_by_the_td_rule() {
        let mut net = NTupleNetwork::new(2, 4, &[vec![vec![0, 1]]]).unwrap();
        let mut td = TdLearner::new(0.5);
        assert_eq!(td.step(&mut net, &[1, 0], 10.0), 0.0, "nothing to update on the first move");
        assert_eq!(net.value(&[1, 0]), 0.0);
        // V([1,0]) += 0.5 * (2 + V([2,0]) - V([1,0])) = 1.
        assert_eq!(td.step(&mut net, &[2, 0], 2.0), 2.0);
        assert_eq!(net.value(&[1, 0]), 1.0);
        // Terminal: V([2,0]) += 0.5 * (0 - 0); then a new episode starts.
        assert_eq!(td.finish(&mut net), 0.0);
        assert_eq!(td.step(&mut net, &[3, 0], 4.0), 0.0);
        // V([3,0]) += 0.5 * (4 + V([1,0]) - 0) = 2.5.
        assert_eq!(td.step(&mut net, &[1, 0], 4.0), 5.0);
        assert_eq!(net.value(&[3, 0]), 2.5);
        assert_eq!(td.finish(&mut net), -1.0);
        assert_eq!(net.value(&[1, 0]), 0.5);
        assert_eq!(td.finish(&mut net), 0.0, "finishing twice changes nothing");
    }

    #[test]
    fn a_chain_learns_its_return() {
        // Afterstates 0 -> 1 -> 2 -> end, reward 1 per move after the
        // first: V(0) -> 2, V(1) -> 1, V(2) -> 0.
        let mut net = NTupleNetwork::new(1, 3, &[vec![vec![0]]]).unwrap();
        let mut td = TdLearner::new(0.2);
        for _ in 0..300 {
            for s in 0..3u8 {
                td.step(&mut net, &[s], 1.0);
            }
            td.finish(&mut net);
        }
        for (s, want) in [(0u8, 2.0), (1, 1.0), (2, 0.0)] {
            assert!((net.value(&[s]) - want).abs() < 1e-3, "V({s}) = {}", net.value(&[s]));
        }
    }
}
