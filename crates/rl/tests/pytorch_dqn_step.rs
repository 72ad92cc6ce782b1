//! One DQN update against PyTorch, from the fixture
//! `goldens/make_goldens.py` wrote (torch 2.15.0, CPU, float32): a Q
//! network (4 -> 16 -> 16 -> 3, ReLU), targets r + gamma (1 - done)
//! max Q_target(s'), Q(s, a) gathered, Huber loss, backward and one Adam
//! step; the Q values, targets, loss, every gradient and every parameter
//! after the step must match.
//!
//! Tolerance: every element within 1e-5 of the tensor's largest
//! magnitude. Both sides compute in f32 but sum in other orders (GEMM
//! blocking), so bitwise equality is not expected; the largest
//! differences measured are 1e-7 of the scale. Adam's first step
//! moves each weight by about lr = 1e-3 in the direction of its
//! gradient's sign, so a wrong sign or a missed update is 100 times the
//! bound.

use minnow_autodiff::{Params, Tape};
use minnow_nn::{Checkpoint, Forward};
use minnow_optim::{AdamConfig, Optimizer};
use minnow_rl::dqn::QNetwork;
use rand::SeedableRng;

const TOLERANCE: f32 = 1e-5;

#[track_caller]
fn assert_close(what: &str, ours: &[f32], torch: &[f32]) {
    assert_eq!(ours.len(), torch.len(), "{what}: length");
    let bound = TOLERANCE * torch.iter().fold(0.0f32, |m, b| m.max(b.abs()));
    for (i, (a, b)) in ours.iter().zip(torch).enumerate() {
        assert!((a - b).abs() <= bound, "{what}[{i}]: minnow {a}, torch {b} (allowed difference {bound:e})");
    }
}

#[test]
fn dqn_step_matches_pytorch() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../goldens/dqn_step.safetensors");
    let f = Checkpoint::load(&path).unwrap();
    let t = |name: &str| f.tensor(name).unwrap_or_else(|| panic!("fixture has no tensor '{name}'"));
    let meta = |key: &str| -> f32 { f.require_meta(key).unwrap().parse().unwrap() };
    let (gamma, lr, delta) = (meta("gamma"), meta("lr"), meta("huber_delta"));
    let batch = t("rewards").len();

    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
    let net =
        |params: &mut Params, rng: &mut rand_pcg::Pcg64Mcg| QNetwork::init(params, 4, &[16, 16], 3, false, false, rng);
    let (mut online, mut target) = (Params::new(), Params::new());
    let q_net = net(&mut online, &mut rng).unwrap();
    net(&mut target, &mut rng).unwrap();
    f.restore_prefixed("init", &mut online).unwrap();
    f.restore_prefixed("target", &mut target).unwrap();
    let mut adam = AdamConfig { lr, ..AdamConfig::default() }.build(&online).unwrap();
    let mut tape = Tape::new();

    let mut targets = t("rewards").to_vec();
    {
        let mut g = tape.inference(&target);
        let next = g.input(&[batch, 4], t("next_obs")).unwrap();
        let next_q = q_net.forward(&mut g, next).unwrap();
        for ((y, row), done) in targets.iter_mut().zip(g.value(next_q).chunks_exact(3)).zip(t("dones")) {
            *y += gamma * (1.0 - done) * row.iter().copied().fold(f32::MIN, f32::max);
        }
    }
    assert_close("targets", &targets, t("targets"));

    let actions: Vec<u32> = t("actions").iter().map(|&a| a as u32).collect();
    online.zero_grads();
    let mut g = tape.graph(&mut online);
    let obs = g.input(&[batch, 4], t("obs")).unwrap();
    let q = q_net.forward(&mut g, obs).unwrap();
    assert_close("q", g.value(q), t("q"));
    let q_taken = g.gather_cols(q, &actions).unwrap();
    let loss = g.huber(q_taken, &targets, delta, None).unwrap();
    assert_close("loss", &[g.scalar(loss)], t("loss"));
    g.backward(loss).unwrap();
    for id in online.ids() {
        let name = online.name(id).to_string();
        assert_close(&format!("grad.{name}"), online.grad(id), t(&format!("grad.{name}")));
    }
    adam.step(&mut online).unwrap();
    for id in online.ids() {
        let name = online.name(id).to_string();
        assert_close(&format!("after.{name}"), online.value(id), t(&format!("after.{name}")));
    }
}
