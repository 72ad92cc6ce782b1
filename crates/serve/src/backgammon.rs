//! Backgammon against an agent (AlphaZero's, which moves one checker at a
//! time, or TD-Gammon-style whole plays), and an agent's analysis. The
//! page holds the game as gnubg's Position ID (the player on roll's
//! view), the seat on roll and the dice, so every request stands alone;
//! the server rolls the dice. A pasted ID sets up a position.

use crate::agents::{Agent, Brain, Game};
use crate::error::{ApiError, ApiResult};
use crate::input;
use crate::search::{network_view, on_blocking_pool, search};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use minnow_envs::backgammon::match_id::{self, MatchState};
use minnow_envs::backgammon::{
    BackgammonConfig, POINTS, Play, ROLL_DICE, TurnPlays, notation, pasted, position_id, random_roll,
};
use minnow_envs::{Backgammon, Game as _, Turn};
use minnow_rl::afterstate::Searcher;
use minnow_rl::mcts::NetEvaluator;
use minnow_tasks::alphazero::ValueChooser;
use minnow_tasks::backgammon::{BackgammonTurns, ChoosePlay, TdChooser};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The rules the agents were trained and judged under: gammons count.
const CONFIG: BackgammonConfig = BackgammonConfig { scored_wins: true };
/// The most simulations a backgammon search may ask for (its tree holds
/// about 6 kB a simulation).
pub const MAX_SIMULATIONS: u32 = 10_000;
/// Plays the TD agent's analysis lists.
const TD_ROWS: usize = 30;
/// Rolls in a row the server plays out before it gives up (only a
/// position where neither side can move would reach it).
const MAX_ROLLS: usize = 1000;
/// The longest pasted text or typed play read.
const MAX_TEXT: usize = 200;

/// A game at a decision, as the page holds it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PositionState {
    /// gnubg's Position ID, the player on roll's view.
    position: String,
    /// The seat on roll: 0 (X) or 1 (O).
    player: i64,
    /// The roll to play; `None` before the roll.
    dice: Option<[i64; 2]>,
}

impl PositionState {
    fn of(game: &Backgammon) -> Self {
        Self {
            position: position_id::encode(game.position()),
            player: game.player() as i64,
            dice: game.dice().map(|(low, high)| [high as i64, low as i64]),
        }
    }

    /// The game: a malformed ID or an out-of-range seat or die is a 400, a
    /// position the rules refuse a 422.
    fn game(&self) -> ApiResult<Backgammon> {
        if self.position.len() > MAX_TEXT {
            return Err(ApiError::malformed("position: longer than a Position ID"));
        }
        let position = position_id::decode(&self.position).map_err(|e| ApiError::malformed(e.to_string()))?;
        let player = seat(self.player, "player")?;
        let game = match self.dice {
            None => Backgammon::at_roll(CONFIG, position, player),
            Some([a, b]) => {
                let die = |d: i64| {
                    u8::try_from(d)
                        .ok()
                        .filter(|d| (1..=6).contains(d))
                        .ok_or_else(|| ApiError::malformed(format!("dice [{a}, {b}]: expected two dice 1 to 6")))
                };
                Backgammon::from_position(CONFIG, position, player, (die(a)?, die(b)?))
            }
        };
        game.map_err(|e| ApiError::refused(format!("position {}: {e}", self.position)))
    }
}

fn seat(n: i64, what: &str) -> ApiResult<usize> {
    match n {
        0 | 1 => Ok(n as usize),
        _ => Err(ApiError::malformed(format!("{what} {n}: expected 0 (X) or 1 (O)"))),
    }
}

/// The end of a game.
#[derive(Debug, Serialize)]
pub struct Over {
    /// The winning seat.
    winner: usize,
    /// 1, 2 for a gammon, 3 for a backgammon.
    points: u32,
}

