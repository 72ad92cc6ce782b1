//! Evaluations on values averaged over symmetric views: the cube's 48
//! (Q per move) and 2048's 8 (afterstate values).

use minnow_envs::cube2::SYMMETRY_COUNT;
use minnow_envs::game2048::BOARD_SYMMETRY_COUNT;
use minnow_envs::{CartPole, CartPoleConfig, Cube2, Cube2Config, CubeState, Env, Game2048, Game2048Config};
use minnow_nn::Forward;
use minnow_rl::RlError;
use minnow_rl::dqn::{AfterstateModel, DqnConfig, DqnLearner, DqnRun, QNetworkConfig, Symmetries};
use minnow_tasks::{CartPoleDqn, CubeDqn, Game2048Dqn};
use rand::SeedableRng;

/// Q averaged over the views of `obs`, computed directly.
fn mean_q(learner: &DqnLearner, env: &CubeDqn, obs: &[f32]) -> [f32; 6] {
    let (mut view, mut moves, mut mean) = ([0.0; 144], [0; 6], [0.0; 6]);
    let mut tape = minnow_autodiff::Tape::new();
    for k in 0..SYMMETRY_COUNT {
        env.view(k, obs, &mut view, &mut moves).unwrap();
        let mut g = tape.inference(learner.params());
        let x = g.input(&[1, 144], &view).unwrap();
        let q = learner.network().forward(&mut g, x).unwrap();
        for (a, m) in mean.iter_mut().enumerate() {
            *m += g.value(q)[moves[a]] / SYMMETRY_COUNT as f32;
        }
    }
    mean
}

/// Averaged over all views, Q treats symmetric positions alike (the
/// views of a view are the same 48 positions, with moves renamed to
/// match), and the evaluation acts on that average. One view alone does
/// not, for an untrained network.
#[test]
fn symmetric_q_is_equivariant_and_evaluations_act_on_it() {
    let env = CubeDqn(Cube2::new(Cube2Config::default()).unwrap());
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2);
    let network = QNetworkConfig { hidden: vec![64], ..QNetworkConfig::default() };
    let config = DqnConfig { symmetric_eval: true, network, ..DqnConfig::default() };
    let mut learner = DqnLearner::new(&config, 144, 6, false).unwrap();
    let (mut obs, mut view, mut moves, mut chosen) = ([0.0; 144], [0.0; 144], [0; 6], [0u32]);
    let mut plain_differs = 0;
    for _ in 0..50 {
        CubeState::scrambled(10, &mut rng).write_one_hot(&mut obs);
        let q = mean_q(&learner, &env, &obs);
        learner.eval_greedy(&env, &obs, &[0b11_1111], &mut chosen).unwrap();
        let best = q.iter().copied().fold(f32::MIN, f32::max);
        assert!(q[chosen[0] as usize] >= best - 1e-5, "chose {chosen:?} on {q:?}");
        for k in 0..SYMMETRY_COUNT {
            env.view(k, &obs, &mut view, &mut moves).unwrap();
            let q_view = mean_q(&learner, &env, &view);
            for a in 0..6 {
                assert!((q_view[moves[a]] - q[a]).abs() < 1e-5, "view {k}, move {a}: {q_view:?} vs {q:?}");
            }
            let mut plain = [0u32; 2];
            let rows = [obs, view].concat();
            learner.greedy(&env, &rows, &[0b11_1111; 2], &mut plain).unwrap();
            plain_differs += (plain[1] as usize != moves[plain[0] as usize]) as usize;
        }
    }
    assert!(plain_differs > 500, "one view alone should not be equivariant: {plain_differs} of 2400 differ");
}

#[test]
fn symmetric_eval_needs_symmetries() {
    let config = DqnConfig { symmetric_eval: true, ..DqnConfig::default() };
    let err = DqnRun::new(&config, CartPoleDqn(CartPole::new(CartPoleConfig::default()).unwrap())).unwrap_err();
    assert!(matches!(err, RlError::NoModel { env: "cartpole", option: "symmetric_eval", .. }), "{err}");
    assert!(DqnRun::new(&config, CubeDqn(Cube2::new(Cube2Config::default()).unwrap())).is_ok());
}

/// Each legal move's `r / 64 + V(afterstate)`, V averaged over the
/// afterstate's eight views, computed directly (`None` if illegal).
fn afterstate_scores(learner: &DqnLearner, env: &Game2048Dqn, obs: &[f32]) -> [Option<f32>; 4] {
    let (mut after, mut rewards, mut view, mut moves) = ([0.0; 4 * 256], [0.0; 4], [0.0; 256], [0; 4]);
    let legal = env.afterstates(obs, &mut after, &mut rewards).unwrap();
    let mut tape = minnow_autodiff::Tape::new();
    std::array::from_fn(|a| {
        (legal >> a & 1 == 1).then(|| {
            let mut value = 0.0;
            for k in 0..BOARD_SYMMETRY_COUNT {
                env.view(k, &after[a * 256..(a + 1) * 256], &mut view, &mut moves).unwrap();
                let mut g = tape.inference(learner.params());
                let x = g.input(&[1, 256], &view).unwrap();
                let v = learner.network().forward(&mut g, x).unwrap();
                value += g.value(v)[0] / BOARD_SYMMETRY_COUNT as f32;
            }
            rewards[a] / 64.0 + value
        })
    })
}

/// With afterstates the evaluation acts on the views' mean afterstate
/// value, which scores symmetric boards' corresponding moves alike.
#[test]
fn symmetric_afterstate_values_are_equivariant_and_evaluations_act_on_them() {
    let config = DqnConfig {
        afterstates: true,
        n_step: 1,
        symmetric_eval: true,
        reward_scale: 1.0 / 64.0,
        network: QNetworkConfig { hidden: vec![64], ..QNetworkConfig::default() },
        ..DqnConfig::default()
    };
    let mut env = Game2048Dqn(Game2048::new(Game2048Config::default()).unwrap());
    let mut learner = DqnLearner::new(&config, 256, 4, true).unwrap();
    let (mut obs, mut view, mut moves, mut chosen) = ([0.0; 256], [0.0; 256], [0; 4], [0u32]);
    let mut checked = 0;
    for seed in 0..10 {
        env.reset(seed);
        for _ in 0..20 {
            if env.is_over() {
                break;
            }
            env.observe(&mut obs);
            let scores = afterstate_scores(&learner, &env, &obs);
            learner.eval_greedy(&env, &obs, &[env.legal_mask()], &mut chosen).unwrap();
            let best = scores.iter().flatten().copied().fold(f32::MIN, f32::max);
            assert!(scores[chosen[0] as usize].is_some_and(|s| s >= best - 1e-5), "chose {chosen:?} on {scores:?}");
            for k in 0..BOARD_SYMMETRY_COUNT {
                env.view(k, &obs, &mut view, &mut moves).unwrap();
                let seen = afterstate_scores(&learner, &env, &view);
                for a in 0..4 {
                    let (x, y) = (seen[moves[a]], scores[a]);
                    assert!(x.is_some() == y.is_some() && (x.unwrap_or(0.0) - y.unwrap_or(0.0)).abs() < 1e-5);
                }
            }
            checked += 1;
            env.step(chosen[0] as usize).unwrap();
        }
    }
    assert!(checked > 150, "{checked} positions");
}
