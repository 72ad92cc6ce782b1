//! A run's directory: where it is, checked against `--resume`, locked
//! while the run lives, and cleaned of what a killed run left half-written.

use crate::error::{CliError, LOCK_FILE};
use std::path::{Path, PathBuf};

/// A run's directory (`out`, or `runs/NAME` under `root`) and its
/// checkpoint's path, as they are: nothing checked or created.
pub fn run_paths(out: Option<&Path>, root: &Path, name: &str) -> (PathBuf, PathBuf) {
    let out = out.map(Path::to_path_buf).unwrap_or_else(|| root.join("runs").join(name));
    let checkpoint = out.join("checkpoint.safetensors");
    (out, checkpoint)
}

/// The run directory `out`, created if missing, once the flags agree with
/// what it holds: `resume` needs a checkpoint there, a new run refuses one.
/// The directory is locked for the rest of the process (a second live run
/// into it is refused) and temporary files a killed run left are removed.
pub fn open_run_dir(out: &Path, checkpoint: &Path, resume: bool) -> Result<(), CliError> {
    std::fs::create_dir_all(out).map_err(|e| in_the_way(out).unwrap_or_else(|| CliError::io(out)(e)))?;
    lock(out)?;
    for entry in std::fs::read_dir(out).map_err(CliError::io(out))?.flatten() {
        if entry.file_name().to_string_lossy().ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    match (resume, checkpoint.exists()) {
        (true, false) => Err(CliError::NoCheckpoint { path: checkpoint.to_path_buf() }),
        (false, true) => Err(CliError::RunExists { out: out.to_path_buf() }),
        _ => Ok(()),
    }
}

/// Why `out` cannot be made a directory, when a path in it is in the way:
/// the nearest one that exists is a file, or a symbolic link to nothing
/// (where the system says only "File exists").
fn in_the_way(out: &Path) -> Option<CliError> {
    let bad = |detail: String| Some(CliError::BadOut { out: out.to_path_buf(), detail });
    for path in out.ancestors().filter(|p| !p.as_os_str().is_empty()) {
        let Ok(meta) = std::fs::symlink_metadata(path) else { continue };
        let shown = path.display();
        if meta.file_type().is_symlink() && !path.exists() {
            let target = std::fs::read_link(path).unwrap_or_default();
            let target = target.display();
            return bad(format!(
                "{shown} is a symbolic link to {target}, which does not exist; make {target}, or pass another --out"
            ));
        }
        return if path.is_dir() {
            None
        } else {
            bad(format!("{shown} is a file, not a directory; pass another --out"))
        };
    }
    None
}

/// Takes `out`'s advisory lock until the process ends (again, harmlessly,
/// if this process already holds it: a test may train and then resume).
fn lock(out: &Path) -> Result<(), CliError> {
    static HELD: std::sync::Mutex<Vec<(PathBuf, std::fs::File)>> = std::sync::Mutex::new(Vec::new());
    let path = out.join(LOCK_FILE);
    let key = std::fs::canonicalize(out).map_err(CliError::io(out))?;
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if held.iter().any(|(p, _)| *p == key) {
        return Ok(());
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(CliError::io(&path))?;
    match file.try_lock() {
        Ok(()) => {
            held.push((key, file));
            Ok(())
        }
        Err(std::fs::TryLockError::WouldBlock) => Err(CliError::RunLocked { out: out.to_path_buf() }),
        Err(std::fs::TryLockError::Error(e)) => Err(CliError::io(&path)(e)),
    }
}

/// Writes `text` to `path` atomically.
pub fn write_text(path: &Path, text: &str) -> Result<(), CliError> {
    minnow_nn::write_atomically(path, text.as_bytes()).map_err(|e| match e {
        minnow_nn::NnError::Io { kind, detail, .. } => CliError::io(path)(std::io::Error::new(kind, detail)),
        e => CliError::io(path)(std::io::Error::other(e.to_string())),
    })
}

/// Reads a `--config` file: a JSON object of config keys.
pub fn read_overrides(path: Option<&Path>) -> Result<serde_json::Value, CliError> {
    let Some(path) = path else { return Ok(serde_json::Value::Object(Default::default())) };
    let text = read_config_text(path)?;
    let refused = |source| CliError::Config { path: path.to_path_buf(), line: None, source };
    let value = minnow_train::config::parse_strict(&text).map_err(refused)?;
    if !value.is_object() {
        return Err(refused(serde::de::Error::custom("expected a JSON object of config keys")));
    }
    Ok(value)
}

/// A config file's text, refused unread past
/// [`MAX_FILE_BYTES`](minnow_train::config::MAX_FILE_BYTES).
fn read_config_text(path: &Path) -> Result<String, CliError> {
    use std::io::Read;
    let limit = minnow_train::config::MAX_FILE_BYTES;
    let file = std::fs::File::open(path).map_err(CliError::io(path))?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(CliError::io(path))?;
    let too_large = format!("a config file holds at most {limit} bytes; this one holds more");
    let refused = |detail: String| CliError::Config {
        path: path.to_path_buf(),
        line: None,
        source: serde::de::Error::custom(detail),
    };
    if bytes.len() as u64 > limit {
        return Err(refused(too_large));
    }
    String::from_utf8(bytes).map_err(|e| refused(format!("not UTF-8 text: {e}")))
}

#[cfg(test)]
mod tests {
    use super::read_overrides;
    use crate::{CliError, chain};

    #[test]
    fn a_config_file_that_cannot_be_read_is_named_with_its_cause() {
        let missing = std::path::Path::new("/nonexistent/minnow-config.json");
        let e = read_overrides(Some(missing)).unwrap_err();
        assert!(matches!(&e, CliError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound));
        assert!(chain(&e).starts_with("/nonexistent/minnow-config.json: "), "{}", chain(&e));

        let path = std::env::temp_dir().join(format!("minnow-cli-config-{}.json", std::process::id()));
        let cases = [
            ("[1, 2]", "expected a JSON object of config keys"),
            ("{\"a\": ", "EOF while parsing"),
            ("{\"lr\": 0.1,\n \"lr\": 0.01}", "duplicate key `lr` at line 2"),
        ];
        for (text, want) in cases {
            std::fs::write(&path, text).unwrap();
            let chain = chain(&read_overrides(Some(&path)).unwrap_err());
            assert!(chain.starts_with(&format!("--config {}: {want}", path.display())), "{chain}");
        }
        std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
        let text = chain(&read_overrides(Some(&path)).unwrap_err());
        assert!(text.contains("not UTF-8 text"), "{text}");
        // Not read whole past the cap: a mistaken data file, or /dev/zero.
        std::fs::write(&path, vec![b' '; minnow_train::config::MAX_FILE_BYTES as usize + 1]).unwrap();
        let text = chain(&read_overrides(Some(&path)).unwrap_err());
        assert!(text.contains("a config file holds at most 1048576 bytes"), "{text}");
        std::fs::remove_file(&path).unwrap();
    }
}
