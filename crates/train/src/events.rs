//! What a run tells its front end as it goes.

use crate::Result;
use std::path::Path;

/// One thing that happened in a run, with its metrics.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A training step finished.
    Step {
        /// Steps done, this one included.
        step: u64,
        /// The step at which the run is complete.
        total: u64,
        /// The step's named values (`loss`).
        metrics: &'a [(&'static str, f64)],
    },
    /// An evaluation finished.
    Eval {
        /// Steps done when it ran.
        step: u64,
        /// Its named values, the headline metric first.
        metrics: &'a [(&'static str, f64)],
    },
    /// A checkpoint was written.
    Checkpoint {
        /// The step it saves.
        step: u64,
        /// Where it was written.
        path: &'a Path,
    },
}

/// Receives a run's events (progress bars, metrics files, tests).
///
/// An error from either method (a metrics file that cannot be written)
/// stops the run: [`drive`](crate::drive) returns it at once, before any
/// further checkpoint, so a run never trains on while its history is lost.
pub trait Observer {
    /// Called for each event, in the order they happen.
    fn observe(&mut self, event: Event<'_>) -> Result<()>;

    /// Makes everything observed so far durable (files written and
    /// synced). The driver calls it before writing a checkpoint, so a
    /// metrics history never lags the checkpoint a resume starts from.
    /// An observer that wraps another must pass it on.
    fn persist(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Ignores everything.
impl Observer for () {
    fn observe(&mut self, _: Event<'_>) -> Result<()> {
        Ok(())
    }
}

/// Both observers, in turn (nest pairs for more); the second is not told
/// what the first failed on.
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn observe(&mut self, event: Event<'_>) -> Result<()> {
        self.0.observe(event)?;
        self.1.observe(event)
    }

    fn persist(&mut self) -> Result<()> {
        self.0.persist()?;
        self.1.persist()
    }
}

impl<O: Observer + ?Sized> Observer for &mut O {
    fn observe(&mut self, event: Event<'_>) -> Result<()> {
        (**self).observe(event)
    }

    fn persist(&mut self) -> Result<()> {
        (**self).persist()
    }
}
