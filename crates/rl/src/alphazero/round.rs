//! One round of self-play, the same in one process and on an actor rank:
//! each worker thread plays its games from a seed derived from (run seed,
//! iteration, stream) while the calling thread does other work.

use super::{Positions, SelfPlayStats, SelfPlayWorker};
use crate::Result;
use minnow_envs::Game;

/// The first seed stream of self-play workers (0 and 1 seed the network's
/// initialisation and the learner).
pub(super) const FIRST_WORKER_STREAM: u64 = 2;

/// Mixes the run seed, an iteration and a stream into one seed.
pub(super) fn derive_seed(seed: u64, iteration: u64, stream: u64) -> u64 {
    let mut x = seed ^ iteration.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ stream.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 31;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 29)
}

/// One round of self-play: worker `w` plays `games` games seeded from
/// `seed(w)` into `outputs[w]` (cleared first) on its own thread while
/// the calling thread runs `meanwhile` (the learner's updates, say); the
/// workers' counts summed, or the first worker's error.
pub(super) fn play_round<G: Game + Default + Send, T>(
    workers: &mut [SelfPlayWorker<G>],
    outputs: &mut [Positions],
    games: usize,
    seed: impl Fn(usize) -> u64,
    meanwhile: impl FnOnce() -> T,
) -> (Result<SelfPlayStats>, T) {
    std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .iter_mut()
            .zip(outputs.iter_mut())
            .enumerate()
            .map(|(w, (worker, out))| {
                out.clear();
                let seed = seed(w);
                s.spawn(move || worker.play(games, seed, out))
            })
            .collect();
        let done = meanwhile();
        let mut played = Ok(SelfPlayStats::default());
        for handle in handles {
            let worker = handle.join().expect("a self-play worker panicked");
            played = played.and_then(|mut sum| {
                sum.add(&worker?);
                Ok(sum)
            });
        }
        (played, done)
    })
}
