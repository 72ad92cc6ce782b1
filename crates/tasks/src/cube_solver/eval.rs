//! How good a cube cost-to-go is, judged against the exact BFS distances
//! (a test oracle only: nothing here trains): the one-view greedy policy,
//! the value error by distance, and the weighted A* solver beside blind
//! bidirectional search. Positions come from `CubeDistances::
//! evaluation_set`, drawn uniformly with replacement at each distance (at
//! distance 14 only 276 positions exist, so 1,000 draws repeat some).

use super::{Cube, CubeSolverError, Result, Solver};
use minnow_envs::{CubeDistances, CubeState};
use minnow_rl::puzzle::{Heuristic, LearnedHeuristic, SearchConfig, greedy_solve};

/// The cube's diameter: every position is at most 14 moves from solved.
pub const DIAMETER: usize = 14;

/// The evaluation positions at `distance`.
pub(super) fn positions(distance: usize, count: usize, seed: u64) -> Result<Vec<CubeState>> {
    Ok(CubeDistances::get().evaluation_set(distance, count, seed)?)
}

/// The greedy policy at one distance.
#[derive(Clone, Copy, Debug)]
pub struct GreedyRow {
    /// The positions' exact distance.
    pub distance: usize,
    /// How many were played.
    pub positions: usize,
    /// Share solved within `distance` moves (optimally).
    pub within_d: f64,
    /// Share solved within `2 * distance` moves.
    pub within_2d: f64,
}

/// The policy that takes the move to the lowest cost-to-go, from `count`
/// positions at each of `distances`, with a budget of twice the distance.
pub fn greedy_table(
    heuristic: &mut LearnedHeuristic,
    distances: impl Iterator<Item = usize>,
    count: usize,
    seed: u64,
) -> Result<Vec<GreedyRow>> {
    let mut rows = Vec::new();
    for d in distances {
        let starts = positions(d, count, seed)?;
        let mut moves = vec![None; count];
        greedy_solve(&Cube, heuristic, &starts, 2 * d, &mut moves)?;
        let share = |limit: usize| moves.iter().filter(|m| m.is_some_and(|m| m <= limit)).count() as f64 / count as f64;
        rows.push(GreedyRow { distance: d, positions: count, within_d: share(d), within_2d: share(2 * d) });
    }
    Ok(rows)
}

/// Mean `J(s) - d(s)` and mean `|J(s) - d(s)|` at each distance 1..=14.
pub fn value_errors(heuristic: &mut LearnedHeuristic, count: usize, seed: u64) -> Result<Vec<(f64, f64)>> {
    let mut rows = Vec::new();
    let mut values = vec![0.0; count];
    for d in 1..=DIAMETER {
        let states = positions(d, count, seed)?;
        heuristic.estimate(&Cube, &states, &mut values)?;
        let bias = values.iter().map(|&v| v as f64 - d as f64).sum::<f64>() / count as f64;
        let mae = values.iter().map(|&v| (v as f64 - d as f64).abs()).sum::<f64>() / count as f64;
        rows.push((bias, mae));
    }
    Ok(rows)
}

/// The solver at one distance.
#[derive(Clone, Debug, Default)]
pub struct SolverRow {
    /// The positions' exact distance.
    pub distance: usize,
    /// How many were solved (or tried).
    pub positions: usize,
    /// How many ended solved by a path of the length reported.
    pub solved: usize,
    /// Mean exact distance (the distance itself, unless the oracle is off).
    pub mean_optimal: f64,
    /// Mean solution length.
    pub mean_length: f64,
    /// Mean nodes weighted A* expanded.
    pub mean_expanded: f64,
    /// Most nodes weighted A* expanded on one position.
    pub max_expanded: u64,
    /// Mean nodes bidirectional BFS expanded.
    pub mean_bfs_expanded: f64,
    /// Median milliseconds per solve.
    pub median_ms: f64,
    /// Every solve's time in milliseconds (for the overall median).
    pub times_ms: Vec<f64>,
}

/// Weighted A* from `count` positions at each of `distances`, each
/// solution replayed and checked, beside bidirectional BFS from the same
/// positions. One thread.
pub fn solver_table(
    heuristic: &mut LearnedHeuristic,
    search: SearchConfig,
    distances: impl Iterator<Item = usize>,
    count: usize,
    seed: u64,
) -> Result<Vec<SolverRow>> {
    let mut solver = Solver::new(search)?;
    // Warm the tables and the heuristic's buffers before timing.
    solver.solve(heuristic, positions(DIAMETER, 1, seed)?[0])?;
    let mut rows = Vec::new();
    for d in distances {
        let mut row = SolverRow { distance: d, positions: count, ..SolverRow::default() };
        for start in positions(d, count, seed)? {
            let solved = solver.solve(heuristic, start)?;
            row.times_ms.push(solved.ms);
            let end = solved.moves.iter().fold(start, |s, &m| s.apply(m));
            if end.is_solved() && solved.moves.len() == solved.length {
                row.solved += 1;
            }
            row.mean_optimal += solved.optimal as f64;
            row.mean_length += solved.length as f64;
            row.mean_expanded += solved.expanded as f64;
            row.max_expanded = row.max_expanded.max(solved.expanded);
            if solved.bfs_length != solved.optimal {
                return Err(CubeSolverError::BfsDisagrees { found: solved.bfs_length, optimal: solved.optimal });
            }
            row.mean_bfs_expanded += solved.bfs_expanded as f64;
        }
        for mean in [&mut row.mean_optimal, &mut row.mean_length, &mut row.mean_expanded, &mut row.mean_bfs_expanded] {
            *mean /= count as f64;
        }
        row.median_ms = median(&mut row.times_ms.clone());
        rows.push(row);
    }
    Ok(rows)
}

/// The median (NaN of none), sorting `values`.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => 0.5 * (values[n / 2 - 1] + values[n / 2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minnow_rl::puzzle::{BidirectionalBfs, WeightedAStar};

    #[test]
    fn astar_with_the_exact_distances_is_optimal_on_the_cube() {
        let oracle = CubeDistances::get();
        let mut exact = |s: CubeState| oracle.distance(&s) as f32;
        let mut bfs = BidirectionalBfs::new(&Cube);
        for batch in [1, 16] {
            let mut astar = WeightedAStar::new(&Cube, SearchConfig { lambda: 1.0, batch }).unwrap();
            for d in 1..=DIAMETER {
                for start in positions(d, 5, 11).unwrap() {
                    let solution = astar.solve(&Cube, &mut exact, start).unwrap();
                    assert_eq!(solution.length, d);
                    assert!(astar.path().iter().fold(start, |s, &m| s.apply(m)).is_solved());
                    assert_eq!(bfs.solve(&Cube, start).unwrap().0, d);
                }
            }
        }
    }
}
