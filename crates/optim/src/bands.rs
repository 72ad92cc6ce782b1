//! An optimiser step split over threads: the flat buffers are cut into
//! contiguous bands that start on cache lines, and each band is updated on
//! rayon's pool. Every element gets the same arithmetic as on one thread,
//! so the result does not depend on the thread count.

/// Floats per 64-byte cache line: no two threads write into one line.
const LINE: usize = 16;

/// The fewest floats a band gets: `dqn_step/2048/2thr` (5,508 parameters,
/// Adam about 4 us) ran slower split than whole (22.8 against 20.6 us),
/// the cube network's 27,206 faster.
const MIN_BAND: usize = 8192;

/// Calls `update(buffers, grads)` on `threads` bands. Each buffer is as
/// long as `grads`, or empty (state an optimiser does not keep with its
/// settings, such as a momentum buffer without momentum). `rayon::join`
/// allocates nothing when called on a worker of rayon's pool.
pub(crate) fn in_bands<const N: usize>(
    threads: usize,
    buffers: [&mut [f32]; N],
    grads: &[f32],
    update: &(impl Fn([&mut [f32]; N], &[f32]) + Sync),
) {
    let len = grads.len();
    if threads <= 1 || len < 2 * MIN_BAND {
        return update(buffers, grads);
    }
    let left = threads / 2;
    let mid = len * left / threads / LINE * LINE;
    let mut halves = buffers.map(|b| {
        let (lo, hi) = b.split_at_mut(mid.min(b.len()));
        (Some(lo), Some(hi))
    });
    let lo = std::array::from_fn(|i| halves[i].0.take().expect("each half is taken once"));
    let hi = std::array::from_fn(|i| halves[i].1.take().expect("each half is taken once"));
    let (grads_lo, grads_hi) = grads.split_at(mid);
    rayon::join(|| in_bands(left, lo, grads_lo, update), || in_bands(threads - left, hi, grads_hi, update));
}
