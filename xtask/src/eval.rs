//! `cargo xtask eval TASK --checkpoint DIR [--simulations N] [--games N]`:
//! a saved agent against the field's fixed yardsticks (the final suites of
//! the library's tasks, also run at the end of their training), printed as
//! a table with a progress bar per part.
//!
//! - az-connect4: mistake rates on Pascal Pons' test positions for the
//!   network alone and for MCTS; then matches against the random player
//!   and random-rollout MCTS (`minnow_tasks::alphazero::connect4_suite`).
//! - az-backgammon: the network alone and MCTS against pubeval, in
//!   points; pubeval and MCTS against random
//!   (`minnow_tasks::alphazero::backgammon_suite`).
//! - td-backgammon: the network alone and a 2-ply search against pubeval
//!   (`minnow_tasks::backgammon::td_suite`).

use clap::Args;
use minnow_cli::Bars;
use minnow_envs::{Backgammon, ConnectFour, Game};
use minnow_rl::alphazero::AzAgent;
use minnow_rl::mcts::Inference;
use minnow_tasks::alphazero::{EVAL_SEED, PUBEVAL_GAMES, backgammon_suite, check_final_games, connect4_suite};
use minnow_tasks::backgammon::gnubg_judge::gnubg_decisions;
use minnow_tasks::backgammon::{self, TD_BACKGAMMON, td_judged, td_suite};
use std::path::Path;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The task whose agent is evaluated: az-connect4, az-backgammon or td-backgammon.
    task: String,
    #[command(flatten)]
    agent: crate::agent_args::AgentArgs,
    /// Games per match (default: the run's eval.final_games for connect
    /// four; 5000 for each backgammon match with pubeval, while MCTS
    /// against random plays the run's eval.final_games).
    #[arg(long)]
    games: Option<usize>,
    /// az-*: the network's precision at the search's leaves and in the
    /// network-alone games, f32 or bf16 (default: the run's
    /// mcts.inference, f32 unless it trained with bf16).
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

pub fn run(args: EvalArgs) -> Result<(), String> {
    let path = args.agent.checkpoint(&args.task)?;
    if !path.exists() {
        return Err(format!("--checkpoint: no checkpoint at {}", path.display()));
    }
    if args.gnubg == Some(0) {
        return Err("--gnubg: expected at least 1 position, found 0".into());
    }
    if args.gnubg.is_some() && args.task != TD_BACKGAMMON {
        return Err(format!("--gnubg: GNU Backgammon judges {TD_BACKGAMMON}'s network, not '{}'", args.task));
    }
    if args.games == Some(0) {
        return Err("--games: expected at least 1, found 0".into());
    }
    let started = Instant::now();
    match args.task.as_str() {
        "az-connect4" => {
            let agent = load::<ConnectFour>(&path, args.inference)?;
            println!("{}: az-connect4 agent after {} iterations", path.display(), agent.iteration);
            let games = args.games.unwrap_or(agent.config.eval.final_games);
            let report = connect4_suite(&agent, args.agent.simulations, games, EVAL_SEED ^ 1, &Bars)
                .map_err(|e| e.to_string())?;
            print!("{}", report.table());
        }
        "az-backgammon" => {
            let agent = load::<Backgammon>(&path, args.inference)?;
            println!("{}: az-backgammon agent after {} iterations", path.display(), agent.iteration);
            let games = args.games.unwrap_or(PUBEVAL_GAMES);
            let report = backgammon_suite(&agent, args.agent.simulations, games, EVAL_SEED ^ 1, &Bars)
                .map_err(|e| e.to_string())?;
            print!("{}", report.table());
        }
        TD_BACKGAMMON => {
            let saved = backgammon::load(&path).map_err(|e| e.to_string())?;
            let mut eval = saved.config.eval;
            if let Some(c) = args.agent.candidates {
                eval.candidates = c as usize;
            }
            println!("{}: {TD_BACKGAMMON} network after {} games", path.display(), saved.games);
            if let Some(positions) = args.gnubg {
                let decisions = gnubg_decisions(&args.gnubg_program, positions, backgammon::EVAL_SEED)
                    .map_err(|e| format!("--gnubg: {e}"))?;
                let judged = td_judged(&saved.net, eval.candidates, &decisions).map_err(|e| e.to_string())?;
                print!("{}", judged.table());
                println!("({:.1} s)", started.elapsed().as_secs_f64());
                return Ok(());
            }
            let games = args.games.unwrap_or(eval.final_games);
            let report =
                td_suite(&saved.net, games, &eval, backgammon::EVAL_SEED ^ 1, &Bars).map_err(|e| e.to_string())?;
            print!("{}", report.table());
        }
        other => {
            return Err(format!(
                "eval: task '{other}' has no evaluation suite; expected az-connect4, az-backgammon or td-backgammon"
            ));
        }
    }
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}

fn load<G: Game>(path: &Path, inference: Option<Inference>) -> Result<AzAgent, String> {
    let mut agent = AzAgent::load::<G>(path).map_err(|e| format!("--checkpoint: {e}"))?;
    if let Some(inference) = inference {
        agent.config.mcts.inference = inference;
    }
    check_final_games(&agent.config).map_err(|e| format!("--checkpoint: {}: config {e}", path.display()))?;
    Ok(agent)
}
