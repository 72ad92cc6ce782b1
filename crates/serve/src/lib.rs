//! A board in the browser: `cargo xtask serve` starts this server on
//! 127.0.0.1, with pages to play connect four and backgammon against the
//! shipped agents, to see an agent's analysis of a position (its priors,
//! visit counts, value and principal variation; Pons' exact scores where
//! a connect-four position is one of his test positions), and to watch a
//! run's curves grow and a logic CA grow its pattern. `docs/SERVE.md`
//! describes the pages and the JSON API.
//!
//! The pages hold the game; every request stands alone. Searches run on
//! tokio's blocking pool, one per core at a time, and stop early when
//! their client goes. Bad input is a 4xx with a sentence saying what is
//! wrong (400 malformed, 404 missing, 422 refused), never a panic.
//!
//! ```no_run
//! # async fn run() -> Result<(), String> {
//! let config = minnow_serve::ServeConfig {
//!     agents_dir: "agents".into(),
//!     checkpoints: vec!["runs/az-connect4".into()],
//! };
//! let app = minnow_serve::app(&config)?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.map_err(|e| e.to_string())?;
//! axum::serve(listener, app).await.map_err(|e| e.to_string())
//! # }
//! ```

mod agents;
mod backgammon;
mod connect4;
mod error;
mod input;
mod logic_ca;
mod metrics;
mod pages;
mod pons_table;
mod search;
mod state;
#[cfg(feature = "testing")]
pub mod testing;

pub use error::ApiError;

use agents::PLAYABLE;
use state::AppState;

use axum::Router;
use axum::routing::{get, post};
use std::path::PathBuf;
use std::sync::Arc;

/// What the server plays and shows.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The shipped agents' directory (`agents/`): each playable task's
    /// `agents/TASK/agent.safetensors` is loaded when it is there, and
    /// `agents/logic-ca` is the default circuit of the watch page.
    pub agents_dir: PathBuf,
    /// Run directories or checkpoint files to play besides (the first of
    /// each game is its default agent).
    pub checkpoints: Vec<PathBuf>,
}

/// The router with every agent loaded; an error names a checkpoint that
/// is missing or not of a playable task.
pub fn app(config: &ServeConfig) -> Result<Router, String> {
    let state = AppState::new(config.agents_dir.join("logic-ca").join("agent.safetensors"));
    for path in &config.checkpoints {
        let agent = agents::Agent::load(path.display().to_string(), &agents::checkpoint_file(path))
            .map_err(|e| format!("--checkpoint {}: {}", path.display(), e.message))?;
        state.agents.add(agent);
    }
    for (task, _) in PLAYABLE {
        let shipped = config.agents_dir.join(task).join("agent.safetensors");
        if shipped.is_file() {
            let agent = agents::Agent::load(task.to_string(), &shipped).map_err(|e| e.message)?;
            state.agents.add(agent);
        }
    }
    Ok(router(Arc::new(state)))
}

/// The routes over `state`.
fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(pages::index))
        .route("/play", get(pages::play))
        .route("/analyse", get(pages::analyse))
        .route("/watch", get(pages::watch))
        .route("/assets/{name}", get(pages::asset))
        .route("/api/agents", get(list_agents))
        .route("/api/connect4/move", post(connect4::play))
        .route("/api/connect4/analyse", post(connect4::analyse))
        .route("/api/backgammon/new", post(backgammon::new_game))
        .route("/api/backgammon/setup", post(backgammon::setup))
        .route("/api/backgammon/move", post(backgammon::play))
        .route("/api/backgammon/analyse", post(backgammon::analyse))
        .route("/api/metrics", get(metrics::poll))
        .route("/api/logic-ca/frames", get(logic_ca::frames))
        .fallback(not_found)
        .with_state(state)
}

async fn list_agents(
    axum::extract::State(state): axum::extract::State<Arc<AppState>>,
) -> axum::Json<Vec<agents::AgentInfo>> {
    axum::Json(state.agents.infos())
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::missing(format!("no page or endpoint at {uri}"))
}
