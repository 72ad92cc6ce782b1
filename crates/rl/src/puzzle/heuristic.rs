use super::Puzzle;
use crate::Result;

/// A batched estimate of the moves left to the goal: searches score every
/// new child of an expansion in one call.
pub trait Heuristic<P: Puzzle> {
    /// `out[i]`: the estimated cost from `states[i]` to the goal, at least 0.
    fn estimate(&mut self, puzzle: &P, states: &[P::State], out: &mut [f32]) -> Result<()>;
}

/// Any per-state function is a heuristic (exact distances in tests, 0 for
/// uniform-cost search).
impl<P: Puzzle, F: FnMut(P::State) -> f32> Heuristic<P> for F {
    fn estimate(&mut self, _: &P, states: &[P::State], out: &mut [f32]) -> Result<()> {
        for (o, &s) in out.iter_mut().zip(states) {
            *o = self(s);
        }
        Ok(())
    }
}
