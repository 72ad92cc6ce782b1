//! Stopping a run with its checkpoint: the first Ctrl-C (SIGTERM, SIGHUP)
//! or any SIGUSR1 lets the step under way finish and checkpoint; and the
//! process settings every training command starts with.

use std::sync::atomic::{AtomicBool, Ordering};

/// Refuses a `MINNOW_SIMD` that names no level
/// (`minnow_kernels::requested_level`), builds rayon's pool with a main
/// thread's stack on each worker (a one-process run trains on one of
/// them) and flushes subnormal floats to zero on this thread and on the
/// pool's (they take a slow path on x86 and training never needs them;
/// see `minnow_kernels::flush_denormals`), unless
/// `MINNOW_KEEP_DENORMALS=1`. Call it first, before any kernel or
/// parallel work.
pub fn setup() -> Result<(), crate::CliError> {
    minnow_kernels::requested_level()?;
    let flush = std::env::var_os("MINNOW_KEEP_DENORMALS").is_none();
    if flush {
        minnow_kernels::flush_denormals();
    }
    let pool = rayon::ThreadPoolBuilder::new().stack_size(8 << 20).start_handler(move |_| {
        if flush {
            minnow_kernels::flush_denormals();
        }
    });
    // A program that built the pool already keeps its own.
    let _ = pool.build_global();
    Ok(())
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
pub fn stop_on_signal() {
    let first = AtomicBool::new(true);
    let installed = ctrlc::set_handler(move || {
        if RUN_RETURNED.load(Ordering::SeqCst) {
            return;
        }
        let stopping = first.swap(false, Ordering::SeqCst) && minnow_train::request_stop();
        // mpirun sends SIGTERM to every rank when the job is interrupted
        // and when a rank dies; in the second case the ranks wait on the
        // dead one until the launcher kills them, so each says why first.
        let ending = "the launcher is ending the job (interrupted, or a rank failed)";
        match (minnow_dist::launcher_rank(), stopping) {
            (Some(rank), true) => eprintln!(
                "\nrank {rank}: {ending}: stopping after this step with a checkpoint if every rank gets there; if \
                 not, `--resume` continues from the last checkpoint"
            ),
            (None, true) => {
                eprintln!("\nstopping after this step and saving a checkpoint (Ctrl-C again quits at once)")
            }
            (Some(rank), false) => {
                eprintln!("\nrank {rank}: {ending}; `--resume` continues from the last checkpoint");
                std::process::exit(130);
            }
            (None, false) => {
                eprintln!("\ninterrupted");
                std::process::exit(130);
            }
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
