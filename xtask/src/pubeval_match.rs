//! Backgammon against pubeval: whole-turn players (pubeval itself, and
//! the network alone judging each play's resulting position with its value
//! head), seeded matches that alternate who starts and count gammons and
//! backgammons, and the az-backgammon evaluation suite.

use crate::eval::Rate;
use crate::match_progress::with_bar;
use minnow_envs::backgammon::pubeval::Pubeval;
use minnow_envs::backgammon::{Play, ROLL_PROBABILITIES, ROLLS, TurnPlays};
use minnow_envs::{Backgammon, EnvError, Game, Turn};
use minnow_rl::alphazero::{
    AzAgent, EvalReport, MatchResult, Player, RandomPlayer, Yardstick, YardstickMetrics, YardstickReport,
    evaluate_snapshot, net_player, play_from, spread_games,
};
use minnow_rl::mcts::{Evaluator, NetEvaluator};
use minnow_rl::{Result, RlError};
use serde::Serialize;
use std::time::Instant;

/// Picks one of a turn's whole plays.
pub trait ChoosePlay {
    /// The index into `plays` (all distinct results of the roll at `game`,
    /// a player to move at the start of the turn).
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize>;
}

/// pubeval: the play whose resulting position scores highest.
impl ChoosePlay for Pubeval {
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize> {
        Pubeval::choose(self, game, plays).ok_or(RlError::Env(no_play()))
    }
}

fn no_play() -> EnvError {
    EnvError::WrongTurn { game: Backgammon::NAME, expected: "a player with a legal play", found: "none" }
}

/// The network alone: the play whose resulting position the value head
/// rates best for the mover. The value head was trained on positions
/// with the dice rolled, so a resulting position's value is its expected
/// value over the opponent's 21 rolls (a roll the opponent cannot play
/// leaves the mover to roll: valued as the network sees that position).
/// Winning at once rates above everything.
#[derive(Debug)]
pub struct ValueChooser {
    evaluator: NetEvaluator<Backgammon>,
    states: Vec<Backgammon>,
    /// Per state: the play it belongs to, its roll's probability, and +1
    /// if the mover is on roll there (else the opponent: -1).
    weights: Vec<(usize, f32, f32)>,
    logits: Vec<f32>,
    values: Vec<f32>,
    scores: Vec<f32>,
}

/// States evaluated per network call.
const VALUE_BATCH: usize = 1024;
/// Plays of one turn the scores hold before growing.
const RESERVED_PLAYS: usize = 4096;

impl ValueChooser {
    pub fn new(evaluator: NetEvaluator<Backgammon>) -> Self {
        Self {
            evaluator,
            states: Vec::with_capacity(VALUE_BATCH),
            weights: Vec::with_capacity(VALUE_BATCH),
            logits: vec![0.0; VALUE_BATCH * Backgammon::ACTIONS],
            values: vec![0.0; VALUE_BATCH],
            scores: Vec::with_capacity(RESERVED_PLAYS),
        }
    }

    fn flush(&mut self) {
        let n = self.states.len();
        if n == 0 {
            return;
        }
        self.evaluator.evaluate(&self.states, &mut self.logits[..n * Backgammon::ACTIONS], &mut self.values[..n]);
        for (&(play, p, sign), &v) in self.weights.iter().zip(&self.values[..n]) {
            self.scores[play] += p * sign * v;
        }
        self.states.clear();
        self.weights.clear();
    }
}

impl ChoosePlay for ValueChooser {
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize> {
        let Turn::Player(mover) = game.turn() else { return Err(RlError::Env(no_play())) };
        if plays.is_empty() {
            return Err(RlError::Env(no_play()));
        }
        self.scores.clear();
        self.scores.resize(plays.len(), 0.0);
        for (i, play) in plays.iter().enumerate() {
            if play.after.turn() == Turn::Over {
                self.scores[i] = f32::INFINITY;
                continue;
            }
            for roll in 0..ROLLS {
                let mut next = play.after;
                next.apply_chance(roll)?;
                let sign = if next.player() == mover { 1.0 } else { -1.0 };
                self.states.push(next);
                self.weights.push((i, ROLL_PROBABILITIES[roll], sign));
                if self.states.len() == VALUE_BATCH {
                    self.flush();
                }
            }
        }
        self.flush();
        let best = (0..plays.len()).max_by(|&a, &b| self.scores[a].total_cmp(&self.scores[b]).then(b.cmp(&a)));
        Ok(best.expect("plays is not empty"))
    }
}

/// A [`Player`] that plans the whole turn at its first micro-action and
/// then plays the plan out (re-planning if the game is not where the plan
/// expects it).
#[derive(Debug)]
pub struct WholeTurnPlayer<C> {
    chooser: C,
    plays: TurnPlays,
    plan: Option<Play>,
    /// Micro-actions of the plan already played.
    done: usize,
    /// The game the plan's next micro-action applies to.
    expected: Option<Backgammon>,
}

