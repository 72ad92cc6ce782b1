//! Checkpoints in the safetensors format: parameters by their module-tree
//! names, any other named state (optimiser moments, replay statistics) as
//! ordinary f32 tensors, byte (U8) tensors for codes their owner packs
//! (a sparse table's positions), and string metadata (step, config, RNG
//! state).
//!
//! Writing goes to a temporary file that is synced and then renamed over
//! the old checkpoint, so a crash at any moment leaves either the previous
//! checkpoint or the new one, never a torn file. A tensor holding NaN or an
//! infinity is refused on both sides: writing fails before the file is
//! touched, so the last good checkpoint stays. Reading validates
//! everything (header, dtypes, shapes, lengths, finite values, and the
//! content checksum of every tensor and metadata value) and returns an
//! error naming the first problem; a corrupt or truncated file never
//! panics.

use crate::checksum::ContentHash;
use crate::{NnError, Params, Result};
use minnow_tensor::Shape;
use safetensors::tensor::{Dtype, TensorView};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The metadata key of the content checksum: 16 hex digits of
/// `ContentHash` over every tensor (by name: name, shape, bytes) and
/// every other metadata entry (by key). A file without it (written before
/// it existed) still loads.
pub const CHECKSUM_KEY: &str = "checksum";

/// The content checksum of a checkpoint's tensors and metadata.
fn checksum<'a>(
    tensors: impl Iterator<Item = (&'a str, &'a [usize], &'a [u8])>,
    metadata: &HashMap<String, String>,
) -> u64 {
    let mut tensors: Vec<_> = tensors.collect();
    tensors.sort_unstable_by_key(|t| t.0);
    let mut hash = ContentHash::new();
    for (name, dims, bytes) in tensors {
        let dims: Vec<u8> = dims.iter().flat_map(|&d| (d as u64).to_le_bytes()).collect();
        hash.bytes(name.as_bytes()).bytes(&dims).bytes(bytes);
    }
    let mut entries: Vec<_> = metadata.iter().filter(|(k, _)| *k != CHECKSUM_KEY).collect();
    entries.sort_unstable();
    for (key, value) in entries {
        hash.bytes(key.as_bytes()).bytes(value.as_bytes());
    }
    hash.finish()
}

/// A checkpoint being assembled: named tensors and metadata.
#[derive(Debug, Default)]
pub struct CheckpointWriter {
    /// Name, dtype (F32 or U8), dims and little-endian bytes.
    tensors: Vec<(String, Dtype, Vec<usize>, Vec<u8>)>,
    metadata: HashMap<String, String>,
    /// The first tensor added with a non-finite value: `save` refuses it.
    non_finite: Option<NnError>,
}

impl CheckpointWriter {
    /// An empty checkpoint.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every parameter and buffer of the store, under its name.
    pub fn params(self, params: &Params) -> Self {
        self.params_prefixed("", params)
    }

    /// Every parameter and buffer of the store, under `prefix.` + its name
    /// (a second network, such as a DQN target network); an empty prefix
    /// adds none.
    pub fn params_prefixed(mut self, prefix: &str, params: &Params) -> Self {
        for id in params.ids() {
            self = self.tensor(&prefixed(prefix, params.name(id)), params.shape(id).dims(), params.value(id));
        }
        for id in params.buffer_ids() {
            let name = prefixed(prefix, params.buffer_name(id));
            self = self.tensor(&name, params.buffer_shape(id).dims(), params.buffer(id));
        }
        self
    }

    /// Adds a tensor of shape `dims`.
    pub fn tensor(mut self, name: &str, dims: &[usize], values: &[f32]) -> Self {
        if self.non_finite.is_none() {
            self.non_finite = non_finite(name, values);
        }
        self.tensors.push((name.to_string(), Dtype::F32, dims.to_vec(), bytemuck_f32(values)));
        self
    }

    /// Adds a tensor of bytes (dtype U8) of shape `dims`: codes that their
    /// owner packs and checks (a sparse table's position gaps), a quarter
    /// of the size they would take as f32.
    pub fn bytes(mut self, name: &str, dims: &[usize], values: &[u8]) -> Self {
        self.tensors.push((name.to_string(), Dtype::U8, dims.to_vec(), values.to_vec()));
        self
    }

    /// Adds a metadata string.
    pub fn meta(mut self, key: &str, value: impl Into<String>) -> Self {
        self.metadata.insert(key.to_string(), value.into());
        self
    }

    /// Writes `path` atomically: temporary file, fsync, rename, fsync of
    /// the directory ([`write_atomically`]).
    pub fn save(self, path: &Path) -> Result<()> {
        write_atomically(path, &self.into_bytes()?)
    }

