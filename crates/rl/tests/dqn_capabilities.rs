//! The DQN capabilities on an environment written for the tests
//! (`common/corridor.rs`): a corridor with a goal at both ends, whose moves
//! are a known model and whose mirror image is a symmetric view. An
//! environment without a capability is refused,
//! naming the option that needs it; one with it trains and evaluates.

#[path = "common/corridor.rs"]
mod corridor_env;

use corridor_env::{CELLS, Corridor, corridor};
use minnow_optim::ScheduleConfig;
use minnow_rl::RlError;
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{DqnConfig, DqnRun, MemoryConfig, QNetworkConfig};

fn config() -> DqnConfig {
    DqnConfig {
        seed: 2,
        network: QNetworkConfig { hidden: vec![32], ..QNetworkConfig::default() },
        gamma: 0.9,
        n_step: 1,
        batch_size: 32,
        replay: MemoryConfig { capacity: 2_000, ..MemoryConfig::default() },
        learning_starts: 100,
        num_envs: 4,
        epsilon: ScheduleConfig::linear(1.0, 1_000, 0.05),
        env_steps: 3_000,
        ..DqnConfig::default()
    }
}

#[test]
fn options_need_their_capabilities() {
    for (option, config) in [
        ("all_actions", DqnConfig { all_actions: true, ..config() }),
        ("symmetric_eval", DqnConfig { symmetric_eval: true, ..config() }),
        ("afterstates", DqnConfig { afterstates: true, ..config() }),
    ] {
        let err = DqnRun::new(&config, corridor(false)).unwrap_err();
        assert!(matches!(err, RlError::NoModel { env: "corridor", option: o, .. } if o == option), "{err}");
        assert!(err.to_string().contains(option), "{err}");
    }
    // The corridor has no afterstates even when capable.
    assert!(DqnRun::new(&DqnConfig { afterstates: true, ..config() }, corridor(true)).is_err());
}

/// Learning every action from the model, then acting on Q averaged over
/// the mirror views: from every inner cell the greedy walk takes the
/// nearer end.
#[test]
fn model_and_views_train_and_evaluate() {
    let config = DqnConfig { all_actions: true, symmetric_eval: true, ..config() };
    let mut run = DqnRun::new(&config, corridor(true)).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    let mut envs: Vec<Corridor> =
        (1..CELLS - 1).map(|cell| Corridor { cell, steps: 0, over: false, capable: true }).collect();
    let outcomes = play_greedy(run.learner_mut(), &mut envs, 10).unwrap();
    for (cell, outcome) in (1..CELLS - 1).zip(&outcomes) {
        let nearest = cell.min(CELLS - 1 - cell) as u32;
        assert!(outcome.success == Some(true) && outcome.steps == nearest, "from cell {cell}: {outcome:?}");
    }
}

/// Learning every action on a one-rank group (the data-parallel path,
/// whose shard is the whole batch) gives the one-process run's bits.
#[test]
fn all_actions_on_one_shard_is_the_one_process_run() {
    let config = DqnConfig { all_actions: true, env_steps: 600, ..config() };
    let mut alone = DqnRun::new(&config, corridor(true)).unwrap();
    let mut sharded = DqnRun::new(&config, corridor(true)).unwrap();
    let mut shards = sharded.shards(std::rc::Rc::new(minnow_dist::Solo)).unwrap();
    while !alone.is_done() {
        alone.step().unwrap();
        sharded.step_sharded(&mut shards).unwrap();
    }
    assert!(alone.learner().updates() > 100);
    let (a, b) = (alone.learner().params().values(), sharded.learner().params().values());
    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
    let bits = |u: minnow_rl::dqn::UpdateStats| (u.loss.to_bits(), u.mean_q.to_bits());
    assert_eq!(alone.last_update().map(bits), sharded.last_update().map(bits));
}
