//! `cargo xtask eval TASK --checkpoint DIR [--simulations N] [--games N]`:
//! a saved agent against the field's fixed yardsticks, printed as a table
//! (and run at the end of `cargo xtask train az-connect4 | az-backgammon`).
//!
//! - az-connect4: mistake rates on Pascal Pons' test positions
//!   (`data/connect4-pons/`) for the network alone and for MCTS, beside a
//!   uniform-random player's exact rate; then matches against the random
//!   player and random-rollout MCTS.
//! - td-backgammon: the network alone and a 2-ply search against pubeval.
//! - az-backgammon: matches against pubeval (`data/pubeval/`) for the
//!   network alone and for MCTS, win rate and points per game; pubeval
//!   against the random player as a sanity baseline; MCTS against random.

use crate::match_progress::with_bar;
use crate::pubeval_match::backgammon_suite;
use clap::Args;
use minnow_envs::connect4::pons::{self, PONS_SETS, PonsPosition};
use minnow_envs::{Backgammon, ConnectFour, Game};
use minnow_rl::alphazero::{AzAgent, EvalReport, Player, PolicyPlayer, evaluate_snapshot, net_player, wilson};
use minnow_rl::mcts::{Evaluator, Inference, NetEvaluator};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The task whose agent is evaluated: az-connect4, az-backgammon or td-backgammon.
    task: String,
    /// The run directory (or its checkpoint.safetensors file); default: the
    /// task's shipped agent in agents/TASK.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// MCTS simulations per move (default: the run's eval.simulations).
    #[arg(long)]
    simulations: Option<u32>,
    /// td-backgammon: plays the 2-ply search looks past (default: the
    /// run's eval.candidates).
    #[arg(long)]
    candidates: Option<u32>,
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
}

/// Seed of the evaluation matches (the library's, whose runs evaluate
/// with it during training): fixed, so every evaluation plays the same games.
pub use minnow_rl::alphazero::EVAL_SEED;

/// Games against pubeval unless `--games` says otherwise.
pub const PUBEVAL_GAMES: usize = 5000;

