//! `cargo xtask train [TASK]`: the shipped tasks (`minnow_tasks::registry`)
//! through the library's command line, runs under `runs/` in the
//! workspace.

use crate::error::XtaskError;
use minnow_cli::{CliError, TrainArgs};
use minnow_dist::DistError;

pub fn run(args: TrainArgs) -> Result<(), XtaskError> {
    let registry = minnow_tasks::registry();
    minnow_cli::train(&args, &registry, &crate::workspace_root()).map_err(|e| match e {
        CliError::Dist(e @ DistError::NotCompiled) => {
            let task = args.task.as_deref().unwrap_or(minnow_tasks::DEFAULT_TASK);
            format!("{e} (through cargo: `mpirun -np K cargo xtask-mpi train {task} --distributed`)").into()
        }
        e => e.into(),
    })
}
