//! `cargo xtask solve cube`: solves scrambles with weighted A* guided by
//! the cost-to-go `cargo xtask train cube-solver` learned, printing each
//! solution beside the optimal length (from the exact BFS table), the
//! nodes expanded and the time.

use crate::cube_eval::{DIAMETER, greedy_table, greedy_text, solver_table, solver_text};
use crate::cube_puzzle::{Cube, format_moves, parse_scramble};
use crate::cube_task::CubeSolverConfig;
use clap::Args;
use minnow_envs::cube2::STATE_COUNT;
use minnow_envs::{CubeDistances, CubeState};
use minnow_rl::puzzle::{BidirectionalBfs, LearnedHeuristic, SearchConfig, WeightedAStar, load_cost_to_go};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The puzzle (only `cube`, the 2x2x2).
    puzzle: String,
    /// A scramble such as "R U F' U2" (moves U R F, ' for inverse, 2 for twice).
    #[arg(long, conflicts_with_all = ["random", "evaluate"])]
    scramble: Option<String>,
    /// Solve this many random positions (uniform over the cube, or at --distance).
    #[arg(long, conflicts_with = "evaluate")]
    random: Option<usize>,
    /// With --random: positions exactly this many moves from solved (1..=14).
    #[arg(long, requires = "random")]
    distance: Option<usize>,
    /// Evaluate on this many positions at every distance 1..=14: the solver
    /// beside bidirectional BFS, and the greedy policy.
    #[arg(long)]
    evaluate: Option<usize>,
    /// A run directory of `cargo xtask train cube-solver`, or its checkpoint
    /// file (default: the shipped agent, agents/cube-solver).
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// The path-cost weight of f = lambda g + h (default: the task's, 0.8).
    #[arg(long)]
    lambda: Option<f32>,
    /// Open nodes expanded per iteration (default: the task's).
    #[arg(long)]
    batch: Option<usize>,
    /// Seed of --random and --evaluate positions.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
}

pub fn run(args: SolveArgs) -> Result<(), String> {
    if args.puzzle != "cube" {
        return Err(format!("solve: unknown puzzle '{}'; expected 'cube' (the 2x2x2)", args.puzzle));
    }
    let defaults = CubeSolverConfig::default().search;
    let search =
        SearchConfig { lambda: args.lambda.unwrap_or(defaults.lambda), batch: args.batch.unwrap_or(defaults.batch) };
    search.validate().map_err(|e| format!("solve: {e}"))?;
    let starts = match (&args.scramble, args.random, args.evaluate) {
        (Some(text), _, _) => {
            let moves = parse_scramble(text).map_err(|e| e.to_string())?;
            vec![moves.iter().fold(CubeState::SOLVED, |s, &m| s.apply(m))]
        }
        (None, Some(count), _) => random_positions(count, args.distance, args.seed)?,
        (None, None, Some(_)) => Vec::new(),
        (None, None, None) => return Err("solve: give --scramble \"R U F' ...\", --random N or --evaluate N".into()),
    };
    let checkpoint = crate::agents::checkpoint_or_shipped(args.checkpoint.as_deref(), "cube-solver")?;
    let mut heuristic = load(&checkpoint)?;
    if let Some(count) = args.evaluate {
        if count == 0 {
            return Err("solve: --evaluate expects at least 1 position per distance, found 0".into());
        }
        let t = Instant::now();
        let greedy = greedy_table(&mut heuristic, 1..=DIAMETER, count, args.seed)?;
        println!("one-view greedy policy ({:.1} s):\n{}", t.elapsed().as_secs_f64(), greedy_text(&greedy));
        let t = Instant::now();
        let rows = solver_table(&mut heuristic, search, 1..=DIAMETER, count, args.seed)?;
        println!("{}({:.1} s)", solver_text(&rows, search), t.elapsed().as_secs_f64());
        return Ok(());
    }
    solve_each(&mut heuristic, search, &starts)
}

fn solve_each(heuristic: &mut LearnedHeuristic, search: SearchConfig, starts: &[CubeState]) -> Result<(), String> {
    let mut astar = WeightedAStar::new(&Cube, search).map_err(|e| e.to_string())?;
    let mut bfs = BidirectionalBfs::new(&Cube);
    let oracle = CubeDistances::get();
    for &start in starts {
        let t = Instant::now();
        let solution = astar.solve(&Cube, heuristic, start).map_err(|e| e.to_string())?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let (_, bfs_expanded) = bfs.solve(&Cube, start).map_err(|e| e.to_string())?;
        println!(
            "solution: {} ({} moves, optimal {}); {} nodes expanded (bidirectional BFS: {bfs_expanded}), {ms:.2} ms",
            if solution.length == 0 { "(already solved)".to_string() } else { format_moves(astar.path()) },
            solution.length,
            oracle.distance(&start),
            solution.expanded,
        );
    }
    Ok(())
}

fn random_positions(count: usize, distance: Option<usize>, seed: u64) -> Result<Vec<CubeState>, String> {
    match distance {
        Some(d) if d == 0 || d > DIAMETER => {
            Err(format!("solve: --distance expects a distance in 1..={DIAMETER} (the diameter), found {d}"))
        }
        Some(d) => CubeDistances::get().evaluation_set(d, count, seed).map_err(|e| e.to_string()),
        None => {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            (0..count)
                .map(|_| CubeState::from_index(rng.random_range(0..STATE_COUNT as u32)).map_err(|e| e.to_string()))
                .collect()
        }
    }
}

/// The cost-to-go in the checkpoint at `path`, or an error saying what is
/// wrong with it.
pub(crate) fn load(path: &Path) -> Result<LearnedHeuristic, String> {
    if !path.exists() {
        return Err(format!(
            "--checkpoint: no checkpoint at {}; train one with `cargo xtask train cube-solver`",
            path.display()
        ));
    }
    let (_, heuristic) = load_cost_to_go(&Cube, path)
        .map_err(|e| format!("--checkpoint {}: not a cube-solver checkpoint: {e}", path.display()))?;
    Ok(heuristic)
}
