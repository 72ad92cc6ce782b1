//! Solving with a saved cost-to-go: the checkpoint loaded as a heuristic,
//! weighted A* beside blind bidirectional BFS and the exact distance, and
//! the positions `solve cube --random` draws.

use super::{Cube, CubeSolverError, Result};
use minnow_envs::cube2::STATE_COUNT;
use minnow_envs::{CubeDistances, CubeState};
use minnow_rl::puzzle::{BidirectionalBfs, LearnedHeuristic, SearchConfig, WeightedAStar, load_cost_to_go};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::path::Path;
use std::time::Instant;

/// The cost-to-go in the checkpoint at `path` (a run's or a shipped
/// agent's), or an error saying what is wrong with it.
pub fn load(path: &Path) -> Result<LearnedHeuristic> {
    if !path.exists() {
        return Err(CubeSolverError::NoCheckpoint { path: path.to_path_buf() });
    }
    let (_, heuristic) = load_cost_to_go(&Cube, path)
        .map_err(|source| CubeSolverError::NotASolver { path: path.to_path_buf(), source })?;
    Ok(heuristic)
}

/// One position solved: weighted A*'s solution, what blind search and the
/// exact table say of the same position.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The solution's moves.
    pub moves: Vec<usize>,
    /// The length weighted A* reported.
    pub length: usize,
    /// Nodes weighted A* expanded.
    pub expanded: u64,
    /// Milliseconds weighted A* took.
    pub ms: f64,
    /// The exact distance.
    pub optimal: usize,
    /// The length bidirectional BFS found (optimal, unless it is broken).
    pub bfs_length: usize,
    /// Nodes bidirectional BFS expanded.
    pub bfs_expanded: u64,
}

/// Weighted A* and bidirectional BFS, their tables kept from solve to solve.
pub struct Solver {
    astar: WeightedAStar<Cube>,
    bfs: BidirectionalBfs<Cube>,
}

impl Solver {
    /// A solver searching with `search`.
    pub fn new(search: SearchConfig) -> Result<Self> {
        Ok(Self { astar: WeightedAStar::new(&Cube, search)?, bfs: BidirectionalBfs::new(&Cube) })
    }

    /// Solves `start` guided by `heuristic`, and blind.
    pub fn solve(&mut self, heuristic: &mut LearnedHeuristic, start: CubeState) -> Result<Solved> {
        let t = Instant::now();
        let solution = self.astar.solve(&Cube, heuristic, start)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let (bfs_length, bfs_expanded) = self.bfs.solve(&Cube, start)?;
        Ok(Solved {
            moves: self.astar.path().to_vec(),
            length: solution.length,
            expanded: solution.expanded,
            ms,
            optimal: CubeDistances::get().distance(&start),
            bfs_length,
            bfs_expanded,
        })
    }
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver").field("search", &self.astar.config()).finish_non_exhaustive()
    }
}

/// `count` positions drawn with `seed`: uniform over the cube, or
/// uniform among those exactly `distance` moves from solved.
pub fn random_positions(count: usize, distance: Option<usize>, seed: u64) -> Result<Vec<CubeState>> {
    match distance {
        Some(d) => Ok(CubeDistances::get().evaluation_set(d, count, seed)?),
        None => {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let index = |_| CubeState::from_index(rng.random_range(0..STATE_COUNT as u32));
            Ok((0..count).map(index).collect::<Result<Vec<_>, _>>()?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube_solver::CubeSolverConfig;
    use crate::cube_solver::run::tests::{saved, tiny_config};
    use minnow_nn::testing::ScratchDir;
    use minnow_rl::puzzle::{AdjacentSwaps, CostToGoConfig, Puzzle, ValueIteration};

    /// `load`'s refusal of `path` and its cause.
    fn refusal(path: &Path) -> (String, String) {
        let err = load(path).unwrap_err();
        // Every cause below the error, joined.
        let mut cause = String::new();
        let mut source = std::error::Error::source(&err);
        while let Some(e) = source {
            cause += &format!("{e}: ");
            source = e.source();
        }
        (err.to_string(), cause)
    }

    #[test]
    fn solving_needs_a_cube_checkpoint() {
        let dir = ScratchDir::new("cube-solve-checkpoint");
        let (missing, _) = refusal(&dir.join("checkpoint.safetensors"));
        assert!(missing.contains("no checkpoint at") && missing.contains("train cube-solver"), "{missing}");
        // A value-iteration checkpoint of another puzzle is refused by name.
        let other = AdjacentSwaps::new(4).unwrap();
        let mut config = CubeSolverConfig::default().training;
        config.net = CostToGoConfig { hidden: 8, width: 8, blocks: 0 };
        let learner = ValueIteration::new(&config, other.observation_size(), other.moves()).unwrap();
        let path = dir.join("other.safetensors");
        let mut checkpoint = minnow_train::RunCheckpointWriter::new("cube-solver", &config.identity(), 0);
        learner.save_state::<AdjacentSwaps>(&mut checkpoint).unwrap();
        checkpoint.save(&path).unwrap();
        let (err, cause) = refusal(&path);
        assert!(err.ends_with("not a cube-solver checkpoint"), "{err}");
        assert!(cause.contains("puzzle 'adjacent-swaps', expected 'cube2'"), "{cause}");
    }

    #[test]
    fn a_crafted_network_size_is_refused_before_solving() {
        let dir = ScratchDir::new("cube-config");
        let path = dir.join("config.safetensors");
        let mut training = tiny_config().training;
        training.net.hidden = 100_000_000;
        saved().rewrite(&["config"]).meta("config", serde_json::to_string(&training).unwrap()).save(&path).unwrap();
        let (_, cause) = refusal(&path);
        assert!(cause.contains("checkpoint metadata 'config'") && cause.contains("hidden"), "{cause}");
    }

    #[test]
    fn random_positions_are_at_the_distance_asked() {
        let oracle = CubeDistances::get();
        let at_five = random_positions(4, Some(5), 1).unwrap();
        assert!(at_five.iter().all(|s| oracle.distance(s) == 5));
        assert_eq!(random_positions(3, None, 7).unwrap().len(), 3);
        assert!(random_positions(1, Some(15), 1).is_err());
    }
}
