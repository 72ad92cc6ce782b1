//! Metrics as JSON lines: `{"step":250,"test_accuracy":0.96}` per step or
//! evaluation, metrics in the order the run reported them, non-finite
//! values as `null`.

use super::appended::{self, Appended};
use crate::{Event, Observer, Result, TrainError};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A metrics file being appended to.
#[derive(Debug)]
pub struct JsonLines {
    path: PathBuf,
    file: BufWriter<File>,
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
        let file = std::fs::OpenOptions::new().append(true).open(path).map_err(TrainError::io(path))?;
        Ok(Self { path: path.to_path_buf(), file: BufWriter::new(file), kept, line: Vec::new() })
    }

    /// The records kept from before the resume, oldest first.
    pub fn kept(&self) -> &[serde_json::Value] {
        &self.kept
    }

    /// Where the metrics go.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Appended for JsonLines {
    /// Appends one line.
    fn append(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> std::io::Result<()> {
        self.line.clear();
        write!(self.line, "{{\"step\":{step}")?;
        for (name, value) in metrics {
            // serde_json escapes the name and writes a non-finite value as null.
            self.line.push(b',');
            serde_json::to_writer(&mut self.line, name)?;
            self.line.push(b':');
            serde_json::to_writer(&mut self.line, value)?;
        }
        self.line.extend_from_slice(b"}\n");
        self.file.write_all(&self.line)
    }

    fn file(&mut self) -> &mut BufWriter<File> {
        &mut self.file
    }
}

impl Observer for JsonLines {
    fn observe(&mut self, event: Event<'_>) {
        appended::observe(self, event);
    }

    fn persist(&mut self) {
        appended::persist(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_json_with_non_finite_values_as_null() {
        let dir = std::env::temp_dir().join(format!("minnow-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("metrics.jsonl");
        let mut sink = JsonLines::open(&path, 0).unwrap();
        sink.append(7, &[("loss", 0.25), ("odd \"name\"", f64::NAN), ("big", f64::INFINITY)]).unwrap();
        sink.sync().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "{\"step\":7,\"loss\":0.25,\"odd \\\"name\\\"\":null,\"big\":null}\n");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["odd \"name\""], serde_json::Value::Null);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