pub fn run(args: EvalArgs) -> Result<(), String> {
    let path = crate::agents::checkpoint_or_shipped(args.checkpoint.as_deref(), &args.task)?;
    if !path.exists() {
        return Err(format!("--checkpoint: no checkpoint at {}", path.display()));
    }
    if args.simulations == Some(0) {
        return Err("--simulations: expected at least 1, found 0".into());
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
            let report = connect4_suite(&agent, args.simulations, games, EVAL_SEED ^ 1)?;
            print!("{}", report.table());
        }
        "az-backgammon" => {
            let agent = load::<Backgammon>(&path, args.inference)?;
            println!("{}: az-backgammon agent after {} iterations", path.display(), agent.iteration);
            let games = args.games.unwrap_or(PUBEVAL_GAMES);
            let report = backgammon_suite(&agent, args.simulations, games, EVAL_SEED ^ 1)?;
            print!("{}", report.table());
        }
        crate::td_task::TASK => {
            if args.candidates == Some(0) {
                return Err("--candidates: expected at least 1, found 0".into());
            }
            crate::td_task::eval_checkpoint(&path, args.games, args.candidates).map_err(|e| e.to_string())?;
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

/// The final suite plays `eval.final_games` games a match: none would
/// average nothing.
pub fn check_final_games(config: &minnow_rl::alphazero::AzConfig) -> Result<(), String> {
    match config.eval.final_games {
        0 => Err("eval.final_games: expected at least 1, found 0".into()),
        _ => Ok(()),
    }
}

/// A proportion with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rate {
    pub count: u64,
    pub of: u64,
    pub rate: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Rate {
    pub fn new(count: u64, of: u64) -> Self {
        let (lo, hi) = wilson(count, of, 1.959_964);
        Self { count, of, rate: count as f64 / of.max(1) as f64, lo, hi }
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:5.1}% [{:.1}-{:.1}]", 100.0 * self.rate, 100.0 * self.lo, 100.0 * self.hi)
    }
}

/// One Pons set's mistake rates.
#[derive(Clone, Debug, Serialize)]
pub struct PonsRow {
    pub set: &'static str,
    pub label: &'static str,
    pub network: Rate,
    pub mcts: Rate,
    /// A uniform-random player's exact expected rate.
    pub random: f64,
    /// The value head's mean squared error against the exact results (+1
    /// a win, 0 a draw, -1 a loss for the player to move), and that of
    /// always answering 0.
    pub value_mse: f64,
    pub zero_mse: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Connect4Report {
    pub simulations: u32,
    pub pons: Vec<PonsRow>,
    pub matches: EvalReport,
    pub rollout_simulations: u32,
    pub seconds: f64,
}

impl Connect4Report {
    pub fn table(&self) -> String {
        let mut s = format!(
            "Pons test positions: mistake rate [95% CI]\n  {:<18} {:>9}  {:<21} {:<21} {:<8} {}\n",
            "set",
            "positions",
            "network alone",
            format!("MCTS {} sims", self.simulations),
            "random",
            "value MSE (always 0)"
        );
        for r in &self.pons {
            s += &format!(
                "  {:<18} {:>9}  {:<21} {:<21} {:5.1}%   {:.3} ({:.3})\n",
                r.label,
                r.network.of,
                r.network.to_string(),
                r.mcts.to_string(),
                100.0 * r.random,
                r.value_mse,
                r.zero_mse
            );
        }
        s += &format!("MCTS ({} sims) vs random:       {}\n", self.simulations, self.matches.vs_random);
        if let Some(seats) = self.matches.vs_rollout {
            let (sims, rollout) = (self.simulations, self.rollout_simulations);
            s += &format!("MCTS ({sims} sims) vs rollout MCTS ({rollout}): {}\n", seats.total());
            s += &format!("  moving first:  {}\n", seats.moving_first);
            s += &format!("  moving second: {}\n", seats.moving_second);
        }
        s
    }
}

/// The connect-four suite: Pons mistake rates, then `games` games against
/// random and against rollout MCTS (both colours).
pub fn connect4_suite(
    agent: &AzAgent,
    simulations: Option<u32>,
    games: usize,
    seed: u64,
) -> Result<Connect4Report, String> {
    let started = Instant::now();
    let mut config = agent.config.clone();
    if let Some(n) = simulations {
        config.eval.simulations = n;
    }
    let sims = config.eval.simulations;
    let mut pons = Vec::new();
    for (set, label) in PONS_SETS {
        let path = crate::workspace_root().join("data/connect4-pons").join(format!("{set}.jsonl.gz"));
        let positions = pons::load_set(&path).map_err(|e| e.to_string())?;
        let n = positions.len() as u64;
        let network = with_bar(&format!("{label}: network"), n, |tick| {
            split(&positions, config.eval.threads, |_, chunk| {
                let evaluator = NetEvaluator::with_inference(&agent.net, agent.params.clone(), config.mcts.inference)?;
                let mut player = PolicyPlayer::new(evaluator);
                pons::count_mistakes(chunk, |g| {
                    tick();
                    player.act(g)
                })
            })
        })?;
        let mcts = with_bar(&format!("{label}: MCTS ({sims} sims)"), n, |tick| {
            split(&positions, config.eval.threads, |t, chunk| {
                let mut player =
                    net_player::<ConnectFour>(&agent.net, &agent.params, &config.mcts, sims, seed ^ t as u64)?;
                pons::count_mistakes(chunk, |g| {
                    tick();
                    player.start(g);
                    player.act(g)
                })
            })
        })?;
        let (value_mse, zero_mse) = value_errors(agent, &positions)?;
        pons.push(PonsRow {
            set,
            label,
            network: Rate::new(network, n),
            mcts: Rate::new(mcts, n),
            random: pons::random_mistakes(&positions) / n as f64,
            value_mse,
            zero_mse,
        });
    }
    let rollout_games = if config.eval.games_vs_rollout > 0 { games } else { 0 };
    let matches = with_bar("matches vs random and rollout MCTS", (games + rollout_games) as u64, |tick| {
        evaluate_snapshot::<ConnectFour>(&agent.net, &agent.params, &config, games, rollout_games, seed, tick)
    })
    .map_err(|e| e.to_string())?;
    Ok(Connect4Report {
        simulations: sims,
        pons,
        matches,
        rollout_simulations: config.eval.rollout_simulations,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The value head's mean squared error on `positions` against their exact
/// results, and that of always answering 0.
fn value_errors(agent: &AzAgent, positions: &[PonsPosition]) -> Result<(f64, f64), String> {
    const CHUNK: usize = 256;
    let inference = agent.config.mcts.inference;
    let mut eval = NetEvaluator::<ConnectFour>::with_inference(&agent.net, agent.params.clone(), inference)
        .map_err(|e| e.to_string())?;
    let (mut states, mut logits, mut values) = (Vec::with_capacity(CHUNK), Vec::new(), Vec::new());
    let (mut value, mut zero) = (0.0, 0.0);
    for chunk in positions.chunks(CHUNK) {
        states.clear();
        states.extend(chunk.iter().map(|p| p.game));
        logits.resize(chunk.len() * ConnectFour::ACTIONS, 0.0);
        values.resize(chunk.len(), 0.0);
        eval.evaluate(&states, &mut logits, &mut values);
        for (p, &v) in chunk.iter().zip(&values) {
            let exact = p.score().signum() as f64;
            value += (v as f64 - exact).powi(2);
            zero += exact * exact;
        }
    }
    let n = positions.len().max(1) as f64;
    Ok((value / n, zero / n))
}

/// Mistakes over `positions`, counted in `threads` contiguous chunks (each
/// with its own player, built from the chunk index), summed in order.
fn split<F>(positions: &[PonsPosition], threads: usize, count: F) -> Result<u64, String>
where
    F: Fn(usize, &[PonsPosition]) -> minnow_rl::Result<usize> + Sync,
{
    let size = positions.len().div_ceil(threads.max(1)).max(1);
    let counts: Vec<minnow_rl::Result<usize>> = std::thread::scope(|s| {
        let count = &count;
        let handles: Vec<_> =
            positions.chunks(size).enumerate().map(|(t, chunk)| s.spawn(move || count(t, chunk))).collect();
        handles.into_iter().map(|h| h.join().expect("an evaluation thread panicked")).collect()
    });
    let mut total = 0;
    for c in counts {
        total += c.map_err(|e| e.to_string())? as u64;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_final_suite_of_no_games_is_refused_naming_the_key() {
        let mut config = minnow_tasks::alphazero_presets::connect4();
        assert!(super::check_final_games(&config).is_ok());
        config.eval.final_games = 0;
        let err = super::check_final_games(&config).unwrap_err();
        assert_eq!(err, "eval.final_games: expected at least 1, found 0");
    }
}
