//! What both metrics files share: a file appended to record by record,
//! flushed at each checkpoint (so a reader sees it grow) and synced when
//! the run persists. A lost record must not stop training, so write
//! errors are dropped here.

use crate::Event;
use std::fs::File;
use std::io::{BufWriter, Write};

/// A metrics file: how one step's or evaluation's metrics become a record,
/// and the file they are appended to.
pub(super) trait Appended {
    /// Appends the record of `metrics` at `step`.
    fn append(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> std::io::Result<()>;

    /// The file records go to.
    fn file(&mut self) -> &mut BufWriter<File>;

    /// Pushes buffered records to the file and the file to the disk.
    fn sync(&mut self) -> std::io::Result<()> {
        let file = self.file();
        file.flush()?;
        file.get_ref().sync_data()
    }
}

/// An observer's `observe` for a metrics file.
pub(super) fn observe(sink: &mut impl Appended, event: Event<'_>) {
    let _ = match event {
        Event::Step { step, metrics, .. } | Event::Eval { step, metrics } => sink.append(step, metrics),
        Event::Checkpoint { .. } => sink.file().flush(),
    };
}

/// An observer's `persist` for a metrics file.
pub(super) fn persist(sink: &mut impl Appended) {
    let _ = sink.sync();
}
