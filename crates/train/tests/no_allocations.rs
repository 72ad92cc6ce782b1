//! A warmed-up training step of every digits model allocates nothing,
//! called directly or as the run driver calls it.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_train::supervised::{DigitsConfig, DigitsRun};
use minnow_train::{Metrics, Run, load_digits};
use std::path::Path;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn digits_training_steps_allocate_nothing() {
    let (train, test) = load_digits(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/digits.csv.gz")).unwrap();
    for config in [DigitsConfig::default(), DigitsConfig::cnn(), DigitsConfig::lstm()] {
        let model = config.model;
        let mut run = DigitsRun::new(config, train.clone(), test.clone()).unwrap();
        for _ in 0..3 {
            run.train_step().unwrap();
        }
        let mut metrics = Metrics::with_capacity(8);
        let (_, on_thread, _) = count_allocations(|| {
            for _ in 0..10 {
                run.train_step().unwrap();
                metrics.clear();
                Run::train_step(&mut run, &mut metrics).unwrap();
            }
        });
        assert_eq!(on_thread.allocations, 0, "{model:?}: {} bytes allocated", on_thread.bytes);
    }
}
