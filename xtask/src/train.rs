//! `cargo xtask train [TASK]`: trains a task end to end.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The task to train; the default task when omitted. `list` lists them.
    task: Option<String>,
    /// A config file overriding the task's defaults.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where metrics, plots and checkpoints go.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue from the last checkpoint in --out.
    #[arg(long)]
    resume: bool,
    /// The run's seed.
    #[arg(long)]
    seed: Option<u64>,
}

/// Every task minnow will train, with the issue that builds it.
const PLANNED: &[(&str, &str)] = &[
    (
        "logic-ca",
        "soft logic-gate cellular automaton, checkerboard (issue 7; the default task)",
    ),
    ("digits-mlp", "MLP on the UCI digits (issue 4)"),
    ("digits-cnn", "Conv2d network on the UCI digits (issue 4)"),
    ("digits-lstm", "LSTM reading digits row by row (issue 4)"),
    ("dqn-cube", "DQN on the 2x2x2 cube (issue 5)"),
    ("dqn-2048", "DQN on 2048 (issue 5)"),
    (
        "az-connect4",
        "AlphaZero-style self-play, connect four (issue 6)",
    ),
    (
        "az-backgammon",
        "AlphaZero-style self-play, backgammon (issue 6)",
    ),
];

pub fn run(args: TrainArgs) -> Result<(), String> {
    let _ = (&args.config, &args.out, args.resume, args.seed);
    let requested = args.task.as_deref().unwrap_or("logic-ca");
    if requested != "list" && !PLANNED.iter().any(|(name, _)| *name == requested) {
        return Err(format!(
            "train: unknown task '{requested}'; `cargo xtask train list` shows the tasks"
        ));
    }
    println!(
        "minnow can train no task yet: the workspace foundation (arena, kernels, tensors) is built,"
    );
    println!("the training engine is next. Tasks, and the issue that builds each:");
    for (name, what) in PLANNED {
        println!("  {name:<14} {what}");
    }
    Ok(())
}
