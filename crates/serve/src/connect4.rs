//! Connect four against an AlphaZero agent, and its analysis of a
//! position. The page holds the game as the columns played so far
//! ("4453", 1-based), so every request stands alone.

use crate::agents::{Brain, Game};
use crate::error::{ApiError, ApiResult};
use crate::input;
use crate::search::{network_move, network_view, on_blocking_pool, search};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use minnow_envs::connect4::{COLUMNS, ROWS};
use minnow_envs::{ConnectFour, Game as _, Turn};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Instant;

/// The most simulations a connect-four search may ask for: its tree
/// (about 2.5 kB a simulation) must fit beside the others running.
pub const MAX_SIMULATIONS: u32 = 100_000;
/// A game has at most this many moves.
const MAX_MOVES: usize = COLUMNS * ROWS;

/// `POST /api/connect4/move`: the person's column (if any), then the
/// agent's reply.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// The agent: a loaded name or a run directory; default the first.
    agent: Option<String>,
    /// The columns played so far, 1-based.
    #[serde(default)]
    moves: String,
    /// The person's column, 1-7; absent when the agent is to move.
    column: Option<i64>,
    /// MCTS simulations (default: the agent's eval.simulations).
    simulations: Option<i64>,
    /// Play the policy's best move, no search.
    #[serde(default)]
    network_alone: bool,
}

/// `POST /api/connect4/analyse`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    agent: Option<String>,
    #[serde(default)]
    moves: String,
    simulations: Option<i64>,
}

/// A position as the page draws it.
#[derive(Debug, Serialize)]
pub struct Board {
    /// The columns played, 1-based.
    moves: String,
    /// Rows top to bottom, each column 0 (empty), 1 (first player, X) or
    /// 2 (second, O).
    cells: Vec<[u8; COLUMNS]>,
    /// The player to move, 1 or 2; `None` once the game is over.
    to_move: Option<u8>,
    /// The legal columns, 1-based.
    legal: Vec<usize>,
    /// The game is over.
    over: bool,
    /// The winner, 1 or 2; `None` for a draw or a game not over.
    winner: Option<u8>,
}

impl Board {
    fn of(game: &ConnectFour, moves: String) -> Self {
        let (x, o) = (game.stones(0), game.stones(1));
        let cells = (0..ROWS)
            .rev()
            .map(|r| {
                std::array::from_fn(|c| {
                    let bit = 7 * c + r;
                    (x >> bit & 1) as u8 + 2 * (o >> bit & 1) as u8
                })
            })
            .collect();
        let to_move = match game.turn() {
            Turn::Player(p) => Some(p as u8 + 1),
            _ => None,
        };
        let legal = (0..COLUMNS).filter(|&c| game.legal_mask() >> c & 1 == 1).map(|c| c + 1).collect();
        let over = game.turn() == Turn::Over;
        Self { moves, cells, to_move, legal, over, winner: game.winner().map(|p| p as u8 + 1) }
    }
}

/// The answer to a move.
#[derive(Debug, Serialize)]
pub struct MoveReply {
    board: Board,
    /// The agent's column, 1-based, if it moved.
    agent_move: Option<usize>,
    /// The agent that answered.
    agent: String,
}

/// The answer to an analysis.
#[derive(Debug, Serialize)]
pub struct Analysis {
    board: Board,
    agent: String,
    /// Per column: the network's prior (`None` for a full column).
    priors: Vec<Option<f32>>,
    /// Per column: the search's visits.
    visits: Vec<u32>,
    /// The value for the player to move: the network's, the search's.
    network_value: f32,
    search_value: f32,
    /// The exact value, once the search's solver proved it.
    proven_value: Option<f32>,
    /// The line the search expects, 1-based columns.
    principal_variation: Vec<usize>,
    simulations: u32,
    /// The search's time.
    seconds: f64,
    /// Pons' exact score of each column (`None`: full), where the
    /// position is one of his test positions: positive wins for the player
    /// to move (larger is sooner), 0 draws, negative loses.
    pons_scores: Option<Vec<Option<i8>>>,
    /// Which test set, or why there are no exact scores.
    pons_note: String,
}

/// The game after `moves` (1-based columns): a character that is not a
/// column is a 400, a move the game refuses (a full column, a move after
/// the end) a 422.
pub fn parse_moves(moves: &str) -> ApiResult<ConnectFour> {
    if moves.len() > MAX_MOVES {
        return Err(ApiError::malformed(format!("moves: {} characters, a game has at most {MAX_MOVES}", moves.len())));
    }
    let mut game = ConnectFour::new();
    for (i, ch) in moves.chars().enumerate() {
        let column = column_of(ch).ok_or_else(|| {
            ApiError::malformed(format!("moves: character {} is '{ch}', expected a column 1 to 7", i + 1))
        })?;
        game.apply(column)
            .map_err(|e| ApiError::refused(format!("moves: move {} (column {}): {e}", i + 1, column + 1)))?;
    }
    Ok(game)
}

