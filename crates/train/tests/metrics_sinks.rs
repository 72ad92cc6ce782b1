//! The metrics sinks of a digits-mlp run: every metric and step of
//! metrics.jsonl is found again in the TensorBoard event file, read back
//! by a decoder written here from the TFRecord and protobuf specs (not the
//! library's), and a resumed run's files equal an uninterrupted run's.

use minnow_train::sinks::{EVENT_FILE, JsonLines, TensorBoard};
use minnow_train::supervised::{DigitsConfig, DigitsRun};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn data() -> (minnow_nn::Dataset, minnow_nn::Dataset) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/digits.csv.gz");
    minnow_train::load_digits(&root).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minnow-sinks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Trains `config` in `dir` (resuming from its checkpoint if `resume`),
/// with both sinks.
fn train(dir: &Path, config: &DigitsConfig, resume: bool) {
    let (train, test) = data();
    let checkpoint = dir.join("checkpoint.safetensors");
    let mut run = if resume {
        DigitsRun::resume(config.clone(), train, test, &checkpoint).unwrap()
    } else {
        DigitsRun::new(config.clone(), train, test).unwrap()
    };
    let step = run.step_count();
    let jsonl = JsonLines::open(&dir.join("metrics.jsonl"), step).unwrap();
    let tensorboard = TensorBoard::open(dir, step).unwrap();
    run.run(Some(&checkpoint), &mut (jsonl, tensorboard)).unwrap();
}

/// `(step, tag) -> value` of every line of metrics.jsonl.
fn jsonl_scalars(dir: &Path) -> BTreeMap<(u64, String), Option<f64>> {
    let text = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    let mut scalars = BTreeMap::new();
    for line in text.lines() {
        let serde_json::Value::Object(record) = serde_json::from_str(line).unwrap() else { panic!("{line}") };
        let step = record["step"].as_u64().unwrap();
        for (tag, value) in record.iter().filter(|(tag, _)| *tag != "step") {
            assert!(scalars.insert((step, tag.clone()), value.as_f64()).is_none(), "{tag} twice at step {step}");
        }
    }
    scalars
}

// ---- An independent reader of event files. ----

