//! Metrics as TensorBoard event files, so `tensorboard --logdir runs/`
//! shows every run's scalars.
//!
//! An event file is a sequence of TFRecords (`u64` length, masked CRC-32C
//! of the length, the bytes, masked CRC-32C of the bytes; little-endian),
//! each holding one protobuf `Event`. The first event carries
//! `file_version = "brain.Event:2"`; each later one carries `wall_time`,
//! `step` and a `Summary` with one `simple_value` per metric, tagged with
//! the metric's name. The few protobuf fields are encoded here by hand:
//! the crates that write event files pull in a whole protobuf toolchain
//! (and image encoders) for these five fields.

use super::appended::{self, AppendFile, Appended};
use super::crc32c;
use crate::{Event, Observer, Result, TrainError};
use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The event file's name inside the run directory (TensorBoard reads every
/// file whose name contains `tfevents`).
pub const EVENT_FILE: &str = "events.out.tfevents.minnow";

const FILE_VERSION: &str = "brain.Event:2";

// Protobuf keys: (field number << 3) | wire type.
const EVENT_WALL_TIME: u8 = 1 << 3 | 1; // double
const EVENT_STEP: u8 = 2 << 3; // int64, varint
const EVENT_FILE_VERSION: u8 = 3 << 3 | 2; // string
const EVENT_SUMMARY: u8 = 5 << 3 | 2; // Summary
const SUMMARY_VALUE: u8 = 1 << 3 | 2; // repeated Summary.Value
const VALUE_TAG: u8 = 1 << 3 | 2; // string
const VALUE_SIMPLE_VALUE: u8 = 2 << 3 | 5; // float

/// An event file being appended to.
#[derive(Debug)]
pub struct TensorBoard {
    file: AppendFile,
    event: Vec<u8>,
    summary: Vec<u8>,
    /// The event framed as a record.
    record: Vec<u8>,
}

impl TensorBoard {
    /// Opens the event file in `dir` for a run at `step`: a new run (step
    /// 0) starts a new file; a resumed run keeps only the events up to its
    /// checkpoint's step, rewritten through a temporary file.
    pub fn open(dir: &Path, step: u64) -> Result<Self> {
        let path = dir.join(EVENT_FILE);
        let mut bytes = Vec::new();
        match std::fs::read(&path) {
            Ok(old) if step > 0 => {
                for (i, record) in records(&old).enumerate() {
                    let data = match record {
                        Ok(data) => data,
                        // A crash while appending leaves a torn last record: drop it.
                        Err(detail) if detail.starts_with("truncated") => break,
                        Err(detail) => return Err(TrainError::CorruptEvents { path, record: i, detail }),
                    };
                    if event_step(data).is_some_and(|s| s <= step) {
                        frame(data, &mut bytes).expect("writing to a Vec cannot fail");
                    }
                }
            }
            _ => {
                let mut event = Vec::new();
                put_key(&mut event, EVENT_WALL_TIME);
                event.extend_from_slice(&wall_time().to_le_bytes());
                put_string(&mut event, EVENT_FILE_VERSION, FILE_VERSION);
                frame(&event, &mut bytes).expect("writing to a Vec cannot fail");
            }
        }
        minnow_nn::write_atomically(&path, &bytes)?;
        Ok(Self { file: AppendFile::open(&path, step)?, event: Vec::new(), summary: Vec::new(), record: Vec::new() })
    }

    /// Where the events go.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

impl Appended for TensorBoard {
    /// One event with a scalar per metric.
    fn record(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> (&mut AppendFile, &[u8]) {
        self.summary.clear();
        for (name, value) in metrics {
            let value_len = 1 + varint_len(name.len() as u64) + name.len() + 1 + 4;
            put_key(&mut self.summary, SUMMARY_VALUE);
            put_varint(&mut self.summary, value_len as u64);
            put_string(&mut self.summary, VALUE_TAG, name);
            put_key(&mut self.summary, VALUE_SIMPLE_VALUE);
            self.summary.extend_from_slice(&(*value as f32).to_le_bytes());
        }
        self.event.clear();
        put_key(&mut self.event, EVENT_WALL_TIME);
        self.event.extend_from_slice(&wall_time().to_le_bytes());
        put_key(&mut self.event, EVENT_STEP);
        put_varint(&mut self.event, step);
        put_key(&mut self.event, EVENT_SUMMARY);
        put_varint(&mut self.event, self.summary.len() as u64);
        self.event.extend_from_slice(&self.summary);
        self.record.clear();
        frame(&self.event, &mut self.record).expect("writing to a Vec cannot fail");
        (&mut self.file, &self.record)
    }

    fn file(&mut self) -> &mut AppendFile {
        &mut self.file
    }
}

impl Observer for TensorBoard {
    fn observe(&mut self, event: Event<'_>) -> Result<()> {
        // TensorBoard reloads files as they grow: a checkpoint flushes.
        appended::observe(self, event)
    }

