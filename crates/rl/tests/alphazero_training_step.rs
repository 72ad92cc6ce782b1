//! The learner's update, with the mirror augmentation on: allocation-free
//! after the first, and still learning.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_envs::{ConnectFour, Game};
use minnow_rl::alphazero::{NetworkConfig, PositionReplay, Positions, Trainer, TrainingConfig};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn mirrored_updates_allocate_nothing_after_the_first() {
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let (o, a) = (ConnectFour::OBSERVATION_SIZE, ConnectFour::ACTIONS);
    let mut positions = Positions::default();
    for _ in 0..500 {
        positions.obs.extend((0..o).map(|_| (rng.random::<f32>() < 0.3) as u8 as f32));
        let mut p: Vec<f32> = (0..a).map(|_| rng.random::<f32>()).collect();
        let total: f32 = p.iter().sum();
        p.iter_mut().for_each(|x| *x /= total);
        positions.policy.extend(p);
        positions.value.push(rng.random_range(-1.0..1.0));
    }
    let mut replay = PositionReplay::new(1000, o, a).unwrap();
    replay.extend(&positions).unwrap();
    let config = TrainingConfig { batch: 64, mirror: true, ..TrainingConfig::default() };
    let mut trainer = Trainer::new::<ConnectFour>(&NetworkConfig { width: 32, blocks: 1 }, &config, &mut rng).unwrap();
    let first = trainer.step(&replay, &mut rng).unwrap();
    let mut last = first;
    let (_, on_thread, _) = count_allocations(|| (0..20).for_each(|_| last = trainer.step(&replay, &mut rng).unwrap()));
    assert_eq!(on_thread.allocations, 0, "{} bytes over 20 updates", on_thread.bytes);
    assert!(last.policy + last.value < first.policy + first.value, "{first:?} -> {last:?}");
}
