//! Data-parallel DQN on a real MPI job: run under `mpirun -np K` (CI runs
//! K = 2 and 3). Every rank trains the configs of `common/pole.rs` as one
//! of K shards; every rank must end with the same bits, and those must
//! equal the one-process run's (which rank 0 also trains) up to the order
//! in which the rows' gradients add: within `TOLERANCE_ABS` of every
//! parameter and `TOLERANCE_ULPS` units in the last place of every one of
//! magnitude at least `pole::LARGE`. Rank 0 prints the measured
//! differences and the tally.

#[path = "common/pole.rs"]
mod pole;

use minnow_dist::{Collective, MpiWorld};
use std::rc::Rc;

/// The largest difference from the one-process parameters allowed after
/// the runs' 52 updates. Every row's gradient has the one-process bits
/// (see `minnow_rl::dqn`'s shards); only the split of the rows' sums over
/// the ranks differs, which rounds a gradient value differently by an ulp
/// or so, and the later updates carry that on. Measured on 2 and 3 ranks
/// (`docs/PERFORMANCE.md`): at most 1.2e-7, and 55 ulps where |x| >= 1e-3;
/// the bounds leave room for another SIMD level's roundings.
const TOLERANCE_ABS: f32 = 1e-6;
/// The same, in units in the last place where |x| >= `pole::LARGE`.
const TOLERANCE_ULPS: u32 = 256;

fn main() {
    let world: Rc<dyn Collective> = Rc::new(MpiWorld::init().expect("MPI initialises once"));
    let (rank, size) = (world.rank(), world.size());
    let mut failures = Vec::new();
    for (name, config) in pole::configs() {
        let run = pole::train(&config, Some(world.clone()));
        let ours = run.learner().params().values();
        let mut all = vec![0.0; if rank == 0 { ours.len() * size } else { 0 }];
        world.gather(ours, &mut all);
        if rank != 0 {
            continue;
        }
        for (other, theirs) in all.chunks_exact(ours.len()).enumerate().skip(1) {
            if ours.iter().zip(theirs).any(|(a, b)| a.to_bits() != b.to_bits()) {
                failures.push(format!("{name}: rank {other}'s parameters differ from rank 0's"));
            }
        }
        let alone = pole::train(&config, None);
        let pole::Difference { abs, ulps, differing } = pole::difference(alone.learner().params().values(), ours);
        let (loss, alone_loss) = (run.last_update().unwrap().loss, alone.last_update().unwrap().loss);
        println!(
            "{name}: {size} ranks against one process after {} updates: {differing} of {} parameters \
             differ, by at most {abs:.3e}, and at most {ulps} ulps where |x| >= {}; last loss {loss} (one \
             process {alone_loss})",
            run.learner().updates(),
            ours.len(),
            pole::LARGE
        );
        if ulps > TOLERANCE_ULPS || abs > TOLERANCE_ABS {
            failures.push(format!("{name}: {abs:.3e} and {ulps} ulps, allowed {TOLERANCE_ABS:e} and {TOLERANCE_ULPS}"));
        }
    }
    if rank == 0 {
        let verdict =
            if failures.is_empty() { "ok".to_string() } else { format!("FAILED\n  {}", failures.join("\n  ")) };
        println!(
            "test {size} data-parallel ranks give the one-process DQN parameters up to the sum's order ... {verdict}"
        );
        println!("{} passed, {} failed", failures.is_empty() as u8, !failures.is_empty() as u8);
    }
    drop(world);
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
