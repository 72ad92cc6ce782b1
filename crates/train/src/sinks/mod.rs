//! Where metrics go: a JSON-lines file and TensorBoard event files. Both
//! are observers, and both drop what a resumed run is about to redo.

mod appended;
mod crc32c;
mod inode;
mod jsonl;
mod tensorboard;

pub use crc32c::crc32c;
pub use inode::Inode;
pub use jsonl::JsonLines;
pub use tensorboard::{EVENT_FILE, TensorBoard};
