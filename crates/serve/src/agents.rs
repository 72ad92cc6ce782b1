//! The agents a page can play: the shipped ones in `agents/`, the
//! checkpoints given on the command line, and any run directory or
//! checkpoint file a request names (read once, then kept).

use crate::error::{ApiError, ApiResult};
use minnow_envs::{Backgammon, ConnectFour};
use minnow_nn::Checkpoint;
use minnow_rl::afterstate::ValueNet;
use minnow_rl::alphazero::AzAgent;
use minnow_rl::alphazero::task_name;
use minnow_tasks::backgammon::{self, TD_BACKGAMMON};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The tasks whose agents the pages play, and their game.
pub const PLAYABLE: [(&str, Game); 3] =
    [("az-connect4", Game::Connect4), ("az-backgammon", Game::Backgammon), (TD_BACKGAMMON, Game::Backgammon)];

/// A game the pages offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Game {
    /// Connect four.
    Connect4,
    /// Backgammon.
    Backgammon,
}

impl Game {
    fn name(self) -> &'static str {
        match self {
            Game::Connect4 => "connect4",
            Game::Backgammon => "backgammon",
        }
    }
}

/// A loaded agent's network.
#[derive(Debug)]
pub enum Brain {
    /// An AlphaZero network for connect four.
    AzConnect4(AzAgent),
    /// An AlphaZero network for backgammon (moves one checker at a time).
    AzBackgammon(AzAgent),
    /// A TD(lambda) afterstate network choosing whole plays, by 2-ply over
    /// its `candidates` best.
    TdBackgammon {
        /// The value network.
        net: Arc<ValueNet>,
        /// The plays its 2-ply search looks past (the run's eval.candidates).
        candidates: usize,
    },
}

/// An agent and what the pages call it.
#[derive(Debug)]
pub struct Agent {
    /// The name requests use: the task for a shipped agent, else the path
    /// as given.
    pub name: String,
    /// The task that trained it.
    pub task: &'static str,
    /// Its game.
    pub game: Game,
    /// The network.
    pub brain: Brain,
}

/// What `GET /api/agents` lists.
#[derive(Debug, Serialize)]
pub struct AgentInfo {
    name: String,
    task: &'static str,
    game: Game,
    /// MCTS simulations a move by default; `None` for an agent that does
    /// not search by simulations (td-backgammon).
    simulations: Option<u32>,
}

impl Agent {
    /// Reads a checkpoint file of one of the [`PLAYABLE`] tasks.
    pub fn load(name: String, path: &Path) -> ApiResult<Self> {
        if !path.is_file() {
            return Err(ApiError::missing(format!("no checkpoint at {}", path.display())));
        }
        let refused = |e: &dyn std::fmt::Display| ApiError::refused(format!("{}: {e}", path.display()));
        let saved = Checkpoint::load(path).map_err(|e| refused(&e))?;
        let found = saved.meta("task").unwrap_or("none").to_string();
        drop(saved);
        let Some(&(task, game)) = PLAYABLE.iter().find(|(task, _)| *task == found) else {
            let expected: Vec<&str> = PLAYABLE.iter().map(|(task, _)| *task).collect();
            return Err(refused(&format!(
                "a checkpoint of task '{found}', expected one of {} to play",
                expected.join(", ")
            )));
        };
        let brain = if task == task_name::<ConnectFour>() {
            Brain::AzConnect4(AzAgent::load::<ConnectFour>(path).map_err(|e| refused(&e))?)
        } else if task == task_name::<Backgammon>() {
            Brain::AzBackgammon(AzAgent::load::<Backgammon>(path).map_err(|e| refused(&e))?)
        } else {
            let saved = backgammon::load(path).map_err(|e| refused(&e))?;
            Brain::TdBackgammon { net: Arc::new(saved.net), candidates: saved.config.eval.candidates }
        };
        Ok(Self { name, task, game, brain })
    }

    /// What the agent list shows of it.
    pub fn info(&self) -> AgentInfo {
        let simulations = match &self.brain {
            Brain::AzConnect4(az) | Brain::AzBackgammon(az) => Some(az.config.eval.simulations),
            Brain::TdBackgammon { .. } => None,
        };
        AgentInfo { name: self.name.clone(), task: self.task, game: self.game, simulations }
    }
}

/// The checkpoint file of a run directory (`checkpoint.safetensors`) or
/// of a shipped agent's (`agent.safetensors`), or the file itself.
pub fn checkpoint_file(path: &Path) -> PathBuf {
    if !path.is_dir() {
        return path.to_path_buf();
    }
    let agent = path.join("agent.safetensors");
    let run = path.join("checkpoint.safetensors");
    if !run.exists() && agent.exists() { agent } else { run }
}

/// Every agent loaded so far, the first of each game its default.
#[derive(Debug, Default)]
pub struct Agents {
    loaded: Mutex<Vec<Arc<Agent>>>,
}

impl Agents {
    /// Adds an agent (named ones first: the command line's checkpoints
    /// come before the shipped agents, so they are the default).
    pub fn add(&self, agent: Agent) {
        self.lock().push(Arc::new(agent));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Agent>>> {
        // A panic elsewhere while holding the list leaves it whole: it is
        // only ever pushed to.
        self.loaded.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The agent list.
    pub fn infos(&self) -> Vec<AgentInfo> {
        self.lock().iter().map(|a| a.info()).collect()
    }

    /// The agent a request names for `game`: a loaded one by name, or a
    /// run directory or checkpoint file, read now (on the blocking pool)
    /// and kept. `None` picks the game's first agent.
    pub async fn get(&self, name: Option<&str>, game: Game) -> ApiResult<Arc<Agent>> {
        let name = name.map(str::trim).filter(|n| !n.is_empty());
        // The list's lock is released before any await.
        let loaded: Option<Arc<Agent>> = {
            let loaded = self.lock();
            match name {
                None => loaded.iter().find(|a| a.game == game).cloned(),
                Some(name) => loaded.iter().find(|a| a.name == name).cloned(),
            }
        };
        let found = match (loaded, name) {
            (Some(agent), _) => agent,
            (None, Some(name)) => self.load_named(name).await?,
            (None, None) => {
                return Err(ApiError::missing(format!(
                    "no {} agent is loaded: pass --checkpoint with a run of {}",
                    game.name(),
                    tasks_of(game)
                )));
            }
        };
        if found.game != game {
            return Err(ApiError::refused(format!(
                "agent '{}' plays {} (task {}), not {}",
                found.name,
                found.game.name(),
                found.task,
                game.name()
            )));
        }
        Ok(found)
    }

    async fn load_named(&self, name: &str) -> ApiResult<Arc<Agent>> {
        if name.len() > 4096 {
            return Err(ApiError::malformed("the agent name is longer than 4096 bytes"));
        }
        let path = PathBuf::from(name);
        if !path.exists() {
            return Err(ApiError::missing(format!(
                "no agent '{name}': none is loaded by that name, and there is no run directory or checkpoint there"
            )));
        }
        let owned = name.to_string();
        let agent = tokio::task::spawn_blocking(move || Agent::load(owned, &checkpoint_file(&path)))
            .await
            .map_err(|e| ApiError::internal(format!("reading agent '{name}': {e}")))??;
        let agent = Arc::new(agent);
        self.lock().push(agent.clone());
        Ok(agent)
    }
}

fn tasks_of(game: Game) -> String {
    let tasks: Vec<&str> = PLAYABLE.iter().filter(|(_, g)| *g == game).map(|(t, _)| *t).collect();
    tasks.join(" or ")
}
