//! A run's `metrics.jsonl` as it grows: each poll reads from the byte
//! offset the last one reached, at most [`MAX_CHUNK`] bytes and only
//! whole lines, so a page following a long run never re-reads the file.

use crate::error::{ApiError, ApiResult};
use crate::input;
use axum::Json;
use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most bytes one poll reads; a longer backlog comes in later polls.
pub const MAX_CHUNK: u64 = 1 << 20;

/// `GET /api/metrics?run=DIR&offset=N`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsQuery {
    /// The run directory.
    run: String,
    /// Bytes already read (0 at first).
    #[serde(default)]
    offset: u64,
}

/// New lines since `offset`.
#[derive(Debug, Serialize)]
pub struct MetricsChunk {
    /// Where the next poll starts.
    offset: u64,
    /// The file's size now.
    size: u64,
    /// The file is shorter than the offset asked from (a resumed run
    /// rewrote it): these lines start again at its beginning.
    restarted: bool,
    /// The lines, each `{"step": N, "name": value, ..}`.
    lines: Vec<serde_json::Value>,
    /// Lines that were not JSON objects, skipped.
    skipped: usize,
}

pub async fn poll(query: Result<Query<MetricsQuery>, QueryRejection>) -> ApiResult<Json<MetricsChunk>> {
    let query = input::query(query)?;
    let chunk = tokio::task::spawn_blocking(move || read_from(Path::new(&query.run), query.offset))
        .await
        .map_err(|e| ApiError::internal(format!("reading metrics: {e}")))??;
    Ok(Json(chunk))
}

/// The whole lines of `run/metrics.jsonl` from `offset`, at most
/// [`MAX_CHUNK`] bytes of them.
pub fn read_from(run: &Path, offset: u64) -> ApiResult<MetricsChunk> {
    if run.as_os_str().is_empty() {
        return Err(ApiError::malformed("run: empty, expected a run directory"));
    }
    if !run.is_dir() {
        return Err(ApiError::missing(format!("no run directory at {}", run.display())));
    }
    let path = run.join("metrics.jsonl");
    let failed = |e: std::io::Error| ApiError::internal(format!("{}: {e}", path.display()));
    let mut file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ApiError::missing(format!(
                "{} has no metrics.jsonl yet (a run writes it at its first logged step)",
                run.display()
            )));
        }
        Err(e) => return Err(failed(e)),
    };
    let size = file.metadata().map_err(failed)?.len();
    let restarted = offset > size;
    let start = if restarted { 0 } else { offset };
    file.seek(SeekFrom::Start(start)).map_err(failed)?;
    let mut bytes = Vec::new();
    file.take(MAX_CHUNK.min(size - start)).read_to_end(&mut bytes).map_err(failed)?;
    // Only whole lines: a line being written is read by the next poll.
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if whole == 0 && bytes.len() as u64 == MAX_CHUNK {
        return Err(ApiError::refused(format!(
            "{}: a line at byte {start} is longer than {MAX_CHUNK} bytes, not a metrics line",
            path.display()
        )));
    }
    let mut lines = Vec::new();
    let mut skipped = 0;
    for line in bytes[..whole].split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(value) if value.is_object() => lines.push(value),
            _ => skipped += 1,
        }
    }
    Ok(MetricsChunk { offset: start + whole as u64, size, restarted, lines, skipped })
}