impl<C: ChoosePlay> WholeTurnPlayer<C> {
    pub fn new(chooser: C) -> Self {
        Self { chooser, plays: TurnPlays::new(), plan: None, done: 0, expected: None }
    }
}

impl<C: ChoosePlay> Player<Backgammon> for WholeTurnPlayer<C> {
    fn start(&mut self, _: &Backgammon) {
        self.expected = None;
    }

    fn act(&mut self, game: &Backgammon) -> Result<usize> {
        if self.expected.as_ref() != Some(game) {
            let plays = self.plays.generate(game);
            let i = self.chooser.choose(game, plays)?;
            self.plan = Some(plays[i]);
            self.done = 0;
        }
        let plan = self.plan.as_ref().expect("a plan was made");
        let action = plan.actions()[self.done] as usize;
        self.done += 1;
        let mut next = *game;
        next.apply(action)?;
        self.expected = (self.done < plan.actions().len()).then_some(next);
        Ok(action)
    }

    fn played(&mut self, _: &Backgammon, _: usize, _: bool) {}
}

/// A match's results from the first player's side, with gammons and
/// backgammons counted (no doubling cube).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PointsResult {
    pub games: u64,
    pub wins: u64,
    /// Games stopped at the move limit (counted as 0 points).
    pub unfinished: u64,
    pub gammons_won: u64,
    pub backgammons_won: u64,
    pub gammons_lost: u64,
    pub backgammons_lost: u64,
    pub points: f64,
    pub points_squared: f64,
}

impl PointsResult {
    pub fn win_rate(&self) -> Rate {
        Rate::new(self.wins, self.games)
    }

    pub fn points_per_game(&self) -> f64 {
        self.points / self.games.max(1) as f64
    }

    /// The half-width of the 95% normal interval of the points per game.
    pub fn points_half_width(&self) -> f64 {
        let n = self.games.max(2) as f64;
        let mean = self.points / n;
        let variance = (self.points_squared / n - mean * mean).max(0.0) * n / (n - 1.0);
        1.959_964 * (variance / n).sqrt()
    }

    fn record(&mut self, points: f32) {
        self.games += 1;
        self.points += points as f64;
        self.points_squared += (points * points) as f64;
        match points as i32 {
            0 => self.unfinished += 1,
            p if p > 0 => {
                self.wins += 1;
                self.gammons_won += (p == 2) as u64;
                self.backgammons_won += (p == 3) as u64;
            }
            p => {
                self.gammons_lost += (p == -2) as u64;
                self.backgammons_lost += (p == -3) as u64;
            }
        }
    }

    fn add(&mut self, o: &Self) {
        self.games += o.games;
        self.wins += o.wins;
        self.unfinished += o.unfinished;
        self.gammons_won += o.gammons_won;
        self.backgammons_won += o.backgammons_won;
        self.gammons_lost += o.gammons_lost;
        self.backgammons_lost += o.backgammons_lost;
        self.points += o.points;
        self.points_squared += o.points_squared;
    }
}

impl std::fmt::Display for PointsResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} wins, {:+.3} ± {:.3} points/game ({} games; gammons {} won / {} lost, backgammons {} / {})",
            self.win_rate(),
            self.points_per_game(),
            self.points_half_width(),
            self.games,
            self.gammons_won,
            self.gammons_lost,
            self.backgammons_won,
            self.backgammons_lost
        )
    }
}

/// `games` games between a player built by `first` and one built by
/// `second` (each from a thread index and a seed), the first player taking
/// player 0 in even games and player 1 in odd ones; game `i` starts from
/// `Backgammon::reset(seed + i)`, whose fair coin picks the opener, so
/// each side opens half the games in expectation.
/// Games are spread over `threads` threads in fixed shares (each thread's
/// players seeded from its index): the result depends only on the seed and
/// the thread count. `tick` is called after each game (a progress bar's
/// count; `&|| {}` for none).
pub fn points_match<A, B>(
    first: &(dyn Fn(u64) -> Result<A> + Sync),
    second: &(dyn Fn(u64) -> Result<B> + Sync),
    games: usize,
    seed: u64,
    threads: usize,
    max_moves: u32,
    tick: &(dyn Fn() + Sync),
) -> Result<PointsResult>
where
    A: Player<Backgammon>,
    B: Player<Backgammon>,
{
    let play = |a: &mut A, b: &mut B, i: usize, game_seed: u64, r: &mut PointsResult| -> Result<()> {
        let mut start = Backgammon::default();
        start.reset(game_seed);
        let (end, first_is) = if i.is_multiple_of(2) {
            (play_from::<Backgammon>([a, b], start, game_seed, max_moves)?, 0)
        } else {
            (play_from::<Backgammon>([b, a], start, game_seed, max_moves)?, 1)
        };
        let points = match (end.winner(), end.points_won()) {
            (Some(w), Some(p)) if w == first_is => p,
            (Some(_), Some(p)) => -p,
            _ => 0.0,
        };
        r.record(points);
        tick();
        Ok(())
    };
    spread_games(first, second, games, seed, threads, &play, PointsResult::add)
}

