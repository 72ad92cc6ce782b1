//! Whether a file or directory a run writes is still where the run put
//! it. Writes into a file whose directory was deleted or moved succeed,
//! into a file nobody will find, and a new file written by its path would
//! make the directory again, holding that file alone: so a run checks its
//! paths before it counts on them.

use crate::{Result, TrainError};
use std::path::Path;

/// What a path named when the run opened it: a device and an inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inode {
    dev: u64,
    ino: u64,
}

impl Inode {
    /// The inode `metadata` describes (on a system without inodes, one
    /// that only says the file exists).
    pub fn of(metadata: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Self { dev: metadata.dev(), ino: metadata.ino() }
        }
        #[cfg(not(unix))]
        {
            let _ = metadata;
            Self { dev: 0, ino: 0 }
        }
    }

    /// The inode at `path` now, if anything is there.
    pub fn at(path: &Path) -> Option<Self> {
        std::fs::metadata(path).ok().map(|m| Self::of(&m))
    }

    /// Refuses a run directory `dir` that no longer names this inode:
    /// deleted, or moved (a directory made again in its place is another).
    pub fn check_dir(self, dir: &Path) -> Result<()> {
        if Self::at(dir) == Some(self) { Ok(()) } else { Err(TrainError::RunDirGone { dir: dir.to_path_buf() }) }
    }
}
