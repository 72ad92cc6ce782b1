//! The core's arithmetic limit, for benchmarks to compare against: chains
//! of fused multiply-adds, enough of them independent to hide the FMA
//! latency on every port.

/// Accumulator registers in flight.
const CHAINS: usize = 20;

/// Runs `iterations` rounds of `CHAINS` independent vector FMAs at the best
/// SIMD level and returns a value that depends on all of them, so nothing is
/// optimised away. Returns (result, flops performed).
pub fn fma_peak_probe(iterations: usize, seed: f32) -> (f32, f64) {
    match crate::level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX-512 only when the CPU has it.
        crate::Level::Avx512 => (unsafe { avx512(iterations, seed) }, (iterations * CHAINS * 16 * 2) as f64),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX2 only when the CPU has AVX2 and FMA.
        crate::Level::Avx2 => (unsafe { avx2(iterations, seed) }, (iterations * CHAINS * 8 * 2) as f64),
        _ => {
            let mut acc = [seed; CHAINS];
            for _ in 0..iterations {
                acc.iter_mut().for_each(|v| *v = *v * 0.999_99 + 1e-6);
            }
            (acc.iter().sum(), (iterations * CHAINS * 2) as f64)
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn avx512(iterations: usize, seed: f32) -> f32 {
    use std::arch::x86_64::*;
    let (a, b) = (_mm512_set1_ps(0.999_99), _mm512_set1_ps(1e-6));
    let mut acc = [_mm512_set1_ps(seed); CHAINS];
    for _ in 0..iterations {
        for r in acc.iter_mut() {
            *r = _mm512_fmadd_ps(*r, a, b);
        }
    }
    acc.iter().map(|&r| _mm512_reduce_add_ps(r)).sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn avx2(iterations: usize, seed: f32) -> f32 {
    use std::arch::x86_64::*;
    let (a, b) = (_mm256_set1_ps(0.999_99), _mm256_set1_ps(1e-6));
    let mut acc = [_mm256_set1_ps(seed); CHAINS];
    for _ in 0..iterations {
        for r in acc.iter_mut() {
            *r = _mm256_fmadd_ps(*r, a, b);
        }
    }
    // Fold the registers into one, then its 8 lanes.
    let total = acc.iter().fold(_mm256_setzero_ps(), |t, &r| _mm256_add_ps(t, r));
    let halves = _mm_add_ps(_mm256_castps256_ps128(total), _mm256_extractf128_ps::<1>(total));
    let pairs = _mm_add_ps(halves, _mm_movehl_ps(halves, halves));
    _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps::<1>(pairs, pairs)))
}
