//! DQN on afterstates: 2048's model, the config's rules, and the value
//! composition `Q(s, a) = r + V(afterstate)` that acting relies on.

use minnow_envs::{BoardEncoding, CartPole, CartPoleConfig, Cube2, Cube2Config, Env, Game2048, Game2048Config};
use minnow_rl::RlError;
use minnow_rl::dqn::{AfterstateModel, DqnConfig, DqnRun, MemoryConfig, QNetworkConfig};
use minnow_tasks::eval::evaluate_2048;
use minnow_tasks::{CartPoleDqn, CubeDqn, Game2048Dqn};
use rand::{Rng, SeedableRng};

fn game() -> Game2048Dqn {
    Game2048Dqn(Game2048::new(Game2048Config::default()).unwrap())
}

/// The model's afterstates are the stepped boards before their spawn:
/// each differs from the stepped board in exactly the one spawned cell.
#[test]
fn game2048_afterstates_match_the_environment() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(4);
    let mut env = game();
    let (mut obs, mut after, mut rewards) = ([0.0; 256], [0.0; 4 * 256], [0.0; 4]);
    let mut checked = 0;
    for seed in 0..20 {
        env.reset(seed);
        while !env.is_over() {
            env.observe(&mut obs);
            let legal = env.afterstates(&obs, &mut after, &mut rewards).unwrap();
            assert_eq!(legal, env.legal_mask());
            for m in (0..4).filter(|m| legal >> m & 1 == 1) {
                let afterstate = BoardEncoding::OneHot.read(&after[m * 256..(m + 1) * 256]).unwrap();
                let mut stepped = env.clone();
                let step = stepped.step(m).unwrap();
                assert_eq!(rewards[m], step.reward);
                let spawned: Vec<usize> =
                    (0..16).filter(|&c| stepped.board().exponent(c) != afterstate.exponent(c)).collect();
                assert_eq!(spawned.len(), 1, "seed {seed}, move {m}");
                assert_eq!(afterstate.exponent(spawned[0]), 0);
                checked += 1;
            }
            let mut pick = legal;
            for _ in 0..rng.random_range(0..legal.count_ones()) {
                pick &= pick - 1;
            }
            env.step(pick.trailing_zeros() as usize).unwrap();
        }
    }
    assert!(checked > 3000, "{checked} moves checked");
    assert!(env.afterstates(&[0.5; 256], &mut after, &mut rewards).is_err(), "not a board");
}

#[test]
fn afterstates_need_a_model_and_one_step_targets() {
    let config = DqnConfig { afterstates: true, n_step: 1, ..DqnConfig::default() };
    let err = DqnRun::new(&config, CartPoleDqn(CartPole::new(CartPoleConfig::default()).unwrap())).unwrap_err();
    assert!(matches!(err, RlError::NoModel { env: "cartpole", option: "afterstates", .. }), "{err}");
    let cube = CubeDqn(Cube2::new(Cube2Config::default()).unwrap());
    assert!(matches!(DqnRun::new(&config, cube).unwrap_err(), RlError::NoModel { env: "cube2", .. }));
    for (field, bad) in [
        ("n_step", DqnConfig { n_step: 3, ..config.clone() }),
        ("all_actions", DqnConfig { all_actions: true, ..config.clone() }),
    ] {
        let err = DqnRun::new(&bad, game()).unwrap_err().to_string();
        assert!(err.contains(field), "{field}: {err}");
    }
}

fn short_run(gamma: f32) -> DqnRun<Game2048Dqn> {
    let config = DqnConfig {
        afterstates: true,
        n_step: 1,
        gamma,
        seed: 1,
        network: QNetworkConfig { hidden: vec![64], ..QNetworkConfig::default() },
        batch_size: 64,
        replay: MemoryConfig { capacity: 20_000, ..MemoryConfig::default() },
        learning_starts: 1_000,
        num_envs: 16,
        reward_scale: 1.0 / 64.0,
        env_steps: 30_000,
        checkpoint_every: 1_000_000,
        ..DqnConfig::default()
    };
    let mut run = DqnRun::new(&config, game()).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    run
}

/// With gamma 0 every afterstate's target is 0, so acting on `r + V`
/// must pick a move of the largest merge (the reward is counted in Q
/// once, not learned into V as well), and play far better than random
/// (1,089 on average).
#[test]
fn with_gamma_zero_acting_maximises_the_merge() {
    let mut run = short_run(0.0);
    let (mut env, mut obs, mut action) = (game(), [0.0; 256], [0u32]);
    let (mut states, mut largest) = (0, 0);
    for seed in 100..120 {
        env.reset(seed);
        while !env.is_over() {
            env.observe(&mut obs);
            run.learner_mut().greedy(&env, &obs, &[env.legal_mask()], &mut action).unwrap();
            let gain = |m: usize| env.board().slide(m).1;
            let best = (0..4).filter(|m| env.legal_mask() >> m & 1 == 1).map(gain).max().unwrap();
            largest += (gain(action[0] as usize) == best) as usize;
            states += 1;
            env.step(action[0] as usize).unwrap();
        }
    }
    assert!(largest as f64 >= 0.99 * states as f64, "largest merge in {largest} of {states} states");
    let result = evaluate_2048(run.learner_mut(), &game(), 200, 7).unwrap();
    assert!(result.mean_score > 1_400.0, "{result:?}");
}
