//! A well-mixed hash of a seed, to draw from a seed without a generator
//! (episode seeds, evaluation games).

/// SplitMix64's finaliser of `x` plus the golden-ratio increment.
pub fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