    /// The file's bytes, as [`save`](Self::save) writes them.
    pub fn into_bytes(self) -> Result<Vec<u8>> {
        if let Some(error) = self.non_finite {
            return Err(error);
        }
        let mut metadata = self.metadata;
        let sum = checksum(self.tensors.iter().map(|(n, _, d, b)| (n.as_str(), d.as_slice(), b.as_slice())), &metadata);
        metadata.insert(CHECKSUM_KEY.to_string(), format!("{sum:016x}"));
        let views = self
            .tensors
            .iter()
            .map(|(name, dtype, dims, bytes)| {
                TensorView::new(*dtype, dims.clone(), bytes)
                    .map(|view| (name.clone(), view))
                    .map_err(|e| NnError::CorruptCheckpoint { detail: format!("tensor '{name}': {e}") })
            })
            .collect::<Result<Vec<_>>>()?;
        safetensors::serialize(views, Some(metadata)).map_err(|e| NnError::CorruptCheckpoint { detail: e.to_string() })
    }
}

/// `prefix.name`, or `name` without a prefix.
fn prefixed(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_string() } else { format!("{prefix}.{name}") }
}

/// The error for the first NaN or infinity in `values`, if any.
fn non_finite(name: &str, values: &[f32]) -> Option<NnError> {
    let index = values.iter().position(|v| !v.is_finite())?;
    Some(NnError::NonFinite { name: name.to_string(), index, value: values[index] })
}

fn bytemuck_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn io_error(path: &Path, e: std::io::Error) -> NnError {
    NnError::io(path, &e)
}

/// Writes `bytes` to `path` so that a crash at any moment leaves the old
/// file or the new one whole: a temporary file beside it (`.NAME.tmp`),
/// synced, renamed over `path`, and the directory synced. The directory is
/// made if missing.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = dir_of(path);
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    replace_atomically(path, bytes)
}

/// [`write_atomically`] into a directory that must exist: one deleted or
/// moved since its owner made it is an error (`NotFound`: the temporary
/// file cannot be made there), never made again holding this file alone.
pub fn replace_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = dir_of(path);
    let tmp: PathBuf = dir.join(format!(".{}.tmp", path.file_name().and_then(|n| n.to_str()).unwrap_or("checkpoint")));
    let mut file = std::fs::File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    file.write_all(bytes).and_then(|_| file.sync_all()).map_err(|e| io_error(&tmp, e))?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))?;
    // The rename is durable once the directory entry is.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The directory `path` is in.
fn dir_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// A tensor's values as read: f32, or bytes for codes their owner packs.
#[derive(Debug, Clone)]
enum Values {
    F32(Vec<f32>),
    U8(Vec<u8>),
}

/// A checkpoint read back: every tensor decoded and checked.
#[derive(Debug, Clone, Default)]
pub struct Checkpoint {
    tensors: BTreeMap<String, (Shape, Values)>,
    metadata: HashMap<String, String>,
}

