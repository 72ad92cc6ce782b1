//! az-connect4's yardsticks: mistake rates on Pascal Pons' test
//! positions (`data/connect4-pons/`) for the network alone and for MCTS,
//! beside a uniform-random player's exact rate and the value head's
//! error; then matches against the random player and random-rollout MCTS.

use crate::data::{DataNotFound, data_path};
use crate::rate::Rate;
use minnow_envs::connect4::pons::{self, PONS_SETS, PonsPosition};
use minnow_envs::{ConnectFour, Game};
use minnow_rl::alphazero::{AzAgent, EvalReport, Player, PolicyPlayer, evaluate_snapshot, net_player};
use minnow_rl::mcts::{Evaluator, NetEvaluator};
use minnow_train::{Progress, TaskError, with_progress};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Pascal Pons' test positions: `connect4-pons` in the data directory
/// ([`data_path`]).
pub fn pons_dir() -> Result<PathBuf, DataNotFound> {
    data_path("connect4-pons", "Pascal Pons' connect-four test positions")
}

/// One Pons set's mistake rates.
#[derive(Clone, Debug, Serialize)]
pub struct PonsRow {
    /// The set's file name.
    pub set: &'static str,
    /// What it holds.
    pub label: &'static str,
    /// The network alone's mistakes.
    pub network: Rate,
    /// MCTS's mistakes.
    pub mcts: Rate,
    /// A uniform-random player's exact expected rate.
    pub random: f64,
    /// The value head's mean squared error against the exact results (+1
    /// a win, 0 a draw, -1 a loss for the player to move), and that of
    /// always answering 0.
    pub value_mse: f64,
    /// Always answering 0.
    pub zero_mse: f64,
}

/// The connect-four suite's results.
#[derive(Clone, Debug, Serialize)]
pub struct Connect4Report {
    /// MCTS simulations a move.
    pub simulations: u32,
    /// Per Pons set.
    pub pons: Vec<PonsRow>,
    /// The matches against random and rollout MCTS.
    pub matches: EvalReport,
    /// The rollout opponent's simulations a move.
    pub rollout_simulations: u32,
    /// Wall seconds of the suite.
    pub seconds: f64,
}

impl Connect4Report {
    /// The report as the command line prints it.
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
/// random and against rollout MCTS (both colours); the agent's
/// `eval.simulations` a move.
pub fn connect4_suite(
    agent: &AzAgent,
    games: usize,
    seed: u64,
    progress: &dyn Progress,
) -> Result<Connect4Report, TaskError> {
    let started = Instant::now();
    let config = &agent.config;
    let sims = config.eval.simulations;
    let mut pons = Vec::new();
    let dir = pons_dir()?;
    for (set, label) in PONS_SETS {
        let positions = pons::load_set(&dir.join(format!("{set}.jsonl.gz")))?;
        let n = positions.len() as u64;
        let network = with_progress(progress, &format!("{label}: network"), n, |tick| {
            split(&positions, config.eval.threads, |_, chunk| {
                let evaluator = NetEvaluator::with_inference(&agent.net, agent.params.clone(), config.mcts.inference)?;
                let mut player = PolicyPlayer::new(evaluator);
                pons::count_mistakes(chunk, |g| {
                    tick();
                    player.act(g)
                })
            })
        })?;
        let mcts = with_progress(progress, &format!("{label}: MCTS ({sims} sims)"), n, |tick| {
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
    let matches =
        with_progress(progress, "matches vs random and rollout MCTS", (games + rollout_games) as u64, |tick| {
            evaluate_snapshot::<ConnectFour>(&agent.net, &agent.params, config, games, rollout_games, seed, tick)
        })?;
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
fn value_errors(agent: &AzAgent, positions: &[PonsPosition]) -> minnow_rl::Result<(f64, f64)> {
    const CHUNK: usize = 256;
    let inference = agent.config.mcts.inference;
    let mut eval = NetEvaluator::<ConnectFour>::with_inference(&agent.net, agent.params.clone(), inference)?;
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
fn split<F>(positions: &[PonsPosition], threads: usize, count: F) -> minnow_rl::Result<u64>
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
        total += c? as u64;
    }
    Ok(total)
}
