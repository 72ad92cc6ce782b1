//! The training loop end to end: a seeded MLP fits a nonlinear function.

use minnow_nn::{Forward, MlpConfig, Params, Tape};
use minnow_optim::{AdamConfig, Optimizer};
use rand::{Rng, SeedableRng};

/// y = sin(3 x0) cos(2 x1) on [-1, 1]²: not linearly fittable.
fn target(x0: f32, x1: f32) -> f32 {
    (3.0 * x0).sin() * (2.0 * x1).cos()
}

#[test]
fn mlp_fits_a_nonlinear_function() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(42);
    let mut params = Params::new();
    let mlp = MlpConfig::new(&[2, 32, 32, 1]).init(&mut params, "mlp", &mut rng).unwrap();
    let mut adam = AdamConfig { lr: 1e-2, ..AdamConfig::default() }.build(&params).unwrap();
    let mut tape = Tape::new();

    let batch = 64;
    let mut x = vec![0.0f32; batch * 2];
    let mut y = vec![0.0f32; batch];
    let loss_at = |params: &mut Params, tape: &mut Tape, x: &[f32], y: &[f32], train: bool| -> f32 {
        params.zero_grads();
        let mut g = if train { tape.graph(params) } else { tape.inference(params) };
        let input = g.input(&[x.len() / 2, 2], x).unwrap();
        let pred = mlp.forward(&mut g, input).unwrap();
        let loss = g.mse(pred, y, None).unwrap();
        if train {
            g.backward(loss).unwrap();
        }
        g.scalar(loss)
    };
    // A fixed evaluation set, and the loss of the untrained network on it.
    let eval_x: Vec<f32> = (0..512).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let eval_y: Vec<f32> = eval_x.chunks(2).map(|p| target(p[0], p[1])).collect();
    let before = loss_at(&mut params, &mut tape, &eval_x, &eval_y, false);

    for _ in 0..1500 {
        for i in 0..batch {
            let (a, b) = (rng.random_range(-1.0f32..1.0), rng.random_range(-1.0f32..1.0));
            x[2 * i] = a;
            x[2 * i + 1] = b;
            y[i] = target(a, b);
        }
        loss_at(&mut params, &mut tape, &x, &y, true);
        adam.step(&mut params).unwrap();
    }
    let after = loss_at(&mut params, &mut tape, &eval_x, &eval_y, false);
    // The target's variance is about 0.2; a linear fit leaves most of it.
    assert!(before > 0.1, "untrained loss {before}");
    assert!(after < 0.005, "trained loss {after} (untrained {before})");
}
