//! Strategies for property tests of code that reads checkpoints: the
//! values a hostile user would put in a checkpoint's metadata.

use crate::{CHECKSUM_KEY, Checkpoint};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Values for a metadata key whose saved value is `original`: empty,
/// huge, negative, not a number, JSON of the wrong shape, arbitrary text,
/// and the saved value with one digit replaced by a number or one
/// character by any other.
pub fn crafted_value(original: String) -> impl Strategy<Value = String> {
    let (digit_edited, char_edited) = (original.clone(), original.clone());
    prop_oneof![
        Just(String::new()),
        Just("18446744073709551616".to_string()),
        Just("-1".to_string()),
        Just("NaN".to_string()),
        Just("{}".to_string()),
        Just("[]".to_string()),
        Just("null".to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        "\\PC{0,40}",
        // A length, an index or a counter inside the state changed.
        (any::<usize>(), 0u64..100_000).prop_map(move |(at, n)| {
            let digits: Vec<usize> =
                digit_edited.char_indices().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
            match digits.get(at % digits.len().max(1)) {
                Some(&i) => format!("{}{n}{}", &digit_edited[..i], &digit_edited[i + 1..]),
                None => n.to_string(),
            }
        }),
        (any::<usize>(), any::<char>()).prop_map(move |(at, c)| {
            let mut chars: Vec<char> = char_edited.chars().collect();
            match chars.len() {
                0 => chars.push(c),
                len => chars[at % len] = c,
            }
            chars.into_iter().collect()
        }),
    ]
}

/// A metadata key of `saved` (its checksum apart) and a crafted value
/// for it ([`crafted_value`]).
pub fn crafted_metadata(saved: &'static Checkpoint) -> impl Strategy<Value = (String, String)> {
    let keys: Vec<String> = saved.metadata().iter().map(|(k, _)| k.to_string()).filter(|k| k != CHECKSUM_KEY).collect();
    proptest::sample::select(keys).prop_flat_map(move |key| {
        let original = saved.meta(&key).unwrap_or_default().to_string();
        (Just(key), crafted_value(original))
    })
}

/// Writes `saved` with its metadata `key` set to `value` into `dir` and
/// returns the file's path.
pub fn write_crafted(saved: &Checkpoint, key: &str, value: String, dir: &Path) -> PathBuf {
    let path = dir.join("crafted.safetensors");
    saved.rewrite(&[key]).meta(key, value).save(&path).expect("the scratch directory is writable");
    path
}

/// A temporary directory of one test or one property-test case
/// (`minnow-NAME-PID-N`, so cases running side by side never share one),
/// removed with everything in it when dropped.
#[derive(Debug)]
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Creates a fresh directory named after `name`.
    pub fn new(name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("minnow-{name}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
        Self(dir)
    }
}

impl std::ops::Deref for ScratchDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The generator tests seed: `Pcg64Mcg` from `seed`.
pub fn rng(seed: u64) -> rand_pcg::Pcg64Mcg {
    use rand::SeedableRng;
    rand_pcg::Pcg64Mcg::seed_from_u64(seed)
}

/// `len` deterministic inputs in [-1, 1), different for each `seed`.
pub fn inputs(len: usize, seed: u64) -> Vec<f32> {
    (0..len).map(|i| ((i as u64 * 7919 + seed * 104_729) % 2003) as f32 / 1001.5 - 1.0).collect()
}

/// The values' bit patterns, to compare floats exactly (NaN included).
pub fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}
