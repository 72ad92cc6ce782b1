//! The digits MLP learns, and a resumed run is bit-identical to an
//! uninterrupted one.

use minnow_nn::testing::ScratchDir;
use minnow_train::load_digits;
use minnow_train::supervised::{DigitsConfig, DigitsRun, Split};
use std::path::Path;

fn data() -> (minnow_nn::Dataset, minnow_nn::Dataset) {
    load_digits(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/digits.csv.gz")).unwrap()
}

#[test]
fn mlp_reaches_97_percent_test_accuracy() {
    let (train, test) = data();
    let mut run = DigitsRun::new(DigitsConfig::default(), train, test).unwrap();
    let summary = run.run(None, &mut ()).unwrap();
    assert!(summary.test_accuracy >= 0.97, "{summary:?}");
}

#[test]
fn cnn_reaches_98_percent_test_accuracy() {
    let (train, test) = data();
    let mut run = DigitsRun::new(DigitsConfig::cnn(), train, test).unwrap();
    let summary = run.run(None, &mut ()).unwrap();
    assert!(summary.test_accuracy >= 0.98, "{summary:?}");
}

#[test]
fn lstm_reaches_95_percent_test_accuracy() {
    let (train, test) = data();
    let mut run = DigitsRun::new(DigitsConfig::lstm(), train, test).unwrap();
    let summary = run.run(None, &mut ()).unwrap();
    assert!(summary.test_accuracy >= 0.95, "{summary:?}");
}

#[test]
fn resuming_from_a_checkpoint_is_exact() {
    let config = DigitsConfig { steps: 120, batch: 16, ..DigitsConfig::default() };
    let (train, test) = data();
    let mut straight = DigitsRun::new(config.clone(), train.clone(), test.clone()).unwrap();
    straight.run(None, &mut ()).unwrap();

    let dir = ScratchDir::new("resume");
    let path = dir.join("ckpt.safetensors");
    let mut first = DigitsRun::new(DigitsConfig { steps: 50, ..config.clone() }, train.clone(), test.clone()).unwrap();
    first.run(Some(&path), &mut ()).unwrap();
    drop(first);
    let mut resumed = DigitsRun::resume(config.clone(), train.clone(), test.clone(), &path).unwrap();
    assert_eq!(resumed.step_count(), 50);
    resumed.run(None, &mut ()).unwrap();
    assert_eq!(resumed.params().values(), straight.params().values(), "resumed parameters differ");
    assert_eq!(resumed.accuracy(Split::Test).unwrap(), straight.accuracy(Split::Test).unwrap());

    let other = DigitsConfig { lr: 0.01, ..config };
    let err = DigitsRun::resume(other, train, test, &path).unwrap_err();
    assert!(err.to_string().contains("lr = 0.001, this run is lr = 0.01"), "{err}");
}

#[test]
fn bad_configs_are_refused() {
    let (train, test) = data();
    let err =
        DigitsRun::new(DigitsConfig { hidden: 0, ..DigitsConfig::default() }, train.clone(), test.clone()).unwrap_err();
    assert_eq!(err.to_string(), "DigitsConfig.hidden: expected a width > 0, found 0");
    let err = DigitsRun::new(DigitsConfig { lr: f32::NAN, ..DigitsConfig::default() }, train, test).unwrap_err();
    assert!(err.to_string().contains("lr: expected a finite rate > 0, found NaN"), "{err}");
    let err = serde_json::from_str::<DigitsConfig>(r#"{"hiden": 3}"#).unwrap_err();
    assert!(err.to_string().contains("unknown field `hiden`"), "{err}");
}

#[test]
fn checkpoints_of_another_layout_or_task_are_refused_by_name() {
    let (train, test) = data();
    let dir = std::env::temp_dir().join(format!("minnow-layout-{}", std::process::id()));
    let config = DigitsConfig { steps: 2, ..DigitsConfig::default() };

    // The layout written before the run checkpoint: no format tag.
    let old = dir.join("old.safetensors");
    minnow_nn::CheckpointWriter::new().meta("task", "digits").meta("step", "2").save(&old).unwrap();
    let err = DigitsRun::resume(config.clone(), train.clone(), test.clone(), &old).unwrap_err().to_string();
    assert!(err.contains("format 'minnow-run/1', found no format tag"), "{err}");

    let other = dir.join("other.safetensors");
    minnow_nn::CheckpointWriter::new().meta("format", "minnow-run/1").meta("task", "dqn-cube").save(&other).unwrap();
    let err = DigitsRun::resume(config.clone(), train.clone(), test.clone(), &other).unwrap_err().to_string();
    assert!(err.contains("the checkpoint is of task 'dqn-cube', expected 'digits'"), "{err}");

    // A missing optimiser tensor is named.
    let path = dir.join("run.safetensors");
    let mut run = DigitsRun::new(config.clone(), train.clone(), test.clone()).unwrap();
    run.run(Some(&path), &mut ()).unwrap();
    let saved = minnow_nn::Checkpoint::load(&path).unwrap();
    let mut writer = minnow_nn::CheckpointWriter::new();
    for name in saved.names().filter(|n| *n != "optimizer.adam.v.mlp.0.weight") {
        writer = writer.tensor(name, saved.shape(name).unwrap().dims(), saved.tensor(name).unwrap());
    }
    for key in ["format", "task", "config_identity", "step", "batches", "counter.optimizer.step_count"] {
        writer = writer.meta(key, saved.meta(key).unwrap());
    }
    writer.save(&path).unwrap();
    let err = DigitsRun::resume(config, train, test, &path).unwrap_err().to_string();
    assert!(err.contains("optimizer.adam.v.mlp.0.weight"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