/// A position as the page draws it, from seat 0's (X's) side.
#[derive(Debug, Serialize)]
pub struct View {
    state: PositionState,
    /// The Position ID and Match ID, to paste into gnubg.
    position_id: String,
    match_id: String,
    /// Index `n - 1`: X's point `n`; positive X's checkers, negative O's.
    points: [i8; POINTS],
    /// X's and O's checkers on the bar and borne off.
    bar: [u8; 2],
    off: [u8; 2],
    /// X's and O's pip counts.
    pips: [u32; 2],
    /// The seat to play the roll; `None` when the dice are not rolled or
    /// the game is over.
    to_play: Option<usize>,
    /// The roll, higher die first.
    dice: Option<[u8; 2]>,
    /// The legal plays of the roll, in gnubg's notation.
    plays: Vec<String>,
    over: Option<Over>,
}

impl View {
    fn of(game: &Backgammon) -> Self {
        let seen = if game.player() == 0 { *game.position() } else { game.position().flipped() };
        let mut points = [0i8; POINTS];
        let mut pips = [0u32; 2];
        for (p, &c) in seen.points().iter().enumerate() {
            points[POINTS - 1 - p] = c;
            pips[0] += c.max(0) as u32 * (POINTS - p) as u32;
            pips[1] += (-c).max(0) as u32 * (p + 1) as u32;
        }
        let (bar, off) = (seen.bar(), seen.off());
        for side in 0..2 {
            pips[side] += 25 * bar[side] as u32;
        }
        let to_play = match game.turn() {
            Turn::Player(p) => Some(p),
            _ => None,
        };
        let plays = match to_play {
            Some(_) => TurnPlays::new().generate(game).iter().map(|play| notation::write(game, play)).collect(),
            None => Vec::new(),
        };
        let over = game.winner().map(|winner| Over { winner, points: game.points_won().unwrap_or(1.0) as u32 });
        Self {
            state: PositionState::of(game),
            position_id: position_id::encode(game.position()),
            match_id: match_id::encode(&MatchState::of(game)),
            points,
            bar,
            off,
            pips,
            to_play,
            dice: game.dice().map(|(low, high)| [high, low]),
            plays,
            over,
        }
    }
}

/// `POST /api/backgammon/new`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRequest {
    /// Picks the opener and the opening roll; default: fresh.
    seed: Option<u64>,
}

/// `POST /api/backgammon/setup`: a pasted ID.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupRequest {
    /// "POSITIONID", "POSITIONID 31" or "POSITIONID:MATCHID".
    text: String,
    /// The seat on roll when no Match ID says (default 0, X).
    player: Option<i64>,
    /// The dice when none are given; default: fresh.
    seed: Option<u64>,
}

/// `POST /api/backgammon/move`: the person's play, if any, then the
/// agent's turns until the person is to play or the game is over.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    agent: Option<String>,
    state: PositionState,
    /// The person's seat: 0 (X) or 1 (O).
    human: i64,
    /// The person's play in gnubg's notation ("13/7 8/7"); absent when the
    /// agent is on roll.
    play: Option<String>,
    simulations: Option<i64>,
    #[serde(default)]
    network_alone: bool,
    seed: Option<u64>,
}

/// `POST /api/backgammon/analyse`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    agent: Option<String>,
    state: PositionState,
    simulations: Option<i64>,
}

/// A position and what happened to reach it.
#[derive(Debug, Serialize)]
pub struct Reply {
    view: View,
    /// The rolls and plays since the request's position, in order.
    events: Vec<String>,
    /// The agent's last play, in gnubg's notation.
    agent_play: Option<String>,
}

/// One row of an analysis: an AlphaZero agent's first checker moves
/// (prior and visits), or a TD agent's plays (equity and chances).
#[derive(Debug, Serialize)]
pub struct Row {
    play: String,
    prior: Option<f32>,
    visits: Option<u32>,
    equity: Option<f32>,
    win: Option<f32>,
    gammon: Option<f32>,
}

