//! Stopping a run cleanly: the first Ctrl-C or SIGTERM should finish the
//! step under way and write a checkpoint, not lose everything since the
//! last one. The front end's signal handler calls [`request_stop`]; the
//! running [`drive`](crate::drive) sees it after its step, checkpoints and
//! returns [`TrainError::Stopped`](crate::TrainError::Stopped).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static DRIVING: AtomicUsize = AtomicUsize::new(0);

/// Asks every running driver to stop after its current step. Returns
/// whether one is running to do so; if not, the request is dropped (a
/// later run starts normally) and the caller should exit at once.
pub fn request_stop() -> bool {
    let driving = DRIVING.load(Ordering::SeqCst) > 0;
    if driving {
        REQUESTED.store(true, Ordering::SeqCst);
    }
    driving
}

/// Like [`request_stop`], but a request made while no driver runs is
/// held for the next one, which stops after its first step. For signals
/// that must never kill the process: SIGUSR1 under `mpirun` (a scheduler
/// may send it while the job is still starting up). Returns whether a
/// driver was running.
pub fn request_stop_held() -> bool {
    REQUESTED.store(true, Ordering::SeqCst);
    DRIVING.load(Ordering::SeqCst) > 0
}

/// Whether a stop was requested.
pub fn stop_requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Marks a driver as running while it lives: [`drive`](crate::drive)
/// holds one, so the first signal asks it to stop ([`stop_requested`])
/// rather than kill the process.
#[derive(Debug)]
pub(crate) struct Driving;

impl Driving {
    /// Counts a driver as running until the value drops.
    pub(crate) fn start() -> Self {
        DRIVING.fetch_add(1, Ordering::SeqCst);
        Self
    }
}

impl Drop for Driving {
    fn drop(&mut self) {
        // The last driver to return has answered the request: a later run
        // in the same process starts afresh.
        if DRIVING.fetch_sub(1, Ordering::SeqCst) == 1 {
            REQUESTED.store(false, Ordering::SeqCst);
        }
    }
}
