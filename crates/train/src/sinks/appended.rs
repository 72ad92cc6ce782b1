//! What both metrics files share: a file appended to record by record,
//! flushed at each checkpoint and with the first record a second or more
//! after the last flush, so a reader (`tail -f`, TensorBoard, a live page)
//! sees it grow step by step without a write per record; synced when the
//! run persists. Every write is checked: a record that cannot be
//! written is history lost, so the error stops the run (the driver
//! returns it) before a checkpoint gets ahead of the file.

use super::Inode;
use crate::{Event, Result, TrainError};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long records gather in the buffer before one pushes them out.
pub(super) const FLUSH_AFTER: Duration = Duration::from_secs(1);

/// A metrics file: how one step's or evaluation's metrics become a record,
/// and the file they are appended to.
pub(super) trait Appended {
    /// Encodes the record of `metrics` at `step`: the file it goes to and
    /// its bytes.
    fn record(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> (&mut AppendFile, &[u8]);

    /// The file records go to.
    fn file(&mut self) -> &mut AppendFile;
}

/// An observer's `observe` for a metrics file.
pub(super) fn observe(sink: &mut impl Appended, event: Event<'_>) -> Result<()> {
    match event {
        Event::Step { step, metrics, .. } | Event::Eval { step, metrics } => {
            let (file, record) = sink.record(step, metrics);
            file.append(step, record)
        }
        Event::Checkpoint { .. } => sink.file().flush(),
    }
}

/// A file opened for appending, its writes buffered and checked.
#[derive(Debug)]
pub(super) struct AppendFile {
    path: PathBuf,
    /// `None` once a write failed: nothing more goes to the file, not even
    /// what was buffered (a record written after a torn one could make the
    /// file unreadable past it).
    file: Option<BufWriter<File>>,
    /// The step of the last record appended.
    step: u64,
    /// When the buffer was last pushed to the file.
    flushed: Instant,
    /// The file's own inode and its directory's, as opened.
    inode: Inode,
    dir: Inode,
}

impl AppendFile {
    /// Opens `path`, which exists, to append records after `step`.
    pub(super) fn open(path: &Path, step: u64) -> Result<Self> {
        let file = std::fs::OpenOptions::new().append(true).open(path).map_err(TrainError::io(path))?;
        let inode = Inode::of(&file.metadata().map_err(TrainError::io(path))?);
        let dir = Inode::at(parent(path)).ok_or_else(|| TrainError::RunDirGone { dir: parent(path).to_path_buf() })?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Some(BufWriter::new(file)),
            step,
            flushed: Instant::now(),
            inode,
            dir,
        })
    }

    /// Where the records go.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `record`, the record of `step`.
    pub(super) fn append(&mut self, step: u64, record: &[u8]) -> Result<()> {
        self.step = step;
        self.io(|file| file.write_all(record))?;
        if self.flushed.elapsed() >= FLUSH_AFTER {
            self.flush()?;
        }
        Ok(())
    }

    /// Pushes buffered records to the file.
    pub(super) fn flush(&mut self) -> Result<()> {
        self.flushed = Instant::now();
        self.io(BufWriter::flush)
    }

    /// Pushes buffered records to the file and the file to the disk, and
    /// makes sure the file is still where the run put it: one whose
    /// directory was deleted or moved takes writes that nobody will read.
    pub(super) fn sync(&mut self) -> Result<()> {
        self.flushed = Instant::now();
        self.io(|file| file.flush().and_then(|()| file.get_ref().sync_data()))?;
        self.dir.check_dir(parent(&self.path))?;
        if Inode::at(&self.path) != Some(self.inode) {
            let error = std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the file was deleted, moved or replaced while the run was writing to it",
            );
            return Err(TrainError::History { path: self.path.clone(), step: self.step, error });
        }
        Ok(())
    }

    /// Runs `write` on the file; on an error, drops what is buffered and
    /// refuses every later write.
    fn io(&mut self, write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> Result<()> {
        let failed = |path: &Path, step, error| TrainError::History { path: path.to_path_buf(), step, error };
        let Some(file) = &mut self.file else {
            let error = std::io::Error::other("an earlier write to it failed");
            return Err(failed(&self.path, self.step, error));
        };
        let Err(error) = write(file) else { return Ok(()) };
        // `into_parts` hands back the buffer unwritten, where dropping the
        // writer would try to write it.
        drop(self.file.take().map(BufWriter::into_parts));
        Err(failed(&self.path, self.step, error))
    }
}

/// The directory `path` is in.
fn parent(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}