/// An agent's view of a decision.
#[derive(Debug, Serialize)]
pub struct Analysis {
    view: View,
    agent: String,
    /// What the rows are: "checker moves" (AlphaZero: one checker, one die)
    /// or "plays" (TD: whole plays).
    rows_are: &'static str,
    rows: Vec<Row>,
    network_value: Option<f32>,
    search_value: Option<f32>,
    /// The search's expected line of checker moves in this turn.
    principal_variation: Vec<String>,
    /// The play the agent makes here.
    agent_play: String,
    simulations: Option<u32>,
    seconds: f64,
}

pub async fn new_game(
    State(state): State<Arc<AppState>>,
    body: Result<Json<NewRequest>, JsonRejection>,
) -> ApiResult<Json<Reply>> {
    let request = input::json(body)?;
    let mut game = Backgammon::new(CONFIG);
    game.reset(request.seed.unwrap_or_else(|| state.dice_seed()));
    Ok(Json(Reply { view: View::of(&game), events: Vec::new(), agent_play: None }))
}

pub async fn setup(
    State(state): State<Arc<AppState>>,
    body: Result<Json<SetupRequest>, JsonRejection>,
) -> ApiResult<Json<Reply>> {
    let request = input::json(body)?;
    if request.text.len() > MAX_TEXT {
        return Err(ApiError::malformed(format!("the pasted text is longer than {MAX_TEXT} bytes")));
    }
    let text = request.text.trim();
    let pasted = pasted::parse(text).map_err(|e| ApiError::malformed(e.to_string()))?;
    let player = seat(request.player.unwrap_or(0), "player")?;
    let mut game = pasted.game(CONFIG, player).map_err(|e| ApiError::refused(format!("'{text}': {e}")))?;
    let mut rng = Pcg64Mcg::seed_from_u64(request.seed.unwrap_or_else(|| state.dice_seed()));
    let mut events = Vec::new();
    if pasted.dice.is_some() && game.turn() == Turn::Chance {
        events.push(format!("{} cannot play the roll given", side(1 - game.player())));
    }
    for _ in 0..MAX_ROLLS {
        if game.turn() != Turn::Chance {
            return Ok(Json(Reply { view: View::of(&game), events, agent_play: None }));
        }
        roll(&mut game, &mut rng, &mut events, &|p| side(p).to_string())?;
    }
    Err(ApiError::refused(format!("'{text}': neither side can move")))
}