/// Bit-at-a-time CRC-32C (polynomial 0x1EDC6F41, reflected).
fn crc32c_bitwise(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82f6_3b78 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

fn masked(bytes: &[u8]) -> u32 {
    let crc = crc32c_bitwise(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

fn varint(data: &[u8], at: &mut usize) -> u64 {
    let mut value = 0;
    let mut shift = 0;
    loop {
        let byte = data[*at];
        *at += 1;
        value |= ((byte & 0x7f) as u64) << shift;
        if byte < 0x80 {
            return value;
        }
        shift += 7;
    }
}

/// The fields of a protobuf message: (field number, wire type, payload).
fn fields(data: &[u8]) -> Vec<(u64, u64, &[u8])> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < data.len() {
        let key = varint(data, &mut at);
        let (field, wire) = (key >> 3, key & 7);
        let start = at;
        let payload = match wire {
            0 => {
                varint(data, &mut at);
                &data[start..at]
            }
            1 => {
                at += 8;
                &data[start..at]
            }
            2 => {
                let len = varint(data, &mut at) as usize;
                at += len;
                &data[at - len..at]
            }
            5 => {
                at += 4;
                &data[start..at]
            }
            _ => panic!("wire type {wire}"),
        };
        out.push((field, wire, payload));
    }
    out
}

struct ReadEvent {
    wall_time: f64,
    step: u64,
    file_version: Option<String>,
    scalars: Vec<(String, f32)>,
}

fn read_events(path: &Path) -> Vec<ReadEvent> {
    let bytes = std::fs::read(path).unwrap();
    let mut at = 0;
    let mut events = Vec::new();
    while at < bytes.len() {
        let len_bytes = &bytes[at..at + 8];
        let len = u64::from_le_bytes(len_bytes.try_into().unwrap()) as usize;
        assert_eq!(u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()), masked(len_bytes), "length crc");
        let data = &bytes[at + 12..at + 12 + len];
        let crc = u32::from_le_bytes(bytes[at + 12 + len..at + 16 + len].try_into().unwrap());
        assert_eq!(crc, masked(data), "data crc");
        at += 16 + len;
        let mut event = ReadEvent { wall_time: 0.0, step: 0, file_version: None, scalars: Vec::new() };
        for (field, wire, payload) in fields(data) {
            match (field, wire) {
                (1, 1) => event.wall_time = f64::from_le_bytes(payload.try_into().unwrap()),
                (2, 0) => event.step = varint(payload, &mut 0),
                (3, 2) => event.file_version = Some(String::from_utf8(payload.to_vec()).unwrap()),
                (5, 2) => {
                    for (_, _, value) in fields(payload).into_iter().filter(|f| f.0 == 1) {
                        let mut tag = String::new();
                        let mut simple = None;
                        for (field, wire, payload) in fields(value) {
                            match (field, wire) {
                                (1, 2) => tag = String::from_utf8(payload.to_vec()).unwrap(),
                                (2, 5) => simple = Some(f32::from_le_bytes(payload.try_into().unwrap())),
                                other => panic!("unexpected Summary.Value field {other:?}"),
                            }
                        }
                        event.scalars.push((tag, simple.expect("a simple_value")));
                    }
                }
                other => panic!("unexpected Event field {other:?}"),
            }
        }
        events.push(event);
    }
    events
}

fn event_scalars(dir: &Path) -> BTreeMap<(u64, String), f32> {
    let events = read_events(&dir.join(EVENT_FILE));
    assert_eq!(events[0].file_version.as_deref(), Some("brain.Event:2"));
    let mut scalars = BTreeMap::new();
    for event in &events[1..] {
        assert!(event.wall_time > 1.6e9, "wall time {}", event.wall_time);
        for (tag, value) in &event.scalars {
            assert!(scalars.insert((event.step, tag.clone()), *value).is_none(), "{tag} twice at {}", event.step);
        }
    }
    scalars
}

fn assert_same(jsonl: &BTreeMap<(u64, String), Option<f64>>, events: &BTreeMap<(u64, String), f32>) {
    assert_eq!(jsonl.keys().collect::<Vec<_>>(), events.keys().collect::<Vec<_>>());
    for (key, value) in jsonl {
        let event = events[key];
        match value {
            Some(v) => assert_eq!(event, *v as f32, "{key:?}"),
            None => assert!(event.is_nan(), "{key:?}"),
        }
    }
}

#[test]
fn tensorboard_holds_every_metric_and_step_of_metrics_jsonl() {
    let config = DigitsConfig { steps: 120, eval_every: 40, checkpoint_every: 50, ..DigitsConfig::default() };
    let dir = scratch("straight");
    train(&dir, &config, false);
    let jsonl = jsonl_scalars(&dir);
    // 120 losses and 3 evaluations.
    assert_eq!(jsonl.len(), 123);
    assert!(jsonl.contains_key(&(120, "test_accuracy".to_string())));
    assert_same(&jsonl, &event_scalars(&dir));

    // A run that checkpointed at step 40, logged on to step 80 and then
    // lost everything after its checkpoint (as in a crash) resumes from
    // step 40: both files end up holding exactly the uninterrupted run's.
    let split = scratch("resumed");
    let checkpoint = split.join("checkpoint.safetensors");
    train(&split, &DigitsConfig { steps: 40, ..config.clone() }, false);
    std::fs::copy(&checkpoint, split.join("at-40")).unwrap();
    train(&split, &DigitsConfig { steps: 80, ..config.clone() }, true);
    assert!(jsonl_scalars(&split).contains_key(&(80, "loss".to_string())));
    std::fs::rename(split.join("at-40"), &checkpoint).unwrap();
    train(&split, &config, true);
    assert_eq!(jsonl_scalars(&split), jsonl);
    assert_same(&jsonl_scalars(&split), &event_scalars(&split));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&split);
}
