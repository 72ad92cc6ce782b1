//! `cargo xtask`: minnow's command line (train, bench, profile, eval, play, solve, serve).

mod agent_args;
mod agents;
mod bench;
mod error;
mod eval;
mod machine;
mod play;
mod play_backgammon;
mod profile;
mod prompt;
mod serve;
mod solve;
mod train;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static ALLOC: minnow_arena::CountingAlloc = minnow_arena::CountingAlloc;

#[derive(Parser, Debug)]
#[command(name = "cargo xtask", about = "minnow: train, benchmark and profile small networks on CPUs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train a task end to end (the default task when none is named).
    Train(minnow_cli::TrainArgs),
    /// Run the workload benchmarks and compare with the previous run.
    Bench(bench::BenchArgs),
    /// A per-op time breakdown of one workload.
    Profile(profile::ProfileArgs),
    /// Evaluate a saved agent against the task's fixed yardsticks.
    Eval(eval::EvalFlags),
    /// Play a saved agent in the terminal (connect4, tictactoe, backgammon).
    Play(play::PlayArgs),
    /// Solve puzzles with a trained cost-to-go and search (`solve cube`).
    Solve(solve::SolveArgs),
    /// The board in the browser on 127.0.0.1: play the agents, see their
    /// analysis, watch a run's curves and a logic CA grow.
    Serve(serve::ServeArgs),
    /// Write a run's trained agent (its weights alone) into agents/TASK,
    /// where play, eval and solve find it without --checkpoint.
    Ship(agents::ShipArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = minnow_cli::setup() {
        return minnow_cli::exit_on_error(&e, false);
    }
    let result: error::Result<()> = match cli.command {
        Command::Train(args) => {
            minnow_cli::stop_on_signal();
            train::run(args)
        }
        Command::Bench(args) => bench::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Eval(args) => eval::run(args).map_err(Into::into),
        Command::Play(args) => play::run(args).map_err(Into::into),
        Command::Solve(args) => solve::run(args),
        Command::Ship(args) => agents::run(args).map_err(Into::into),
        Command::Serve(args) => serve::run(args).map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => minnow_cli::exit_on_error(&e, e.is_stop()),
    }
}

/// The workspace root (xtask lives one level below it).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits inside the workspace").to_path_buf()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