pub async fn play(
    State(state): State<Arc<AppState>>,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> ApiResult<Json<Reply>> {
    let request = input::json(body)?;
    let human = seat(request.human, "human")?;
    let mut game = request.state.game()?;
    let mut events = Vec::new();
    let name = move |p: usize| if p == human { "you".to_string() } else { "the agent".to_string() };
    match (game.turn(), &request.play) {
        (Turn::Over, _) => return Err(ApiError::refused("the game is over")),
        (Turn::Chance, _) => return Err(ApiError::refused("the dice are not rolled: there is no play to make")),
        (Turn::Player(p), Some(text)) if p == human => {
            if text.len() > MAX_TEXT {
                return Err(ApiError::malformed(format!("play: longer than {MAX_TEXT} bytes")));
            }
            let chosen = notation::parse(&game, text).map_err(|e| ApiError::refused(e.to_string()))?;
            events.push(format!("you play {}", notation::write(&game, &chosen)));
            game = chosen.after;
        }
        (Turn::Player(_), Some(text)) => {
            return Err(ApiError::refused(format!("play '{text}': it is the agent's roll, not yours")));
        }
        (Turn::Player(p), None) if p == human => {
            return Err(ApiError::refused("it is your roll: choose one of the plays"));
        }
        (Turn::Player(_), None) => {}
    }
    let agent = state.agents.get(request.agent.as_deref(), Game::Backgammon).await?;
    let simulations = simulations_for(&agent, request.simulations)?;
    let seed = request.seed.unwrap_or_else(|| state.dice_seed());
    let network_alone = request.network_alone;
    let reply = on_blocking_pool(&state.searches, move |stop| {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut agent_play = None;
        for _ in 0..MAX_ROLLS {
            match game.turn() {
                Turn::Over => break,
                Turn::Player(p) if p == human => break,
                Turn::Chance => roll(&mut game, &mut rng, &mut events, &name)?,
                Turn::Player(_) => {
                    let (a, b) = game.dice().expect("a decision has dice");
                    let play = agent_play_at(&agent, &game, simulations, network_alone, seed, stop)?;
                    let written = notation::write(&game, &play);
                    events.push(format!("the agent rolls {b}-{a} and plays {written}"));
                    agent_play = Some(written);
                    game = play.after;
                }
            }
        }
        Ok(Reply { view: View::of(&game), events, agent_play })
    })
    .await?;
    Ok(Json(reply))
}

pub async fn analyse(
    State(state): State<Arc<AppState>>,
    body: Result<Json<AnalyseRequest>, JsonRejection>,
) -> ApiResult<Json<Analysis>> {
    let request = input::json(body)?;
    let game = request.state.game()?;
    if !matches!(game.turn(), Turn::Player(_)) {
        return Err(ApiError::refused("there is no roll to play here: nothing to analyse"));
    }
    let agent = state.agents.get(request.agent.as_deref(), Game::Backgammon).await?;
    let simulations = simulations_for(&agent, request.simulations)?;
    let analysis = on_blocking_pool(&state.searches, move |stop| match &agent.brain {
        Brain::AzBackgammon(az) => {
            let (priors, network_value) = network_view(az, &game)?;
            let started = Instant::now();
            let searched = search(az, &game, simulations, 0, stop)?;
            let seconds = started.elapsed().as_secs_f64();
            let mut rows: Vec<Row> = (0..priors.len())
                .filter_map(|a| {
                    let prior = priors[a]?;
                    let visits = searched.visits(a);
                    Some(Row { play: checker_move(a), prior: Some(prior), visits: Some(visits), ..Row::empty() })
                })
                .collect();
            rows.sort_by(|x, y| {
                y.visits.cmp(&x.visits).then(y.prior.unwrap_or(0.0).total_cmp(&x.prior.unwrap_or(0.0)))
            });
            let line = searched.principal_variation();
            let agent_play = agent_play_at(&agent, &game, simulations, false, 0, stop)?;
            Ok(Analysis {
                agent_play: notation::write(&game, &agent_play),
                view: View::of(&game),
                agent: agent.name.clone(),
                rows_are: "checker moves",
                rows,
                network_value: Some(network_value),
                search_value: Some(searched.root_value()),
                principal_variation: line.iter().map(|&a| checker_move(a)).collect(),
                simulations: Some(simulations),
                seconds,
            })
        }
        Brain::TdBackgammon { net, .. } => {
            let started = Instant::now();
            let Turn::Player(mover) = game.turn() else { unreachable!("checked above") };
            let plays = TurnPlays::new().generate(&game).to_vec();
            let afters: Vec<Backgammon> = plays.iter().map(|p| p.after).collect();
            let turns = BackgammonTurns::default();
            let mut searcher = Searcher::new(net);
            let ranked: Vec<(f32, usize)> = searcher.rank(&turns, net, mover, &afters).to_vec();
            let mut rows = Vec::new();
            for &(equity, i) in ranked.iter().take(TD_ROWS) {
                searcher.rate(&turns, net, &afters[i], mover);
                let (win, gammon) = (searcher.outputs()[0], searcher.outputs()[1]);
                let play = notation::write(&game, &plays[i]);
                rows.push(Row { play, equity: Some(equity), win: Some(win), gammon: Some(gammon), ..Row::empty() });
            }
            let chosen = agent_play_at(&agent, &game, simulations, false, 0, stop)?;
            Ok(Analysis {
                agent_play: notation::write(&game, &chosen),
                view: View::of(&game),
                agent: agent.name.clone(),
                rows_are: "plays",
                rows,
                network_value: None,
                search_value: None,
                principal_variation: Vec::new(),
                simulations: None,
                seconds: started.elapsed().as_secs_f64(),
            })
        }
        Brain::AzConnect4(_) => unreachable!("the agent plays backgammon"),
    })
    .await?;
    Ok(Json(analysis))
}

impl Row {
    fn empty() -> Self {
        Self { play: String::new(), prior: None, visits: None, equity: None, win: None, gammon: None }
    }
}

fn simulations_for(agent: &Agent, asked: Option<i64>) -> ApiResult<u32> {
    let default = match &agent.brain {
        Brain::AzBackgammon(az) | Brain::AzConnect4(az) => az.config.eval.simulations,
        Brain::TdBackgammon { .. } => 1,
    };
    input::bounded("simulations", asked, default, MAX_SIMULATIONS)
}

/// Rolls for the player at `game`'s chance node; a roll that cannot be
/// played is told, and the turn has passed.
fn roll(
    game: &mut Backgammon,
    rng: &mut Pcg64Mcg,
    events: &mut Vec<String>,
    name: &dyn Fn(usize) -> String,
) -> ApiResult<()> {
    let player = game.player();
    let k = random_roll(rng);
    let (a, b) = ROLL_DICE[k];
    game.apply_chance(k).map_err(|e| ApiError::internal(format!("roll: {e}")))?;
    if game.turn() == Turn::Chance {
        events.push(format!(
            "{} roll{} {b}-{a} and cannot move",
            name(player),
            if name(player) == "you" { "" } else { "s" }
        ));
    }
    Ok(())
}

fn side(p: usize) -> &'static str {
    ["X", "O"][p]
}

