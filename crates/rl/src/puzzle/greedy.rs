//! The one-view greedy policy of a cost-to-go: from `s`, the move `a` whose
//! result has the lowest estimate (a goal counts 0). No search, no
//! averaging over symmetric views.

use super::{Heuristic, Puzzle};
use crate::Result;

/// The greedy move from `state`; `children` and `values` hold one entry per
/// move (scratch, overwritten). Ties go to the lowest move.
pub fn greedy_move<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    heuristic: &mut H,
    state: P::State,
    children: &mut [P::State],
    values: &mut [f32],
) -> Result<usize> {
    let moves = puzzle.moves();
    for (a, child) in children[..moves].iter_mut().enumerate() {
        *child = puzzle.apply(state, a);
    }
    heuristic.estimate(puzzle, &children[..moves], &mut values[..moves])?;
    Ok(argmin(&values[..moves], &children[..moves], puzzle))
}

/// Plays the greedy policy from every start at once (one batched estimate
/// per move), for at most `max_moves` moves each; `out[i]` is the number of
/// moves that reached the goal from `starts[i]`, or `None`.
pub fn greedy_solve<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    heuristic: &mut H,
    starts: &[P::State],
    max_moves: usize,
    out: &mut [Option<usize>],
) -> Result<()> {
    let moves = puzzle.moves();
    let mut current: Vec<(usize, P::State)> = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        out[i] = if puzzle.is_goal(s) { Some(0) } else { None };
        if out[i].is_none() {
            current.push((i, s));
        }
    }
    let mut children = Vec::with_capacity(starts.len() * moves);
    let mut values = vec![0.0; starts.len() * moves];
    for step in 1..=max_moves {
        if current.is_empty() {
            break;
        }
        children.clear();
        for &(_, s) in &current {
            children.extend((0..moves).map(|a| puzzle.apply(s, a)));
        }
        heuristic.estimate(puzzle, &children, &mut values[..children.len()])?;
        for (k, (i, s)) in current.iter_mut().enumerate() {
            let row = k * moves..(k + 1) * moves;
            let a = argmin(&values[row.clone()], &children[row], puzzle);
            *s = puzzle.apply(*s, a);
            if puzzle.is_goal(*s) {
                out[*i] = Some(step);
            }
        }
        current.retain(|&(i, _)| out[i].is_none());
    }
    Ok(())
}

fn argmin<P: Puzzle>(values: &[f32], children: &[P::State], puzzle: &P) -> usize {
    let mut best = (0, f32::INFINITY);
    for (a, (&v, &child)) in values.iter().zip(children).enumerate() {
        let v = if puzzle.is_goal(child) { f32::NEG_INFINITY } else { v };
        if v < best.1 {
            best = (a, v);
        }
    }
    best.0
}