impl Checkpoint {
    /// Reads and validates a checkpoint file.
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
        Self::from_bytes(&bytes).map_err(|e| match e {
            NnError::CorruptCheckpoint { detail } => {
                NnError::CorruptCheckpoint { detail: format!("{}: {detail}", path.display()) }
            }
            other => other,
        })
    }

    /// Decodes safetensors bytes; f32 and U8 tensors are accepted.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let corrupt = |detail: String| NnError::CorruptCheckpoint { detail };
        let (_, header) = safetensors::SafeTensors::read_metadata(bytes).map_err(|e| corrupt(e.to_string()))?;
        let file = safetensors::SafeTensors::deserialize(bytes).map_err(|e| corrupt(e.to_string()))?;
        let metadata = header.metadata().clone().unwrap_or_default();
        let views = file.tensors();
        if let Some(stored) = metadata.get(CHECKSUM_KEY) {
            let stored = u64::from_str_radix(stored, 16).ok().filter(|_| stored.len() == 16).ok_or_else(|| {
                corrupt(format!("metadata '{CHECKSUM_KEY}': expected 16 hex digits, found '{stored}'"))
            })?;
            let computed = checksum(views.iter().map(|(n, v)| (n.as_str(), v.shape(), v.data())), &metadata);
            if computed != stored {
                return Err(corrupt(format!(
                    "the content does not match its checksum (stored {stored:016x}, computed {computed:016x})"
                )));
            }
        }
        let mut tensors = BTreeMap::new();
        for (name, view) in views {
            let width = match view.dtype() {
                Dtype::F32 => 4,
                Dtype::U8 => 1,
                other => return Err(corrupt(format!("tensor '{name}' has dtype {other:?}, expected F32 or U8"))),
            };
            let shape = Shape::new(view.shape()).map_err(|e| corrupt(format!("tensor '{name}': {e}")))?;
            let data = view.data();
            if Some(data.len()) != shape.numel().checked_mul(width) {
                return Err(corrupt(format!("tensor '{name}' has {} bytes for shape {shape}", data.len())));
            }
            let values = if width == 1 {
                Values::U8(data.to_vec())
            } else {
                let values: Vec<f32> =
                    data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
                if let Some(error) = non_finite(&name, &values) {
                    return Err(error);
                }
                Values::F32(values)
            };
            tensors.insert(name, (shape, values));
        }
        Ok(Self { tensors, metadata })
    }

    /// The values of the f32 tensor `name`, if saved.
    pub fn tensor(&self, name: &str) -> Option<&[f32]> {
        match self.tensors.get(name) {
            Some((_, Values::F32(values))) => Some(values),
            _ => None,
        }
    }

    /// The bytes of the U8 tensor `name`, if saved.
    pub fn bytes(&self, name: &str) -> Option<&[u8]> {
        match self.tensors.get(name) {
            Some((_, Values::U8(bytes))) => Some(bytes),
            _ => None,
        }
    }

    /// The shape of tensor `name`, if saved.
    pub fn shape(&self, name: &str) -> Option<Shape> {
        self.tensors.get(name).map(|(s, _)| *s)
    }

    /// Every tensor name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    /// Every metadata entry, sorted by key.
    pub fn metadata(&self) -> Vec<(&str, &str)> {
        let mut entries: Vec<_> = self.metadata.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        entries.sort_unstable();
        entries
    }

    /// A writer holding the same tensors and metadata but those named in
    /// `leave_out` (the checksum is computed anew on saving): to copy a
    /// checkpoint with changes.
    pub fn rewrite(&self, leave_out: &[&str]) -> CheckpointWriter {
        let mut writer = CheckpointWriter::new();
        for (name, (shape, values)) in self.tensors.iter().filter(|(n, _)| !leave_out.contains(&n.as_str())) {
            writer = match values {
                Values::F32(values) => writer.tensor(name, shape.dims(), values),
                Values::U8(bytes) => writer.bytes(name, shape.dims(), bytes),
            };
        }
        for (key, value) in &self.metadata {
            if key != CHECKSUM_KEY && !leave_out.contains(&key.as_str()) {
                writer = writer.meta(key, value.clone());
            }
        }
        writer
    }

    /// The metadata value of `key`, if saved.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).map(String::as_str)
    }

    /// A metadata value, or an error naming the missing key.
    pub fn require_meta(&self, key: &str) -> Result<&str> {
        self.meta(key).ok_or_else(|| NnError::MissingMeta { key: key.to_string() })
    }

    /// Copies every parameter and buffer of `params` from the checkpoint.
    /// Checks all names and shapes first, so on an error (naming the first
    /// mismatch) nothing has been overwritten.
    pub fn restore_params(&self, params: &mut Params) -> Result<()> {
        self.restore_prefixed("", params)
    }

    /// As `restore_params`, for tensors saved under `prefix.`.
    pub fn restore_prefixed(&self, prefix: &str, params: &mut Params) -> Result<()> {
        let key = |name: &str| prefixed(prefix, name);
        let wanted = params.ids().map(|id| (params.name(id), params.shape(id)));
        let buffers = params.buffer_ids().map(|id| (params.buffer_name(id), params.buffer_shape(id)));
        for (name, expected) in wanted.chain(buffers) {
            let name = key(name);
            match self.tensors.get(&name) {
                None => return Err(NnError::MissingTensor { name }),
                Some((_, Values::U8(_))) => return Err(NnError::TensorDtype { name, expected: "F32", found: "U8" }),
                Some((shape, _)) if *shape != expected => {
                    return Err(NnError::TensorShape { name, expected, found: *shape });
                }
                Some(_) => {}
            }
        }
        let values = |name: &str| self.tensor(&key(name)).expect("checked above: an f32 tensor of this name");
        for id in params.ids() {
            let saved = values(params.name(id));
            params.value_mut(id).copy_from_slice(saved);
        }
        for id in params.buffer_ids() {
            let saved = values(params.buffer_name(id));
            params.buffer_mut(id).copy_from_slice(saved);
        }
        Ok(())
    }
}
