//! `eval TASK`: a saved agent through its task's evaluation (the final
//! suite of its training), printed as the task's table.

use crate::error::CliError;
use crate::run_dir::{read_overrides, run_paths};
use minnow_train::{Evaluate, Evaluation, Progress, Registry};
use std::path::{Path, PathBuf};

/// `eval TASK`: which agent, and what to change of its evaluation.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct EvalArgs {
    /// The task whose agent is evaluated.
    pub task: String,
    /// The run directory or a checkpoint file (default: runs/TASK).
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Games (episodes, positions) per match instead of the task's number.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: Option<u64>,
    /// A JSON file laid over the config the agent was trained with (its
    /// evaluation or search settings; unknown keys are errors).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Keys laid over the config after `--config`: what a program's own
    /// flags set (`{"eval": {"simulations": 800}}`).
    #[arg(skip)]
    pub overrides: serde_json::Value,
}

/// Evaluates the agent `args` names (by default the run in `runs/TASK`
/// under `root`), showing progress on `progress`.
pub fn eval(
    args: &EvalArgs,
    registry: &Registry,
    root: &Path,
    progress: &dyn Progress,
) -> Result<Evaluation, CliError> {
    let task = registry.get(&args.task).ok_or_else(|| CliError::UnknownTask { task: args.task.clone() })?;
    let checkpoint = match &args.checkpoint {
        Some(path) if path.is_dir() => path.join("checkpoint.safetensors"),
        Some(path) => path.clone(),
        None => run_paths(None, root, task.name()).1,
    };
    if !checkpoint.is_file() {
        return Err(CliError::NoAgent { path: checkpoint });
    }
    let mut overrides = read_overrides(args.config.as_deref())?;
    if !args.overrides.is_null() {
        overrides = minnow_train::config::layered(overrides, &args.overrides)
            .map_err(|e| CliError::Usage(format!("eval: the flags' config keys: {e}")))?;
    }
    let request =
        Evaluate { checkpoint: &checkpoint, games: args.games.map(|g| g as usize), overrides: &overrides, progress };
    task.evaluate(&request).map_err(|e| CliError::of_task(task.name(), args.config.as_deref(), e))
}
