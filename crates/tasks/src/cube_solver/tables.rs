//! The evaluations as text tables, as the final suite and `solve cube
//! --evaluate` print them.

use super::{GreedyRow, SolverRow, median};
use minnow_rl::puzzle::SearchConfig;

/// The greedy policy by distance.
pub fn greedy_text(rows: &[GreedyRow]) -> String {
    let mut text = format!("{:>8} {:>10} {:>12} {:>12}\n", "distance", "positions", "within d", "within 2d");
    for r in rows {
        text += &format!(
            "{:>8} {:>10} {:>11.1}% {:>11.1}%\n",
            r.distance,
            r.positions,
            100.0 * r.within_d,
            100.0 * r.within_2d
        );
    }
    text
}

/// [`value_errors`](super::value_errors)' rows, distance 1 first.
pub fn value_errors_text(errors: &[(f64, f64)]) -> String {
    let mut text = format!("{:>8} {:>10} {:>10}\n", "distance", "J - d", "|J - d|");
    for (d, (bias, mae)) in errors.iter().enumerate() {
        text += &format!("{:>8} {bias:>10.3} {mae:>10.3}\n", d + 1);
    }
    text
}

/// The solver by distance beside bidirectional BFS, and the overall
/// median time and mean nodes expanded.
pub fn solver_text(rows: &[SolverRow], search: SearchConfig) -> String {
    let mut text = format!(
        "weighted A* (lambda {}, batch {}) beside bidirectional BFS, one thread:\n{:>8} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>10}\n",
        search.lambda,
        search.batch,
        "distance",
        "positions",
        "solved",
        "optimal",
        "length",
        "expanded",
        "max exp",
        "BFS exp",
        "median ms"
    );
    for r in rows {
        text += &format!(
            "{:>8} {:>9} {:>7.1}% {:>8.2} {:>8.2} {:>9.1} {:>9} {:>9.1} {:>10.2}\n",
            r.distance,
            r.positions,
            100.0 * r.solved as f64 / r.positions as f64,
            r.mean_optimal,
            r.mean_length,
            r.mean_expanded,
            r.max_expanded,
            r.mean_bfs_expanded,
            r.median_ms
        );
    }
    let mut all: Vec<f64> = rows.iter().flat_map(|r| r.times_ms.iter().copied()).collect();
    let n = all.len().max(1) as f64;
    let expanded = rows.iter().map(|r| r.mean_expanded * r.positions as f64).sum::<f64>() / n;
    text += &format!(
        "all {} positions: median {:.2} ms per cube, mean {:.1} nodes expanded\n",
        all.len(),
        median(&mut all),
        expanded
    );
    text
}