fn column_of(ch: char) -> Option<usize> {
    ch.to_digit(10).map(|d| d as usize).filter(|d| (1..=COLUMNS).contains(d)).map(|d| d - 1)
}

pub async fn play(
    State(state): State<Arc<AppState>>,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> ApiResult<Json<MoveReply>> {
    let request = input::json(body)?;
    let mut game = parse_moves(&request.moves)?;
    let mut moves = request.moves.clone();
    if let Some(column) = request.column {
        if !(1..=COLUMNS as i64).contains(&column) {
            return Err(ApiError::malformed(format!("column {column}: expected 1 to {COLUMNS}")));
        }
        if game.turn() == Turn::Over {
            return Err(ApiError::refused(format!("column {column}: the game is over")));
        }
        game.apply(column as usize - 1)
            .map_err(|_| ApiError::refused(format!("column {column} is full: it is not a legal move here")))?;
        moves.push_str(&column.to_string());
    }
    let agent = state.agents.get(request.agent.as_deref(), Game::Connect4).await?;
    let Brain::AzConnect4(az) = &agent.brain else { unreachable!("connect-four agents are AlphaZero's") };
    let simulations = input::bounded("simulations", request.simulations, az.config.eval.simulations, MAX_SIMULATIONS)?;
    let mut agent_move = None;
    if let Turn::Player(_) = game.turn() {
        let (agent, at) = (agent.clone(), game);
        let seed = at.moves() as u64;
        let network_alone = request.network_alone;
        let column = on_blocking_pool(&state.searches, move |stop| {
            let Brain::AzConnect4(az) = &agent.brain else { unreachable!() };
            if network_alone {
                network_move(&network_view(az, &at)?.0)
            } else {
                let searched = search(az, &at, simulations, seed, stop)?;
                let mut rng = <rand_pcg::Pcg64Mcg as rand::SeedableRng>::seed_from_u64(seed);
                searched.choose_action(0.0, &mut rng).map_err(|e| ApiError::internal(format!("search: {e}")))
            }
        })
        .await?;
        game.apply(column).map_err(|e| ApiError::internal(format!("the agent's move: {e}")))?;
        moves.push_str(&(column + 1).to_string());
        agent_move = Some(column + 1);
    }
    Ok(Json(MoveReply { board: Board::of(&game, moves), agent_move, agent: agent.name.clone() }))
}

pub async fn analyse(
    State(state): State<Arc<AppState>>,
    body: Result<Json<AnalyseRequest>, JsonRejection>,
) -> ApiResult<Json<Analysis>> {
    let request = input::json(body)?;
    let game = parse_moves(&request.moves)?;
    if game.turn() == Turn::Over {
        return Err(ApiError::refused("the game is over: there is no move to analyse"));
    }
    let agent = state.agents.get(request.agent.as_deref(), Game::Connect4).await?;
    let Brain::AzConnect4(az) = &agent.brain else { unreachable!("connect-four agents are AlphaZero's") };
    let simulations = input::bounded("simulations", request.simulations, az.config.eval.simulations, MAX_SIMULATIONS)?;
    let moves = request.moves;
    let shared = state.clone();
    let name = agent.name.clone();
    let analysis = on_blocking_pool(&state.searches, move |stop| {
        let Brain::AzConnect4(az) = &agent.brain else { unreachable!() };
        let (priors, network_value) = network_view(az, &game)?;
        let started = Instant::now();
        let searched = search(az, &game, simulations, 0, stop)?;
        let seconds = started.elapsed().as_secs_f64();
        let (pons_scores, pons_note) = match shared.pons() {
            Err(missing) => (None, format!("no exact scores: {missing}")),
            Ok(table) => match table.lookup(&game) {
                Some((scores, set)) => (Some(scores.to_vec()), format!("one of Pons' test positions ({set})")),
                None => (None, "not one of Pons' test positions: no exact scores".to_string()),
            },
        };
        Ok(Analysis {
            board: Board::of(&game, moves),
            agent: name,
            priors,
            visits: (0..COLUMNS).map(|c| searched.visits(c)).collect(),
            network_value,
            search_value: searched.root_value(),
            proven_value: searched.proven_value(),
            principal_variation: searched.principal_variation().iter().map(|c| c + 1).collect(),
            simulations,
            seconds,
            pons_scores,
            pons_note,
        })
    })
    .await?;
    Ok(Json(analysis))
}
