//! `cargo xtask`: minnow's command line (train, bench, profile, eval, play, solve).

mod agents;
mod az_task;
mod bench;
#[cfg(test)]
mod crafted_resume;
mod cube_eval;
mod cube_puzzle;
mod cube_task;
mod dqn_task;
mod error;
mod eval;
mod logic_render;
mod logic_sweep;
mod logic_task;
mod machine;
mod match_progress;
mod ntuple_task;
mod play;
mod play_backgammon;
mod plot;
mod profile;
mod pubeval_match;
mod solve;
mod td_backgammon;
mod td_task;
mod train;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

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
    Train(train::TrainArgs),
    /// Run the workload benchmarks and compare with the previous run.
    Bench(bench::BenchArgs),
    /// A per-op time breakdown of one workload.
    Profile(profile::ProfileArgs),
    /// Evaluate a saved agent against the task's fixed yardsticks.
    Eval(eval::EvalArgs),
    /// Play a saved agent in the terminal (connect4, tictactoe, backgammon).
    Play(play::PlayArgs),
    /// Solve puzzles with a trained cost-to-go and search (`solve cube`).
    Solve(solve::SolveArgs),
    /// Write a run's trained agent (its weights alone) into agents/TASK,
    /// where play, eval and solve find it without --checkpoint.
    Ship(agents::ShipArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Subnormal floats take a slow path on x86; training never needs them
    // (see minnow_kernels::flush_denormals). MINNOW_KEEP_DENORMALS=1 keeps them.
    // rayon's workers are threads of their own, so each sets it as it starts.
    if std::env::var_os("MINNOW_KEEP_DENORMALS").is_none() {
        minnow_kernels::flush_denormals();
        let pool = rayon::ThreadPoolBuilder::new().start_handler(|_| {
            minnow_kernels::flush_denormals();
        });
        pool.build_global().expect("rayon's pool is built once, before any parallel work");
    }
    let result: error::Result<()> = match cli.command {
        Command::Train(args) => {
            stop_on_signal();
            train::run(args)
        }
        Command::Bench(args) => bench::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Eval(args) => eval::run(args).map_err(Into::into),
        Command::Play(args) => play::run(args).map_err(Into::into),
        Command::Solve(args) => solve::run(args).map_err(Into::into),
        Command::Ship(args) => agents::run(args).map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error::XtaskError::Train(e @ minnow_train::TrainError::Stopped { .. })) => {
            eprintln!("{e}");
            // What a shell reports for a process ended by Ctrl-C.
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {}", e.chain());
            ExitCode::FAILURE
        }
    }
}

static RUN_RETURNED: AtomicBool = AtomicBool::new(false);

/// Marks the run as over, its result decided: the process exits on its
/// own. Under `mpirun`, the first rank to exit with a stopped run's code
/// makes mpirun send SIGTERM to the others, which may still be finalising
/// MPI after the same stop: that signal has nothing left to interrupt.
pub fn run_returned() {
    RUN_RETURNED.store(true, Ordering::SeqCst);
}

/// The first Ctrl-C (or SIGTERM, SIGHUP) lets a run finish its step and
/// write a checkpoint; a second one, or one while nothing can checkpoint,
/// quits at once.
fn stop_on_signal() {
    let first = AtomicBool::new(true);
    let installed = ctrlc::set_handler(move || {
        if RUN_RETURNED.load(Ordering::SeqCst) {
            return;
        }
        if first.swap(false, Ordering::SeqCst) && minnow_train::request_stop() {
            eprintln!("\nstopping after this step and saving a checkpoint (Ctrl-C again quits at once)");
        } else {
            eprintln!("\ninterrupted");
            std::process::exit(130);
        }
    });
    if let Err(e) = installed {
        eprintln!("warning: Ctrl-C will not save a checkpoint: {e}");
    }
    #[cfg(unix)]
    stop_on_usr1();
}

/// SIGUSR1 asks for the same stop as the first Ctrl-C, however often it
/// comes, and one that arrives before training starts is held for it.
/// Under `mpirun` it is the way to stop a job with a checkpoint: mpirun
/// passes SIGUSR1 on to every rank, while on Ctrl-C it sends each rank
/// SIGTERM and a second later SIGKILL.
#[cfg(unix)]
fn stop_on_usr1() {
    use signal_hook::{consts::SIGUSR1, iterator::Signals};
    let mut signals = match Signals::new([SIGUSR1]) {
        Ok(signals) => signals,
        Err(e) => return eprintln!("warning: SIGUSR1 will not save a checkpoint: {e}"),
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if minnow_train::request_stop_held() {
                eprintln!("\nSIGUSR1: stopping after this step and saving a checkpoint");
            } else {
                eprintln!(
                    "\nSIGUSR1: no training step is running; training stops after its next step with a checkpoint"
                );
            }
        }
    });
}

/// The workspace root (xtask lives one level below it).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits inside the workspace").to_path_buf()
}
