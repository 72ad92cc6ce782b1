//! Times the collectives of distributed training on a buffer the size of
//! the 283,477-parameter AlphaZero network: the fixed-order sum (data-
//! parallel gradients), MPI's own allreduce for comparison, and the
//! broadcast (weights to actors). Run under `mpirun -np K`.

use minnow_dist::{Collective, FixedOrderSum, MpiWorld};
use mpi::collective::SystemOperation;
use mpi::traits::CommunicatorCollectives;

const LEN: usize = 283_477;
const REPEATS: usize = 200;

fn main() {
    let world = MpiWorld::init().expect("MPI initialises once");
    let raw = mpi::topology::SimpleCommunicator::world();
    let mut buffer = vec![world.rank() as f32 + 0.5; LEN];
    let mut out = vec![0.0f32; LEN];
    let mut sum = FixedOrderSum::new(&world, LEN);
    let timed = |name: &str, f: &mut dyn FnMut()| {
        for _ in 0..20 {
            f();
        }
        let mut times = Vec::with_capacity(REPEATS);
        for _ in 0..REPEATS {
            raw.barrier();
            let started = mpi::time();
            f();
            times.push(mpi::time() - started);
        }
        times.sort_by(f64::total_cmp);
        if world.rank() == 0 {
            let us = |q: f64| 1e6 * times[((REPEATS - 1) as f64 * q) as usize];
            println!("| {name} | {} | {:.0} | {:.0} | {:.0} |", world.size(), us(0.1), us(0.5), us(0.9));
        }
    };
    if world.rank() == 0 {
        println!("buffer: {LEN} f32 = {} bytes; {REPEATS} repeats after 20 warm-ups; rank 0's time", 4 * LEN);
        println!("| collective | ranks | p10 us | median us | p90 us |");
        println!("|---|---|---|---|---|");
    }
    timed("fixed-order sum (gather to rank 0, add in rank order, broadcast)", &mut || {
        sum.sum(&world, &mut buffer).unwrap()
    });
    timed("MPI_Allreduce (MPI_SUM, order chosen by Open MPI)", &mut || {
        raw.all_reduce_into(&buffer[..], &mut out[..], SystemOperation::sum())
    });
    timed("broadcast from rank 0", &mut || world.broadcast(&mut buffer));
}
