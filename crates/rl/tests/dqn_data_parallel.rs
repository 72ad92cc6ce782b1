//! Data-parallel DQN without MPI: a run on a one-rank group takes the
//! sharded path (its shard is the whole batch, the loss scaled by its
//! seed, the Q values through the sum) and must give the one-process
//! run's bits. Several ranks: `mpi_data_parallel_dqn`, under `mpirun`.

#[path = "common/pole.rs"]
mod pole;

use minnow_dist::{Collective, Solo};
use std::rc::Rc;

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
        assert!(!sharded.stop_requested());
    }
}

/// The process group stays in the run: the learner can still move to
/// another thread.
#[test]
fn the_learner_stays_send() {
    fn send<T: Send>() {}
    send::<minnow_rl::dqn::DqnLearner>();
}
