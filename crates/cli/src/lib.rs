//! The command line of a task registry. `train TASK` builds the task's
//! config (its preset, a `--config` file laid over it key by key, `--seed`,
//! `--steps`), opens the run directory (exact `--resume`, a lock, atomic
//! files), shows progress, writes `metrics.jsonl`, TensorBoard events, the
//! learning curve and checkpoints, stops cleanly on Ctrl-C or SIGUSR1, and
//! under `mpirun` trains as one rank of a distributed run. `eval TASK`
//! runs the task's own evaluation on a saved agent (a run's checkpoint,
//! `--games`, a `--config` laid over the config it trained with). The
//! shipped tasks (`cargo xtask train`, `cargo xtask eval`) and a
//! program's own go through this same door:
//!
//! ```no_run
//! use minnow_train::Registry;
//!
//! # struct MyTask;
//! # impl minnow_train::Task for MyTask {
//! #     type Config = u64;
//! #     fn name(&self) -> &str { "mine" }
//! #     fn about(&self) -> &str { "mine" }
//! #     fn defaults(&self) -> u64 { 0 }
//! #     fn set_seed(&self, _: &mut u64, _: u64) {}
//! #     fn set_steps(&self, _: &mut u64, _: u64) {}
//! #     fn train(&self, _: &u64, _: &mut dyn minnow_train::Session) -> Result<(), minnow_train::TaskError> { Ok(()) }
//! # }
//! fn main() -> std::process::ExitCode {
//!     // `my-program train mine --steps 500 --out runs/a`, then `... --resume`,
//!     // and `my-program eval mine --checkpoint runs/a` if it evaluates.
//!     minnow_cli::main(Registry::new().with(MyTask))
//! }
//! ```

#![warn(missing_docs)]

mod args;
mod bars;
mod error;
mod eval;
mod front_end;
mod plot;
mod run_dir;
mod session;
mod signals;
mod train;

pub use args::TrainArgs;
pub use bars::Bars;
pub use error::{CliError, chain, exit_on_error};
pub use eval::{EvalArgs, eval};
pub use session::CliSession;
pub use signals::{setup, stop_on_signal};
pub use train::train;

use clap::{Parser, Subcommand};
use minnow_train::Registry;
use std::process::ExitCode;

#[derive(Parser, Debug)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train a task end to end (the default task when none is named).
    Train(TrainArgs),
    /// Evaluate a saved agent the way its task evaluates at the end of training.
    Eval(EvalArgs),
}

/// A program's whole command line over `registry`: parses the arguments,
/// trains, prints any error with its causes and returns the exit code
/// (130 for a run stopped with its checkpoint, as a shell reports Ctrl-C).
/// Runs go to `runs/NAME` under the working directory unless `--out`.
pub fn main(registry: Registry) -> ExitCode {
    let root = std::path::Path::new(".");
    let command = Cli::parse().command;
    if let Err(e) = setup() {
        return exit_code(Err(e));
    }
    match command {
        Command::Train(args) => {
            stop_on_signal();
            exit_code(train(&args, &registry, root))
        }
        Command::Eval(args) => {
            exit_code(eval(&args, &registry, root, &Bars).map(|e| minnow_train::out!("{}", e.table)))
        }
    }
}

/// The exit code of a command's result, its error printed with its causes.
pub fn exit_code(result: Result<(), CliError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => exit_on_error(&e, e.is_stop()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
