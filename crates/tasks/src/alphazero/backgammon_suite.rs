//! az-backgammon's yardsticks: the network alone and MCTS against pubeval
//! (`data/pubeval/`), win rate and points per game; pubeval against the
//! random player as a sanity baseline; MCTS against random. The network
//! alone against pubeval is also the run's yardstick at every evaluation.

use crate::alphazero::ValueChooser;
use crate::backgammon::{PointsResult, WholeTurnPlayer, points_match, pubeval_player};
use minnow_envs::Backgammon;
use minnow_rl::Result;
use minnow_rl::alphazero::{
    AzAgent, EvalReport, MatchResult, RandomPlayer, Yardstick, YardstickMetrics, YardstickReport, evaluate_snapshot,
    net_player,
};
use minnow_rl::mcts::NetEvaluator;
use minnow_train::{Progress, with_progress};
use serde::Serialize;
use std::time::Instant;

/// Games against pubeval unless `--games` says otherwise.
pub const PUBEVAL_GAMES: usize = 5000;

/// The backgammon suite's results.
#[derive(Clone, Debug, Serialize)]
pub struct BackgammonReport {
    /// MCTS simulations a move.
    pub simulations: u32,
    /// Games of each match with pubeval.
    pub games: usize,
    /// The network alone against pubeval.
    pub network_vs_pubeval: PointsResult,
    /// MCTS against pubeval.
    pub mcts_vs_pubeval: PointsResult,
    /// pubeval against the random player.
    pub pubeval_vs_random: PointsResult,
    /// MCTS against the random player, the run's own check.
    pub matches: EvalReport,
    /// Wall seconds of the suite.
    pub seconds: f64,
}

impl BackgammonReport {
    /// The report as the command line prints it.
    pub fn table(&self) -> String {
        format!(
            "against pubeval, {} games each, alternating who opens (no cube):\n  network alone:       {}\n  MCTS ({} sims):      {}\nsanity: pubeval vs random: {}\nMCTS ({} sims) vs random: {}\n",
            self.games,
            self.network_vs_pubeval,
            self.simulations,
            self.mcts_vs_pubeval,
            self.pubeval_vs_random,
            self.simulations,
            self.matches.vs_random
        )
    }
}

/// `games` games of `agent`'s network alone (`ValueChooser`) against
/// pubeval, spread over the agent's `eval.threads`.
pub fn network_vs_pubeval(agent: &AzAgent, games: usize, seed: u64, tick: &(dyn Fn() + Sync)) -> Result<PointsResult> {
    let config = &agent.config;
    let network = |_: u64| {
        let evaluator = NetEvaluator::with_inference(&agent.net, agent.params.clone(), config.mcts.inference)?;
        Ok(WholeTurnPlayer::new(ValueChooser::new(evaluator)))
    };
    points_match(&network, &pubeval_player, games, seed, config.eval.threads, config.self_play.max_moves, tick)
}

/// The yardstick of an az-backgammon run: the network alone against
/// pubeval at every evaluation.
pub fn pubeval_yardstick() -> Yardstick {
    Yardstick::new(PUBEVAL, NETWORK_VS_PUBEVAL, |agent, games, seed| {
        let r = network_vs_pubeval(agent, games, seed, &|| {})?;
        let result =
            MatchResult { games: r.games, wins: r.wins, draws: r.unfinished, losses: r.games - r.wins - r.unfinished };
        Ok(YardstickReport { result, metrics: network_metrics(&r) })
    })
}

/// pubeval's name in a run's ratings.
pub const PUBEVAL: &str = "pubeval";

/// The network alone's win rate against pubeval: a learning curve's headline.
pub const NETWORK_VS_PUBEVAL: &str = "network_win_rate_vs_pubeval";

/// The network alone's match against pubeval as metrics: the win rate
/// with its interval, then the points per game.
pub fn network_metrics(r: &PointsResult) -> YardstickMetrics {
    let rate = r.win_rate();
    vec![
        (NETWORK_VS_PUBEVAL, rate.rate),
        ("network_win_rate_vs_pubeval_lo", rate.lo),
        ("network_win_rate_vs_pubeval_hi", rate.hi),
        ("network_points_vs_pubeval", r.points_per_game()),
    ]
}

