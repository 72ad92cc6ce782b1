//! The README's example: a two-layer MLP learns y = x0 * x1 on a grid of
//! [-1, 1]^2 with Adam and the mean squared error, then predicts a point.
//!
//! `cargo run --release -p minnow --example quickstart`

use minnow::prelude::*;

fn main() -> minnow::Result<()> {
    let grid = (0..64).map(|i| [(i % 8) as f32 / 3.5 - 1.0, (i / 8) as f32 / 3.5 - 1.0]);
    let x: Vec<f32> = grid.clone().flatten().collect();
    let y: Vec<f32> = grid.map(|[a, b]| a * b).collect();

    let mut params = Params::new();
    let model = MlpConfig::new(&[2, 32, 1]).init(&mut params, "mlp", &mut Pcg64Mcg::seed_from_u64(0))?;
    let mut adam = AdamConfig { lr: 1e-2, ..AdamConfig::default() }.build(&params)?;
    let mut tape = Tape::new();
    for step in 1..=500 {
        params.zero_grads();
        let mut g = tape.graph(&mut params);
        let input = g.input_ref(&[64, 2], &x)?;
        let prediction = model.forward(&mut g, input)?;
        let loss = g.mse(prediction, &y, None)?;
        g.backward(loss)?;
        if step % 100 == 0 {
            println!("step {step}: loss {:.5}", g.scalar(loss));
        }
        adam.step(&mut params)?;
    }
    let y = model.predict(&params, &[1, 2], &[0.5, -0.5])?;
    println!("f(0.5, -0.5) = {:.3}, exactly -0.25", y[0]);
    Ok(())
}