#[derive(Clone, Debug, Serialize)]
pub struct BackgammonReport {
    pub simulations: u32,
    pub games: usize,
    pub network_vs_pubeval: PointsResult,
    pub mcts_vs_pubeval: PointsResult,
    pub pubeval_vs_random: PointsResult,
    /// MCTS against the random player, the run's own check.
    pub matches: EvalReport,
    pub seconds: f64,
}

impl BackgammonReport {
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

fn pubeval(_: u64) -> Result<WholeTurnPlayer<Pubeval>> {
    Ok(WholeTurnPlayer::new(Pubeval::standard()))
}

/// `games` games of `agent`'s network alone (`ValueChooser`) against
/// pubeval, spread over the agent's `eval.threads`.
pub fn network_vs_pubeval(agent: &AzAgent, games: usize, seed: u64, tick: &(dyn Fn() + Sync)) -> Result<PointsResult> {
    let config = &agent.config;
    let network = |_: u64| {
        let evaluator = NetEvaluator::with_inference(&agent.net, agent.params.clone(), config.mcts.inference)?;
        Ok(WholeTurnPlayer::new(ValueChooser::new(evaluator)))
    };
    points_match(&network, &pubeval, games, seed, config.eval.threads, config.self_play.max_moves, tick)
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
/// random (the run's `eval.final_games`).
pub fn backgammon_suite(
    agent: &AzAgent,
    simulations: Option<u32>,
    games: usize,
    seed: u64,
) -> std::result::Result<BackgammonReport, String> {
    let started = Instant::now();
    let mut config = agent.config.clone();
    if let Some(n) = simulations {
        config.eval.simulations = n;
    }
    let (sims, threads, max_moves) = (config.eval.simulations, config.eval.threads, config.self_play.max_moves);
    let text = |e: RlError| e.to_string();
    let bar = |label: &str, work: &dyn Fn(&(dyn Fn() + Sync)) -> Result<PointsResult>| {
        with_bar(label, games as u64, work).map_err(text)
    };
    let network_vs_pubeval = bar("network vs pubeval", &|tick| network_vs_pubeval(agent, games, seed, tick))?;
    let mcts = |s: u64| net_player::<Backgammon>(&agent.net, &agent.params, &config.mcts, sims, s);
    let mcts_vs_pubeval =
        bar("MCTS vs pubeval", &|tick| points_match(&mcts, &pubeval, games, seed, threads, max_moves, tick))?;
    let random = |s: u64| Ok(RandomPlayer::new::<Backgammon>(s));
    let pubeval_vs_random =
        bar("pubeval vs random", &|tick| points_match(&pubeval, &random, games, seed, threads, max_moves, tick))?;
    let random_games = config.eval.final_games;
    let matches = with_bar("MCTS vs random", random_games as u64, |tick| {
        evaluate_snapshot::<Backgammon>(&agent.net, &agent.params, &config, random_games, 0, seed, tick)
    })
    .map_err(text)?;
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
    use minnow_autodiff::Params;
    use minnow_envs::backgammon::{BackgammonConfig, POINTS, Position};
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
    fn pubeval_beats_random_and_the_points_add_up() {
        let random = |s: u64| Ok(RandomPlayer::new::<Backgammon>(s));
        let r = points_match(&pubeval, &random, 40, 3, 2, 3000, &|| {}).unwrap();
        assert_eq!((r.games, r.unfinished), (40, 0));
        assert!(r.wins >= 38, "{r}");
        let losses = r.games - r.wins;
        let singles_won = r.wins - r.gammons_won - r.backgammons_won;
        let singles_lost = losses - r.gammons_lost - r.backgammons_lost;
        let points = singles_won + 2 * r.gammons_won + 3 * r.backgammons_won;
        let lost = singles_lost + 2 * r.gammons_lost + 3 * r.backgammons_lost;
        assert_eq!(r.points, points as f64 - lost as f64);
        // The same seed and threads play the same games, with a progress
        // count or without, which ticks once a game.
        let ticks = std::sync::atomic::AtomicU64::new(0);
        let tick = || {
            ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let counted = points_match(&pubeval, &random, 40, 3, 2, 3000, &tick).unwrap();
        assert_eq!(counted, r);
        assert_eq!(ticks.into_inner(), 40);
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
