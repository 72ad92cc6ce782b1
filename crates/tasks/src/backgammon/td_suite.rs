//! td-backgammon's yardsticks: the network against pubeval, alone (1-ply)
//! during the run, alone and with a 2-ply search after it; and, where GNU
//! Backgammon is installed, the equity its plays give away against gnubg
//! 0-ply ([`td_judged`]).

use crate::backgammon::gnubg_judge::{GnubgDecision, Judgement, judge};
use crate::backgammon::{PointsResult, TdChooser, TdEvalConfig, WholeTurnPlayer, points_match, pubeval_player};
use minnow_envs::backgammon::pubeval::Pubeval;
use minnow_rl::afterstate::ValueNet;
use minnow_train::{Progress, with_progress};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// Seed of the matches against pubeval during and after training.
pub const EVAL_SEED: u64 = 20_261_124;

/// The final suite's results.
#[derive(Clone, Debug, Serialize)]
pub struct TdReport {
    /// Games of each match.
    pub games: usize,
    /// Plays the 2-ply search looked past.
    pub candidates: usize,
    /// The network alone (1-ply) against pubeval.
    pub network_vs_pubeval: PointsResult,
    /// The 2-ply search against pubeval.
    pub search_vs_pubeval: PointsResult,
    /// Wall seconds of the first match.
    pub network_seconds: f64,
    /// Of the second.
    pub search_seconds: f64,
}

impl TdReport {
    /// The figures, named for a metrics file.
    pub fn metrics(&self) -> minnow_train::Metrics {
        let mut metrics = crate::alphazero::network_metrics(&self.network_vs_pubeval);
        let search = self.search_vs_pubeval.win_rate();
        metrics.extend([
            ("search_win_rate_vs_pubeval", search.rate),
            ("search_points_vs_pubeval", self.search_vs_pubeval.points_per_game()),
        ]);
        metrics
    }

    /// The report as the command line prints it.
    pub fn table(&self) -> String {
        format!(
            "against pubeval, {} games each, alternating who opens (no cube):\n  network alone (1-ply): {}  ({:.0} s)\n  2-ply, best {} plays:   {}  ({:.0} s)\n",
            self.games,
            self.network_vs_pubeval,
            self.network_seconds,
            self.candidates,
            self.search_vs_pubeval,
            self.search_seconds
        )
    }
}

/// `games` games against pubeval for a player choosing with `net` and
/// `keep` (1: the network alone), calling `tick` after each game.
pub fn vs_pubeval(
    net: &Arc<ValueNet>,
    keep: usize,
    games: usize,
    seed: u64,
    eval: &TdEvalConfig,
    tick: &(dyn Fn() + Sync),
) -> minnow_rl::Result<PointsResult> {
    let ours = |_: u64| Ok(WholeTurnPlayer::new(TdChooser::new(net.clone(), keep)));
    points_match(&ours, &pubeval_player, games, seed, eval.threads, eval.max_moves, tick)
}

/// The network alone and the 2-ply search against pubeval, `games` each.
pub fn td_suite(
    net: &ValueNet,
    games: usize,
    eval: &TdEvalConfig,
    seed: u64,
    progress: &dyn Progress,
) -> minnow_rl::Result<TdReport> {
    let net = Arc::new(net.clone());
    let t = Instant::now();
    let network_vs_pubeval = with_progress(progress, "network (1-ply) vs pubeval", games as u64, |tick| {
        vs_pubeval(&net, 1, games, seed, eval, tick)
    })?;
    let network_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let search_vs_pubeval = with_progress(progress, "2-ply vs pubeval", games as u64, |tick| {
        vs_pubeval(&net, eval.candidates, games, seed, eval, tick)
    })?;
    Ok(TdReport {
        games,
        candidates: eval.candidates,
        network_vs_pubeval,
        search_vs_pubeval,
        network_seconds,
        search_seconds: t.elapsed().as_secs_f64(),
    })
}

/// The network alone, its 2-ply search and pubeval, judged by gnubg on
/// the same decisions.
#[derive(Clone, Copy, Debug)]
pub struct TdJudged {
    /// Plays the 2-ply search looked past.
    pub candidates: usize,
    /// The network alone (1-ply).
    pub network: Judgement,
    /// The 2-ply search.
    pub search: Judgement,
    /// Tesauro's pubeval, for scale.
    pub pubeval: Judgement,
}

impl TdJudged {
    /// The judgement as the command line prints it.
    pub fn table(&self) -> String {
        format!(
            "against GNU Backgammon 0-ply on {} positions of its self-play (cubeless money equity lost per move):\n  \
             network alone (1-ply): {}\n  2-ply, best {} plays:   {}\n  pubeval:               {}\n",
            self.network.decisions, self.network, self.candidates, self.search, self.pubeval
        )
    }
}

/// `net` alone, with a 2-ply search over its `candidates` best, and
/// pubeval, judged on `decisions` (from
/// [`gnubg_decisions`](crate::backgammon::gnubg_judge::gnubg_decisions)).
pub fn td_judged(net: &ValueNet, candidates: usize, decisions: &[GnubgDecision]) -> minnow_rl::Result<TdJudged> {
    let net = Arc::new(net.clone());
    Ok(TdJudged {
        candidates,
        network: judge(decisions, &mut TdChooser::new(net.clone(), 1))?,
        search: judge(decisions, &mut TdChooser::new(net, candidates))?,
        pubeval: judge(decisions, &mut Pubeval::standard())?,
    })
}
