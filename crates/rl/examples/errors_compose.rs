//! One error type from `main`: a Q-network learns a three-armed bandit's
//! mean rewards from a replay buffer, and every fallible call uses `?`
//! into [`RlError`]: building the network (a `minnow_nn::NnError`), the
//! optimiser (`minnow_optim::OptimError`), the graph's ops
//! (`minnow_autodiff::Error`), the replay buffer (`RlError` itself) and
//! the checkpoint round trip (`NnError` again).
//!
//! `cargo run --release -p minnow-rl --example errors_compose`

use minnow_autodiff::{Params, Tape};
use minnow_nn::{Checkpoint, CheckpointWriter, Forward};
use minnow_optim::{AdamConfig, Optimizer};
use minnow_rl::dqn::QNetwork;
use minnow_rl::{ReplayConfig, RlError, Transition};
use rand::{Rng, SeedableRng};

const MEANS: [f32; 3] = [0.2, 0.8, 0.5];
const BATCH: usize = 32;

fn main() -> Result<(), RlError> {
    let arms = MEANS.len();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let mut params = Params::new();
    let net = QNetwork::init(&mut params, 1, &[16], arms, false, false, &mut rng)?;
    let mut adam = AdamConfig { lr: 1e-2, ..AdamConfig::default() }.build(&params)?;
    let mut replay = ReplayConfig::new(256, 1, arms as u32).build()?;

    let obs = [1.0];
    for _ in 0..256 {
        let action = rng.random_range(0..arms);
        let reward = MEANS[action] + rng.random_range(-0.1..0.1);
        replay.push(&Transition::one_step(&obs, action as u32, reward, &obs, true, 0.0))?;
    }

    let (mut batch, mut tape) = (replay.batch(BATCH), Tape::new());
    for _ in 0..300 {
        replay.sample_into(BATCH, &mut rng, &mut batch)?;
        params.zero_grads();
        let mut g = tape.graph(&mut params);
        let x = g.input_ref(&[BATCH, 1], batch.obs())?;
        let q = net.forward(&mut g, x)?;
        let q_taken = g.gather_cols(q, batch.actions())?;
        let loss = g.mse(q_taken, batch.rewards(), None)?;
        g.backward(loss)?;
        adam.step(&mut params)?;
    }

    let path = std::env::temp_dir().join(format!("minnow-errors-compose-{}.safetensors", std::process::id()));
    CheckpointWriter::new().params(&params).save(&path)?;
    Checkpoint::load(&path)?.restore_params(&mut params)?;
    let _ = std::fs::remove_file(&path);

    let mut best = [0];
    net.greedy(&mut tape, &params, &obs, &[(1 << arms) - 1], &mut best)?;
    println!("greedy arm {} (the best arm is 1, mean {})", best[0], MEANS[1]);
    Ok(())
}