    fn persist(&mut self) -> Result<()> {
        self.file.sync()
    }
}

fn wall_time() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// TFRecord's checksum: CRC-32C rotated and offset, so that checksums of
/// data holding checksums stay well spread.
fn masked_crc(bytes: &[u8]) -> u32 {
    let crc = crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// Writes one TFRecord holding `data`.
fn frame(data: &[u8], out: &mut impl Write) -> std::io::Result<()> {
    let len = (data.len() as u64).to_le_bytes();
    out.write_all(&len)?;
    out.write_all(&masked_crc(&len).to_le_bytes())?;
    out.write_all(data)?;
    out.write_all(&masked_crc(data).to_le_bytes())
}

/// The records of an event file, each checked against its checksums.
fn records(mut bytes: &[u8]) -> impl Iterator<Item = Result<&[u8], String>> {
    std::iter::from_fn(move || {
        if bytes.is_empty() {
            return None;
        }
        let result = (|| {
            let header = bytes.get(..12).ok_or("truncated header")?;
            let len = u64::from_le_bytes(header[..8].try_into().expect("8 bytes")) as usize;
            if u32::from_le_bytes(header[8..].try_into().expect("4 bytes")) != masked_crc(&header[..8]) {
                return Err("length checksum mismatch".to_string());
            }
            let end = len.checked_add(16).filter(|&end| end <= bytes.len()).ok_or("truncated record")?;
            let data = &bytes[12..12 + len];
            if u32::from_le_bytes(bytes[12 + len..end].try_into().expect("4 bytes")) != masked_crc(data) {
                return Err("data checksum mismatch".to_string());
            }
            bytes = &bytes[end..];
            Ok(data)
        })();
        if result.is_err() {
            bytes = &[];
        }
        Some(result)
    })
}

/// The `step` of an encoded `Event` (0 when absent, as protobuf defaults);
/// `None` if the message is malformed.
fn event_step(mut data: &[u8]) -> Option<u64> {
    let mut step = 0;
    while let Some(&key) = data.first() {
        data = &data[1..];
        match key & 7 {
            0 => {
                let value = take_varint(&mut data)?;
                if key == EVENT_STEP {
                    step = value;
                }
            }
            1 => data = data.get(8..)?,
            2 => {
                let len = take_varint(&mut data)? as usize;
                data = data.get(len..)?;
            }
            5 => data = data.get(4..)?,
            _ => return None,
        }
    }
    Some(step)
}

fn take_varint(data: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = data.split_first()?;
        *data = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn put_key(out: &mut Vec<u8>, key: u8) {
    out.push(key);
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn varint_len(value: u64) -> usize {
    (64 - value.max(1).leading_zeros() as usize).div_ceil(7)
}

fn put_string(out: &mut Vec<u8>, key: u8, text: &str) {
    put_key(out, key);
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_measure() {
        for value in [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(out.len(), varint_len(value), "{value}");
            assert_eq!(take_varint(&mut out.as_slice()), Some(value));
        }
    }

    #[test]
    fn a_torn_last_record_is_dropped_on_resume() {
        let dir = std::env::temp_dir().join(format!("minnow-torn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut sink = TensorBoard::open(&dir, 0).unwrap();
        for step in 1..=3 {
            sink.observe(Event::Step { step, total: 3, metrics: &[("loss", step as f64)] }).unwrap();
        }
        sink.persist().unwrap();
        let path = dir.join(EVENT_FILE);
        let whole = std::fs::read(&path).unwrap();
        std::fs::write(&path, &whole[..whole.len() - 5]).unwrap();
        drop(TensorBoard::open(&dir, 2).unwrap());
        let steps: Vec<u64> =
            records(&std::fs::read(&path).unwrap()).map(|r| event_step(r.unwrap()).unwrap()).collect();
        assert_eq!(steps, [0, 1, 2]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_flipped_byte_is_caught() {
        let mut bytes = Vec::new();
        frame(b"hello", &mut bytes).unwrap();
        assert_eq!(records(&bytes).collect::<Vec<_>>(), vec![Ok(&b"hello"[..])]);
        bytes[14] ^= 1;
        assert_eq!(records(&bytes).next(), Some(Err("data checksum mismatch".to_string())));
        assert_eq!(records(&bytes[..10]).next(), Some(Err("truncated header".to_string())));
    }
}
