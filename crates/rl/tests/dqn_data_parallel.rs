//! Data-parallel DQN without MPI: a run on a one-rank group takes the
//! sharded path (its shard is the whole batch, the loss scaled by its
//! seed, the Q values through the sum) and must give the one-process
//! run's bits. Several ranks: `mpi_data_parallel_dqn`, under `mpirun`.

#[path = "common/pole.rs"]
mod pole;

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_dist::{Collective, Solo};
use std::rc::Rc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn one_shard_is_the_one_process_run_bit_for_bit() {
    for (name, config) in pole::configs() {
        let alone = pole::train(&config, None);
        let solo: Rc<dyn Collective> = Rc::new(Solo);
        let sharded = pole::train(&config, Some(solo));
        assert_eq!(alone.learner().updates(), 52, "{name}");
        let (a, b) = (alone.learner().params().values(), sharded.learner().params().values());
        assert_eq!(pole::difference(a, b), pole::Difference::default(), "{name}");
        assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()), "{name}");
        let bits = |u: minnow_rl::dqn::UpdateStats| (u.loss.to_bits(), u.mean_q.to_bits());
        assert_eq!(alone.last_update().map(bits), sharded.last_update().map(bits), "{name}");
    }
}

/// The process group stays out of the run (in `Shards`, on the driving
/// thread): a run can still move to another thread.
#[test]
fn the_run_stays_send() {
    fn send<T: Send>() {}
    send::<minnow_rl::dqn::DqnRun<pole::Pole>>();
}

/// A loss that stops being finite ends the run at the same update on the
/// sharded path (where a rank's part goes through the sum first, so every
/// rank fails together) as in one process.
#[test]
fn a_diverging_run_fails_at_the_same_update_on_one_shard() {
    let (_, config) = pole::configs().into_iter().next().unwrap();
    let config = minnow_rl::dqn::DqnConfig {
        optimizer: minnow_optim::AdamConfig { lr: 1e30, ..config.optimizer },
        max_grad_norm: 0.0,
        ..config
    };
    let diverge = |comm: Option<Rc<dyn Collective>>| {
        let env = pole::Pole(minnow_envs::CartPole::new(minnow_envs::CartPoleConfig::default()).unwrap());
        let mut run = minnow_rl::dqn::DqnRun::new(&config, env).unwrap();
        let mut shards = comm.map(|comm| run.shards(comm).unwrap());
        loop {
            if let Err(e) = pole::step(&mut run, shards.as_mut()) {
                return e.to_string();
            }
            assert!(!run.is_done(), "the run did not diverge");
        }
    };
    let alone = diverge(None);
    assert!(alone.starts_with("training diverged at update"), "{alone}");
    assert_eq!(diverge(Some(Rc::new(Solo))), alone);
}

/// The sharded path's steps (its own Q buffer, the seed's scale node on
/// the tape) allocate nothing once warmed up, as the one-process steps.
#[test]
fn sharded_steps_allocate_nothing() {
    for (name, config) in pole::configs() {
        let config = minnow_rl::dqn::DqnConfig { env_steps: 1_000_000, checkpoint_every: 1_000_000, ..config };
        let env = pole::Pole(minnow_envs::CartPole::new(minnow_envs::CartPoleConfig::default()).unwrap());
        let mut run = minnow_rl::dqn::DqnRun::new(&config, env).unwrap();
        let mut shards = run.shards(Rc::new(Solo)).unwrap();
        // Past learning_starts and through a few episode ends.
        for _ in 0..500 {
            run.step_sharded(&mut shards).unwrap();
        }
        assert!(run.learner().updates() > 0);
        let (_, on_thread, _) = count_allocations(|| {
            for _ in 0..200 {
                run.step_sharded(&mut shards).unwrap();
            }
        });
        assert_eq!(on_thread.allocations, 0, "{name}: {} bytes allocated", on_thread.bytes);
    }
}

/// Shards made for a run of another batch size are refused, not sliced
/// out of range.
#[test]
fn shards_of_another_run_are_refused() {
    let [(_, first), (_, second)] = pole::configs();
    let env = || pole::Pole(minnow_envs::CartPole::new(minnow_envs::CartPoleConfig::default()).unwrap());
    let other = minnow_rl::dqn::DqnRun::new(&second, env()).unwrap();
    let mut shards = other.shards(Rc::new(Solo)).unwrap();
    let mut run = minnow_rl::dqn::DqnRun::new(&first, env()).unwrap();
    let err = run.step_sharded(&mut shards).unwrap_err().to_string();
    assert!(err.contains("DqnRun::step_sharded") && err.contains("64") && err.contains("50"), "{err}");
}
