//! `cargo xtask solve cube`: solves scrambles with weighted A* guided by
//! the cost-to-go `cargo xtask train cube-solver` learned, printing each
//! solution beside the optimal length (from the exact BFS table), the
//! nodes expanded and the time.

use crate::error::XtaskError;
use clap::Args;
use minnow_cli::CliError;
use minnow_envs::CubeState;
use minnow_rl::puzzle::{LearnedHeuristic, SearchConfig};
use minnow_tasks::cube_solver::{
    CubeSolverConfig, CubeSolverError, DIAMETER, Solver, format_moves, greedy_table, greedy_text, load, parse_scramble,
    random_positions, solver_table, solver_text,
};
use std::path::PathBuf;
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

pub fn run(args: SolveArgs) -> Result<(), XtaskError> {
    if args.puzzle != "cube" {
        return Err(format!("solve: unknown puzzle '{}'; expected 'cube' (the 2x2x2)", args.puzzle).into());
    }
    let defaults = CubeSolverConfig::default().search;
    let search =
        SearchConfig { lambda: args.lambda.unwrap_or(defaults.lambda), batch: args.batch.unwrap_or(defaults.batch) };
    search.validate().map_err(|e| format!("solve: {e}"))?;
    if let Some(d) = args.distance
        && !(1..=DIAMETER).contains(&d)
    {
        return Err(format!("solve: --distance expects a distance in 1..={DIAMETER} (the diameter), found {d}").into());
    }
    let starts = match (&args.scramble, args.random, args.evaluate) {
        (Some(text), _, _) => {
            let moves = parse_scramble(text).map_err(|e| failed("solve", e))?;
            vec![moves.iter().fold(CubeState::SOLVED, |s, &m| s.apply(m))]
        }
        (None, Some(count), _) => {
            let bytes = count as f64 * std::mem::size_of::<CubeState>() as f64;
            minnow_train::memory::check_fits(&format!("--random {count} positions"), bytes)
                .map_err(|e| format!("solve: {e}"))?;
            random_positions(count, args.distance, args.seed).map_err(|e| failed("solve", e))?
        }
        (None, None, Some(_)) => Vec::new(),
        (None, None, None) => {
            return Err("solve: give --scramble \"R U F' ...\", --random N or --evaluate N".to_string().into());
        }
    };
    let checkpoint = crate::agents::checkpoint_or_shipped(args.checkpoint.as_deref(), "cube-solver")?;
    let mut heuristic = load(&checkpoint).map_err(|e| failed("--checkpoint", e))?;
    if let Some(count) = args.evaluate {
        if count == 0 {
            return Err("solve: --evaluate expects at least 1 position per distance, found 0".to_string().into());
        }
        let t = Instant::now();
        let greedy = greedy_table(&mut heuristic, 1..=DIAMETER, count, args.seed).map_err(|e| failed("solve", e))?;
        minnow_train::outln!("one-view greedy policy ({:.1} s):\n{}", t.elapsed().as_secs_f64(), greedy_text(&greedy));
        let t = Instant::now();
        let rows =
            solver_table(&mut heuristic, search, 1..=DIAMETER, count, args.seed).map_err(|e| failed("solve", e))?;
        minnow_train::outln!("{}({:.1} s)", solver_text(&rows, search), t.elapsed().as_secs_f64());
        return Ok(());
    }
    solve_each(&mut heuristic, search, &starts).map_err(|e| failed("solve", e))
}

/// The solver library's failure under `what` (the command or a flag),
/// its causes kept for the error line.
fn failed(what: &str, e: impl Into<CubeSolverError>) -> XtaskError {
    CliError::Task { task: what.to_string(), source: Box::new(e.into()) }.into()
}

fn solve_each(
    heuristic: &mut LearnedHeuristic,
    search: SearchConfig,
    starts: &[CubeState],
) -> Result<(), CubeSolverError> {
    let mut solver = Solver::new(search)?;
    for &start in starts {
        let solved = solver.solve(heuristic, start)?;
        minnow_train::outln!(
            "solution: {} ({} moves, optimal {}); {} nodes expanded (bidirectional BFS: {}), {:.2} ms",
            if solved.length == 0 { "(already solved)".to_string() } else { format_moves(&solved.moves) },
            solved.length,
            solved.optimal,
            solved.expanded,
            solved.bfs_expanded,
            solved.ms,
        );
    }
    Ok(())
}
