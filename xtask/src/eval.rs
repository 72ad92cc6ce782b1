//! `cargo xtask eval TASK [--checkpoint DIR] [--games N] [--config FILE]`:
//! a saved agent through its task's evaluation (the final suite of its
//! training, `minnow_cli::eval`), by default the agent shipped in
//! `agents/TASK`, printed as the task's table with a progress bar per
//! match. The search flags are keys laid over the saved config:
//!
//! - az-connect4: mistake rates on Pascal Pons' test positions for the
//!   network alone and for MCTS; then matches against the random player
//!   and random-rollout MCTS.
//! - az-backgammon: the network alone and MCTS against pubeval, in
//!   points; pubeval and MCTS against random.
//! - td-backgammon: the network alone and a 2-ply search against pubeval.
//! - dqn-cube, dqn-2048, dqn-cartpole: the final greedy evaluation.
//! - ntuple-2048: the run's final evaluation games on one view, greedy or
//!   with expectimax (`--depth`), with the shares reaching 2048 to 32768
//!   and the moves per second.
//! - cube-solver: the greedy policy and the cost-to-go at every distance.
//!
//! `--gnubg N` instead has GNU Backgammon judge td-backgammon's decisions.

use clap::Args;
use minnow_cli::Bars;
use minnow_rl::mcts::Inference;
use minnow_tasks::backgammon::gnubg_judge::gnubg_decisions;
use minnow_tasks::backgammon::{self, TD_BACKGAMMON, td_judged};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct EvalFlags {
    #[command(flatten)]
    eval: minnow_cli::EvalArgs,
    /// az-*: MCTS simulations per move (`eval.simulations`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    simulations: Option<u32>,
    /// td-backgammon: the plays the 2-ply search looks past
    /// (`eval.candidates`; 1 plays the network alone).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    candidates: Option<u32>,
    /// ntuple-2048: expectimax depth of the final evaluation's games, 1
    /// for greedy play (`eval.depth`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=6))]
    depth: Option<u32>,
    /// ntuple-2048: spawn sequences less likely than this are valued by
    /// the network instead of searched (`eval.min_probability`).
    #[arg(long)]
    min_probability: Option<f32>,
    /// az-*: the network's precision at the search's leaves and in the
    /// network-alone games, f32 or bf16 (`mcts.inference`).
    #[arg(long)]
    inference: Option<Inference>,
    /// td-backgammon: instead of the pubeval matches, judge the network
    /// (1-ply and 2-ply) and pubeval by GNU Backgammon 0-ply on this many
    /// positions of gnubg's self-play (needs gnubg installed).
    #[arg(long, value_name = "POSITIONS")]
    gnubg: Option<usize>,
    /// The GNU Backgammon program for --gnubg (Debian installs
    /// /usr/games/gnubg).
    #[arg(long, value_name = "PATH", default_value = "gnubg")]
    gnubg_program: std::path::PathBuf,
}

pub fn run(args: EvalFlags) -> Result<(), String> {
    let mut eval = args.eval;
    let checkpoint = crate::agents::checkpoint_or_shipped(eval.checkpoint.as_deref(), &eval.task)?;
    let started = Instant::now();
    if let Some(positions) = args.gnubg {
        if eval.task != TD_BACKGAMMON {
            return Err(format!("--gnubg: GNU Backgammon judges {TD_BACKGAMMON}'s network, not '{}'", eval.task));
        }
        judge_by_gnubg(&checkpoint, positions, args.candidates, &args.gnubg_program)?;
        minnow_train::outln!("({:.1} s)", started.elapsed().as_secs_f64());
        return Ok(());
    }
    eval.checkpoint = Some(checkpoint);
    let mut overrides = json!({});
    if let Some(simulations) = args.simulations {
        overrides["eval"]["simulations"] = json!(simulations);
    }
    if let Some(candidates) = args.candidates {
        overrides["eval"]["candidates"] = json!(candidates);
    }
    if let Some(depth) = args.depth {
        overrides["eval"]["depth"] = json!(depth);
    }
    if let Some(p) = args.min_probability {
        overrides["eval"]["min_probability"] = json!(p);
    }
    if let Some(inference) = args.inference {
        overrides["mcts"]["inference"] = serde_json::to_value(inference).map_err(|e| e.to_string())?;
    }
    eval.overrides = overrides;
    let evaluation = minnow_cli::eval(&eval, &minnow_tasks::registry(), &crate::workspace_root(), &Bars)
        .map_err(|e| minnow_cli::chain(&e))?;
    minnow_train::out!("{}", evaluation.table);
    minnow_train::outln!("({:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}

/// td-backgammon's network (1-ply and 2-ply over `candidates` plays) and
/// pubeval, judged by GNU Backgammon 0-ply on `positions` decisions of
/// its own self-play.
fn judge_by_gnubg(checkpoint: &Path, positions: usize, candidates: Option<u32>, program: &Path) -> Result<(), String> {
    if positions == 0 {
        return Err("--gnubg: expected at least 1 position, found 0".into());
    }
    let saved = backgammon::load(checkpoint).map_err(|e| e.to_string())?;
    let candidates = candidates.map_or(saved.config.eval.candidates, |c| c as usize);
    minnow_train::outln!("{}: {TD_BACKGAMMON} network after {} games", checkpoint.display(), saved.games);
    let decisions = gnubg_decisions(program, positions, backgammon::EVAL_SEED).map_err(|e| format!("--gnubg: {e}"))?;
    let judged = td_judged(&saved.net, candidates, &decisions).map_err(|e| e.to_string())?;
    minnow_train::out!("{}", judged.table());
    Ok(())
}
