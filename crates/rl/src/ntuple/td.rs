//! TD(0) on afterstates (Szubert & Jaśkowski 2014): after each move, the
//! previous afterstate's value moves towards the reward of the move just
//! made plus the value of the afterstate it led to,
//! `V(s'_t) += alpha * (r_{t+1} + V(s'_{t+1}) - V(s'_t))`, with `V = 0`
//! past the end of the episode.

use super::NTupleNetwork;

/// The learner's memory of the last afterstate. Allocates only when a
/// board longer than any before arrives.
#[derive(Clone, Debug, PartialEq)]
pub struct TdLearner {
    alpha: f32,
    previous: Vec<u8>,
    pending: bool,
}

impl TdLearner {
    /// `alpha`: the step size, the share of the TD error a board's value
    /// moves by (before any placements collide).
    pub fn new(alpha: f32) -> Self {
        Self { alpha, previous: Vec::new(), pending: false }
    }

    /// The current step size.
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// Sets the step size (for a decay the caller runs).
    pub fn set_alpha(&mut self, alpha: f32) {
        self.alpha = alpha;
    }

    /// A move earned `reward` and led to `afterstate` (the board before the
    /// environment's chance event). Updates the previous afterstate of this
    /// episode, if any, and returns its TD error (0 on the first move).
    #[track_caller]
    pub fn step(&mut self, net: &mut NTupleNetwork, afterstate: &[u8], reward: f32) -> f32 {
        let error = if self.pending { reward + net.value(afterstate) - net.value(&self.previous) } else { 0.0 };
        if self.pending {
            net.update(&self.previous, self.alpha * error);
        }
        self.previous.clear();
        self.previous.extend_from_slice(afterstate);
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
        let error = -net.value(&self.previous);
        net.update(&self.previous, self.alpha * error);
        error
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
