//! The flags of `train`.

use std::path::PathBuf;

/// `train [TASK]`: what to train, from which config, into which directory.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TrainArgs {
    /// The task to train (default: the registry's default). `list` shows them all.
    pub task: Option<String>,
    /// A JSON file overriding the task's default config (unknown keys are errors).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Where metrics, the plot and checkpoints go (default: runs/TASK).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue from the checkpoint in --out.
    #[arg(long)]
    pub resume: bool,
    /// The run's seed (overrides the config's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Train for this many steps (overrides the config's).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Train each seed of FIRST..LAST in turn and print a table row per
    /// seed (writes nothing), for a task that has a seed sweep.
    #[arg(long, value_name = "FIRST..LAST")]
    pub sweep_seeds: Option<String>,
    /// With --sweep-seeds: stop after the first seed that meets the task's target.
    #[arg(long)]
    pub until_first: bool,
    /// Train as one rank of an MPI job (`mpirun -np K ...`; also detected
    /// from the launcher), for a task that trains distributed (`train
    /// list` says how each does). Needs a build with `--features mpi`.
    #[arg(long)]
    pub distributed: bool,
}