/// The play `agent` makes at `game` (a player to move at the start of a
/// turn).
fn agent_play_at(
    agent: &Agent,
    game: &Backgammon,
    simulations: u32,
    network_alone: bool,
    seed: u64,
    stop: &AtomicBool,
) -> ApiResult<Play> {
    let failed = |e: minnow_rl::RlError| ApiError::internal(format!("the agent's play: {e}"));
    let plays = TurnPlays::new().generate(game).to_vec();
    let index = match &agent.brain {
        Brain::TdBackgammon { net, candidates } => {
            let keep = if network_alone { 1 } else { *candidates };
            TdChooser::new(net.clone(), keep).choose(game, &plays).map_err(failed)?
        }
        Brain::AzBackgammon(az) if network_alone => {
            let evaluator =
                NetEvaluator::with_inference(&az.net, az.params.clone(), az.config.mcts.inference).map_err(failed)?;
            ValueChooser::new(evaluator).choose(game, &plays).map_err(failed)?
        }
        Brain::AzBackgammon(az) => {
            // One checker at a time, a search before each, until the turn ends.
            let Turn::Player(mover) = game.turn() else { return Err(ApiError::refused("no roll to play")) };
            let mut at = *game;
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            while at.turn() == Turn::Player(mover) {
                let searched = search(az, &at, simulations, seed, stop)?;
                let action = searched.choose_action(0.0, &mut rng).map_err(failed)?;
                at.apply(action).map_err(|e| ApiError::internal(format!("the agent's move: {e}")))?;
            }
            plays
                .iter()
                .position(|p| p.after == at)
                .ok_or_else(|| ApiError::internal("the agent's checker moves reach no listed play".to_string()))?
        }
        Brain::AzConnect4(_) => unreachable!("the agent plays backgammon"),
    };
    Ok(plays[index])
}

/// An AlphaZero micro-action in gnubg's point numbers from the mover's
/// side: one checker moved by one die ("13/7", "bar/22", "6/off").
fn checker_move(action: usize) -> String {
    let (source, die) = (action / 6, action % 6 + 1);
    match source {
        minnow_envs::backgammon::BAR_SOURCE => format!("bar/{} ({die})", 25 - die),
        _ => {
            let from = POINTS - (source - minnow_envs::backgammon::POINT_SOURCE);
            match from.checked_sub(die).filter(|&to| to > 0) {
                Some(to) => format!("{from}/{to} ({die})"),
                None => format!("{from}/off ({die})"),
            }
        }
    }
}
