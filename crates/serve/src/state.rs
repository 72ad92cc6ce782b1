//! What every handler shares: the agents, the permits for searches, Pons'
//! table once read, and where the shipped logic-CA circuit is.

use crate::agents::Agents;
use crate::pons_table::PonsTable;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::Semaphore;

/// The server's shared state.
#[derive(Debug)]
pub struct AppState {
    /// The agents the pages play.
    pub agents: Agents,
    /// Searches and rollouts running at once: one per core, so that many
    /// clients queue instead of each holding a tree of hundreds of
    /// megabytes.
    pub searches: Arc<Semaphore>,
    /// The shipped logic-CA circuit (`agents/logic-ca/agent.safetensors`).
    pub logic_ca: PathBuf,
    pons: OnceLock<Result<PonsTable, String>>,
    dice: AtomicU64,
}

impl AppState {
    /// A state with no agents yet; `logic_ca` is the shipped circuit.
    pub fn new(logic_ca: PathBuf) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let clock = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        Self {
            agents: Agents::default(),
            searches: Arc::new(Semaphore::new(cores)),
            logic_ca,
            pons: OnceLock::new(),
            dice: AtomicU64::new(clock as u64),
        }
    }

    /// Pons' table, read on first use (call it on the blocking pool), or
    /// why it is not there.
    pub fn pons(&self) -> Result<&PonsTable, &str> {
        self.pons.get_or_init(PonsTable::load).as_ref().map_err(String::as_str)
    }

    /// A seed for dice no request chose: distinct for every call.
    pub fn dice_seed(&self) -> u64 {
        self.dice.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
    }
}
