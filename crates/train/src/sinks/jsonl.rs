//! Metrics as JSON lines: `{"step":250,"test_accuracy":0.96}` per step or
//! evaluation, metrics in the order the run reported them, non-finite
//! values as `null`.

use super::appended::{self, AppendFile, Appended};
use crate::{Event, Observer, Result, TrainError};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// A metrics file being appended to.
#[derive(Debug)]
pub struct JsonLines {
    file: AppendFile,
    kept: Vec<serde_json::Value>,
    line: Vec<u8>,
}

impl JsonLines {
    /// Opens `path` for a run at `step`: a new run (step 0) starts an empty
    /// file; a resumed run keeps only the lines up to its checkpoint's step
    /// (what came after is about to be redone). The kept lines are
    /// rewritten to a temporary file that replaces the old one, so a kill
    /// at any moment leaves one or the other whole: no line up to `step`
    /// is ever lost.
    pub fn open(path: &Path, step: u64) -> Result<Self> {
        let mut kept = Vec::new();
        let mut text = String::new();
        if step > 0
            && let Ok(file) = File::open(path)
        {
            for line in BufReader::new(file).lines() {
                let line = line.map_err(TrainError::io(path))?;
                // A line torn by a crash parses as nothing and goes.
                let value: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                if value["step"].as_u64().is_some_and(|s| s <= step) {
                    text.push_str(&line);
                    text.push('\n');
                    kept.push(value);
                }
            }
        }
        minnow_nn::write_atomically(path, text.as_bytes())?;
        Ok(Self { file: AppendFile::open(path, step)?, kept, line: Vec::new() })
    }

    /// The records kept from before the resume, oldest first.
    pub fn kept(&self) -> &[serde_json::Value] {
        &self.kept
    }

    /// Where the metrics go.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

impl Appended for JsonLines {
    /// One line.
    fn record(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> (&mut AppendFile, &[u8]) {
        const INFALLIBLE: &str = "writing to a Vec cannot fail";
        self.line.clear();
        write!(self.line, "{{\"step\":{step}").expect(INFALLIBLE);
        for (name, value) in metrics {
            // serde_json escapes the name and writes a non-finite value as null.
            self.line.push(b',');
            serde_json::to_writer(&mut self.line, name).expect(INFALLIBLE);
            self.line.push(b':');
            serde_json::to_writer(&mut self.line, value).expect(INFALLIBLE);
        }
        self.line.extend_from_slice(b"}\n");
        (&mut self.file, &self.line)
    }

    fn file(&mut self) -> &mut AppendFile {
        &mut self.file
    }
}

impl Observer for JsonLines {
    fn observe(&mut self, event: Event<'_>) -> Result<()> {
        appended::observe(self, event)
    }

    fn persist(&mut self) -> Result<()> {
        self.file.sync()
    }
}

#[cfg(test)]
mod tests {
    use super::super::appended::FLUSH_AFTER;
    use super::*;

    #[test]
    fn lines_are_json_with_non_finite_values_as_null() {
        let dir = std::env::temp_dir().join(format!("minnow-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("metrics.jsonl");
        let mut sink = JsonLines::open(&path, 0).unwrap();
        let metrics = [("loss", 0.25), ("odd \"name\"", f64::NAN), ("big", f64::INFINITY)];
        sink.observe(Event::Eval { step: 7, metrics: &metrics }).unwrap();
        sink.persist().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "{\"step\":7,\"loss\":0.25,\"odd \\\"name\\\"\":null,\"big\":null}\n");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["odd \"name\""], serde_json::Value::Null);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A record a second or more after the last flush reaches the file
    /// with those before it, no checkpoint needed: a run is watched live.
    #[test]
    fn a_record_a_second_after_the_last_flush_reaches_the_file() {
        let dir = std::env::temp_dir().join(format!("minnow-jsonl-live-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("metrics.jsonl");
        let mut sink = JsonLines::open(&path, 0).unwrap();
        let step = |step| Event::Eval { step, metrics: &[("loss", 0.5)] };
        sink.observe(step(1)).unwrap();
        let lines = || std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(lines(), 0, "buffered, not written one by one");
        std::thread::sleep(FLUSH_AFTER);
        sink.observe(step(2)).unwrap();
        assert_eq!(lines(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file made immutable (`chattr +i`) under a live sink: the failed
    /// write is reported with the file and the system's words, and nothing
    /// more reaches the file, not even what was buffered.
    #[test]
    fn a_refused_write_is_reported_and_nothing_is_written_after_it() {
        let dir = std::env::temp_dir().join(format!("minnow-jsonl-refused-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("metrics.jsonl");
        let chattr =
            |flag| std::process::Command::new("chattr").arg(flag).arg(&path).status().is_ok_and(|s| s.success());
        let mut sink = JsonLines::open(&path, 0).unwrap();
        let eval = |step| Event::Eval { step, metrics: &[("loss", 0.5)] };
        sink.observe(eval(1)).unwrap();
        sink.persist().unwrap();
        if !chattr("+i") {
            eprintln!("skipped: `chattr +i` needs root and an ext2/3/4 file system under {}", dir.display());
            return std::fs::remove_dir_all(&dir).unwrap();
        }
        sink.observe(eval(2)).unwrap();
        let refused = sink.persist().unwrap_err().to_string();
        let after = sink.observe(eval(3)).unwrap_err().to_string();
        chattr("-i");
        drop(sink);
        let named = format!("{}: Operation not permitted (os error 1): ", path.display());
        assert!(refused.starts_with(&named) && refused.contains("at step 2"), "{refused}");
        assert!(after.contains("an earlier write to it failed"), "{after}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"step\":1,\"loss\":0.5}\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
