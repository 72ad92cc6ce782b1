//! The trained agents shipped in `agents/`: each task's default run, its
//! weights alone, beside a model card (`agents/TASK/README.md`). `play`,
//! `eval` and `solve` use them when no `--checkpoint` is given;
//! `cargo xtask ship TASK` writes one from a run.

use clap::Args;
use minnow_train::RunCheckpoint;
use std::path::{Path, PathBuf};

/// The tasks whose agents ship, and the tensors that are the agent.
const SHIPPED: &[(&str, &[&str])] = &[
    ("az-connect4", &["model."]),
    ("az-backgammon", &["model."]),
    ("td-backgammon", &[crate::td_task::WEIGHTS]),
    ("cube-solver", &["online."]),
    ("logic-ca", &["kept."]),
];

#[derive(Args, Debug)]
pub struct ShipArgs {
    /// The task whose run becomes the shipped agent: az-connect4,
    /// az-backgammon, td-backgammon, cube-solver or logic-ca.
    task: String,
    /// The run directory (or its checkpoint.safetensors file); default
    /// runs/TASK.
    #[arg(long)]
    from: Option<PathBuf>,
}

/// The shipped agent of `task`.
pub fn shipped(task: &str) -> PathBuf {
    crate::workspace_root().join("agents").join(task).join("agent.safetensors")
}

/// The checkpoint file a command reads: `--checkpoint` as given (a run
/// directory holds `checkpoint.safetensors`), or else the agent shipped
/// for `task`; an error says how to get one when none ships.
pub fn checkpoint_or_shipped(arg: Option<&Path>, task: &str) -> Result<PathBuf, String> {
    match arg {
        Some(path) if path.is_dir() => Ok(path.join("checkpoint.safetensors")),
        Some(path) => Ok(path.to_path_buf()),
        None if shipped(task).exists() => Ok(shipped(task)),
        None => Err(format!(
            "no --checkpoint given and no {task} agent ships in {}: train one with \
             `cargo xtask train {task}`, then pass --checkpoint runs/{task}",
            shipped(task).display()
        )),
    }
}

pub fn run(args: ShipArgs) -> Result<(), String> {
    let Some((task, keep)) = SHIPPED.iter().find(|(name, _)| *name == args.task) else {
        let names: Vec<&str> = SHIPPED.iter().map(|(name, _)| *name).collect();
        return Err(format!("ship: no agent ships for task '{}'; expected one of {}", args.task, names.join(", ")));
    };
    let from = args.from.unwrap_or_else(|| crate::workspace_root().join("runs").join(task));
    let from = checkpoint_or_shipped(Some(&from), task)?;
    let run = RunCheckpoint::read(&from, task).map_err(|e| format!("--from {}: {e}", from.display()))?;
    let out = shipped(task);
    std::fs::create_dir_all(out.parent().expect("a file in agents/TASK"))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let kept = run.write_agent(keep, &out).map_err(|e| e.to_string())?;
    let bytes = std::fs::metadata(&out).map_err(|e| format!("{}: {e}", out.display()))?.len();
    println!("{}: {kept} tensors of {} at step {}, {bytes} bytes", out.display(), from.display(), run.step().map_err(|e| e.to_string())?);
    Ok(())
}
