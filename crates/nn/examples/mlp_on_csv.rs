//! A two-layer MLP classifies the rows of your CSV file: numbers separated
//! by commas, the class label (0, 1, ...) last, no header. With no
//! argument it reads `data/moons/moons.csv` (two interleaved half circles).
//! A bad row stops it with the line and column to fix. The trained model
//! is saved with its config, rebuilt from the file and run on the held-out
//! rows in one call.
//!
//! `cargo run -p minnow-nn --example mlp_on_csv [-- FILE [CLASSES]]`

use minnow_nn::{Batches, Checkpoint, CheckpointWriter, Dataset, Forward, MlpConfig, Params, Predict, Tape};
use minnow_optim::{AdamConfig, Optimizer};
use rand::SeedableRng;
use std::error::Error;
use std::process::ExitCode;

const BATCH: usize = 32;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/moons/moons.csv").into());
    let classes: usize = args.next().map(|c| c.parse()).transpose()?.unwrap_or(2);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let columns = text.lines().find(|l| !l.trim().is_empty()).map_or(0, |l| l.split(',').count());
    let data = Dataset::from_csv(text.as_bytes(), columns.saturating_sub(1), classes)?;
    // Every fifth row is held out.
    let (train, test) = data.split(|i| i % 5 == 0);
    println!(
        "{path}: {} rows of {} features, {classes} classes ({} to train, {} to test)",
        data.len(),
        data.width,
        train.len(),
        test.len()
    );

    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
    let mut params = Params::new();
    let config = MlpConfig::new(&[data.width, 32, classes]);
    let model = config.init(&mut params, "mlp", &mut rng)?;
    let mut adam = AdamConfig { lr: 1e-2, ..AdamConfig::default() }.build(&params)?;
    let mut batches = Batches::new(train.len(), BATCH.min(train.len()), 0)?;
    let (mut x, mut y) = (vec![0.0; batches.batch_size() * data.width], vec![0; batches.batch_size()]);
    let mut tape = Tape::new();
    for step in 1..=1000 {
        batches.next_into(&train, &mut x, &mut y);
        params.zero_grads();
        let mut g = tape.graph(&mut params);
        let input = g.input_ref(&[y.len(), data.width], &x)?;
        let logits = model.forward(&mut g, input)?;
        let loss = g.cross_entropy(logits, &y, None)?;
        g.backward(loss)?;
        if step % 250 == 0 {
            println!("step {step:4}: loss {:.4}", g.scalar(loss));
        }
        adam.step(&mut params)?;
    }

    // The model and its config in one file, rebuilt from that file alone.
    let path = std::env::temp_dir().join(format!("mlp_on_csv-{}.safetensors", std::process::id()));
    CheckpointWriter::new().model(&config, "mlp", &params).save(&path)?;
    let (model, params) = Checkpoint::load(&path)?.rebuild::<MlpConfig>()?;
    std::fs::remove_file(&path)?;
    let scores = model.predict(&params, &[test.len(), test.width], &test.features)?;
    let right =
        scores.chunks_exact(classes).zip(&test.labels).filter(|(row, label)| argmax(row) == **label as usize).count();
    println!("test accuracy: {right} of {} ({:.1}%)", test.len(), 100.0 * right as f64 / test.len() as f64);
    Ok(())
}

fn argmax(row: &[f32]) -> usize {
    (0..row.len()).fold(0, |best, i| if row[i] > row[best] { i } else { best })
}
