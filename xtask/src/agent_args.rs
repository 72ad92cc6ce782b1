//! The flags that choose and tune a saved agent, the same for `eval` and
//! `play`.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AgentArgs {
    /// The run directory (or its checkpoint.safetensors file); default: the
    /// task's shipped agent in agents/TASK.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// MCTS simulations per move (default: the run's eval.simulations).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub simulations: Option<u32>,
    /// td-backgammon: the plays the 2-ply search looks past (default: the
    /// run's eval.candidates; 1 plays the network alone).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub candidates: Option<u32>,
}

impl AgentArgs {
    /// The checkpoint to read: `--checkpoint`, or the agent shipped for `task`.
    pub fn checkpoint(&self, task: &str) -> Result<PathBuf, String> {
        crate::agents::checkpoint_or_shipped(self.checkpoint.as_deref(), task)
    }
}
