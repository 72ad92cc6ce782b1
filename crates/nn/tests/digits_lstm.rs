//! The digits LSTM learns: trained from a fixed seed on 1437 8x8 digits,
//! it classifies the 360 held-out ones; and its training step, once warmed
//! up, allocates nothing.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_nn::{Batches, Dataset, DigitsLstm, DigitsLstmConfig, Params, Tape};
use minnow_optim::{Adam, AdamConfig, Optimizer};
use rand::SeedableRng;
use std::io::BufReader;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const BATCH: usize = 32;
const EPOCHS: usize = 20;
const LR: f32 = 1e-2;

fn digits() -> Dataset {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/digits.csv.gz");
    let file = std::fs::File::open(path).unwrap();
    let gz = flate2::read::GzDecoder::new(file);
    let mut data = Dataset::from_csv(BufReader::new(gz), 64, 10).unwrap();
    data.scale(1.0 / 16.0);
    data
}

struct Trainer {
    model: DigitsLstm,
    params: Params,
    adam: Adam,
    tape: Tape,
    x: Vec<f32>,
    y: Vec<u32>,
}

impl Trainer {
    fn new(seed: u64) -> Self {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut params = Params::new();
        let model = DigitsLstmConfig { hidden: 64 }.init(&mut params, "digits", &mut rng).unwrap();
        let adam = AdamConfig { lr: LR, ..AdamConfig::default() }.build(&params).unwrap();
        Self { model, params, adam, tape: Tape::new(), x: vec![0.0; BATCH * 64], y: vec![0; BATCH] }
    }

    /// One step on the batch in `x`, `y`; returns the loss.
    fn step(&mut self) -> f32 {
        self.params.zero_grads();
        let loss = {
            let mut g = self.tape.graph(&mut self.params);
            let x = g.input(&[BATCH, 64], &self.x).unwrap();
            let logits = self.model.forward(&mut g, x).unwrap();
            let loss = g.cross_entropy(logits, &self.y, None).unwrap();
            g.backward(loss).unwrap();
            g.scalar(loss)
        };
        self.adam.step(&mut self.params).unwrap();
        loss
    }

    fn accuracy(&mut self, data: &Dataset) -> f64 {
        let mut g = self.tape.inference(&self.params);
        let x = g.input(&[data.len(), 64], &data.features).unwrap();
        let logits = self.model.forward(&mut g, x).unwrap();
        let correct = g
            .value(logits)
            .chunks(10)
            .zip(&data.labels)
            .filter(|(row, label)| {
                let best = (0..10).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap();
                best == **label as usize
            })
            .count();
        correct as f64 / data.len() as f64
    }
}

#[test]
fn digits_lstm_reaches_95_percent_on_held_out_digits() {
    let start = std::time::Instant::now();
    let (train, test) = digits().split(|i| i % 5 == 0);
    let mut trainer = Trainer::new(7);
    let mut batches = Batches::new(train.len(), BATCH, 7).unwrap();
    let mut accuracy = 0.0;
    for epoch in 0..EPOCHS {
        // Cosine decay over the epochs settles the last ones.
        let progress = epoch as f32 / EPOCHS as f32;
        trainer.adam.set_lr(LR * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()));
        let mut total = 0.0;
        for _ in 0..batches.per_epoch() {
            batches.next_into(&train, &mut trainer.x, &mut trainer.y);
            total += trainer.step();
        }
        accuracy = trainer.accuracy(&test);
        eprintln!(
            "epoch {epoch}: loss {:.4}, test accuracy {accuracy:.4} ({:.1?})",
            total / batches.per_epoch() as f32,
            start.elapsed()
        );
    }
    assert!(accuracy >= 0.95, "test accuracy {accuracy}");
}

#[test]
fn a_warmed_up_training_step_allocates_nothing() {
    let data = digits();
    let mut trainer = Trainer::new(1);
    let mut batches = Batches::new(data.len(), BATCH, 1).unwrap();
    let mut step = || {
        batches.next_into(&data, &mut trainer.x, &mut trainer.y);
        trainer.step()
    };
    for _ in 0..3 {
        step();
    }
    // Per thread: the other test of this binary runs concurrently.
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..10 {
            step();
        }
    });
    assert_eq!(on_thread.allocations, 0, "{} bytes allocated on this thread", on_thread.bytes);
}