/// The backgammon suite: the network alone and MCTS against pubeval
/// (`games` each), pubeval against random (`games`), and MCTS against
/// random (the run's `eval.final_games`); the agent's `eval.simulations`
/// a move.
pub fn backgammon_suite(agent: &AzAgent, games: usize, seed: u64, progress: &dyn Progress) -> Result<BackgammonReport> {
    let started = Instant::now();
    let config = &agent.config;
    let (sims, threads, max_moves) = (config.eval.simulations, config.eval.threads, config.self_play.max_moves);
    let bar = |label: &str, work: &dyn Fn(&(dyn Fn() + Sync)) -> Result<PointsResult>| {
        with_progress(progress, label, games as u64, work)
    };
    let network_vs_pubeval = bar("network vs pubeval", &|tick| network_vs_pubeval(agent, games, seed, tick))?;
    let mcts = |s: u64| net_player::<Backgammon>(&agent.net, &agent.params, &config.mcts, sims, s);
    let mcts_vs_pubeval =
        bar("MCTS vs pubeval", &|tick| points_match(&mcts, &pubeval_player, games, seed, threads, max_moves, tick))?;
    let random = |s: u64| Ok(RandomPlayer::new::<Backgammon>(s));
    let pubeval_vs_random = bar("pubeval vs random", &|tick| {
        points_match(&pubeval_player, &random, games, seed, threads, max_moves, tick)
    })?;
    let random_games = config.eval.final_games;
    let matches = with_progress(progress, "MCTS vs random", random_games as u64, |tick| {
        evaluate_snapshot::<Backgammon>(&agent.net, &agent.params, config, random_games, 0, seed, tick)
    })?;
    Ok(BackgammonReport {
        simulations: sims,
        games,
        network_vs_pubeval,
        mcts_vs_pubeval,
        pubeval_vs_random,
        matches,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::ChoosePlay;
    use minnow_autodiff::Params;
    use minnow_envs::backgammon::pubeval::Pubeval;
    use minnow_envs::backgammon::{BackgammonConfig, POINTS, Position, TurnPlays};
    use minnow_envs::{Game, Turn};
    use minnow_rl::alphazero::play_from;
    use minnow_rl::alphazero::{NetworkConfig, network_config};
    use rand::SeedableRng;
    use std::sync::Arc;

    /// An untrained agent with a small network.
    fn tiny_agent() -> AzAgent {
        let config =
            minnow_rl::alphazero::AzConfig { network: NetworkConfig { width: 16, blocks: 1 }, ..Default::default() };
        let mut params = Params::new();
        let shape = network_config::<Backgammon>(&config.network);
        let net = shape.init(&mut params, "az", &mut rand_pcg::Pcg64Mcg::seed_from_u64(5)).unwrap();
        AzAgent { config, net, params: Arc::new(params), iteration: 0 }
    }

    fn tiny_network() -> ValueChooser {
        let agent = tiny_agent();
        ValueChooser::new(NetEvaluator::new(&agent.net, agent.params).unwrap())
    }

    /// One checker on the mover's 6-point (our 18) and one on the ace
    /// point (23), 13 off, rolling 6-1: some plays bear both off and win,
    /// others (1 first: 18/19, then 19 off) do not.
    fn a_roll_that_can_win() -> Backgammon {
        let mut points = [0; POINTS];
        points[18] = 1;
        points[23] = 1;
        points[0] = -15;
        let position = Position::new(points, [0, 0], [13, 0]).unwrap();
        Backgammon::from_position(BackgammonConfig::default(), position, 0, (6, 1)).unwrap()
    }

    #[test]
    fn both_choosers_take_a_winning_play() {
        let game = a_roll_that_can_win();
        let mut turn = TurnPlays::new();
        let plays = turn.generate(&game).to_vec();
        assert!(plays.iter().any(|p| p.after.turn() == Turn::Over));
        assert!(plays.iter().any(|p| p.after.turn() != Turn::Over));
        let mut network = tiny_network();
        let mut pubeval = Pubeval::standard();
        for i in [network.choose(&game, &plays).unwrap(), ChoosePlay::choose(&mut pubeval, &game, &plays).unwrap()] {
            assert_eq!(plays[i].after.turn(), Turn::Over);
        }
    }

    #[test]
    fn the_yardstick_reports_the_network_alone_against_pubeval() {
        let agent = tiny_agent();
        let YardstickReport { result, metrics } = pubeval_yardstick().play(&agent, 6, 11).unwrap();
        let r = network_vs_pubeval(&agent, 6, 11, &|| {}).unwrap();
        assert_eq!(r.games, 6);
        assert_eq!((result.games, result.wins, result.draws + result.losses), (6, r.wins, 6 - r.wins));
        let names: Vec<_> = metrics.iter().map(|m| m.0).collect();
        assert_eq!(
            names,
            [
                NETWORK_VS_PUBEVAL,
                "network_win_rate_vs_pubeval_lo",
                "network_win_rate_vs_pubeval_hi",
                "network_points_vs_pubeval"
            ]
        );
        let rate = r.win_rate();
        assert_eq!(metrics[0].1, rate.rate);
        assert!(metrics[1].1 <= rate.rate && rate.rate <= metrics[2].1);
        assert_eq!(metrics[3].1, r.points_per_game());
    }

    #[test]
    fn whole_turn_players_allocate_nothing_after_warm_up() {
        let mut network = WholeTurnPlayer::new(tiny_network());
        let mut pubeval = WholeTurnPlayer::new(Pubeval::standard());
        let start = |seed| {
            let mut g = Backgammon::default();
            g.reset(seed);
            g
        };
        for seed in 0..2 {
            play_from::<Backgammon>([&mut network, &mut pubeval], start(seed), seed, 3000).unwrap();
        }
        let (end, on_thread, _) = minnow_arena::count_allocations(|| {
            play_from::<Backgammon>([&mut network, &mut pubeval], start(7), 7, 3000).unwrap()
        });
        assert_eq!(end.turn(), Turn::Over);
        // The one allocation is play_from's chance-outcome buffer.
        assert_eq!(on_thread.allocations, 1, "{} bytes", on_thread.bytes);
    }
}
