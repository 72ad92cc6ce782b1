//! The core's arithmetic limit, for benchmarks to compare against: chains
//! of fused multiply-adds, enough of them independent to hide the FMA
//! latency on every port, and few enough to stay in registers.

/// Accumulators in flight with AVX2: the 16 ymm registers hold 12 chains
/// and the two constants. Two FMA ports with a latency of 4 or 5 cycles
/// need 8 to 10 chains; 20 (the count before) spilled to the stack and
/// capped the probe below what faer's GEMM reaches.
const AVX2_CHAINS: usize = 12;

/// Accumulators in flight with AVX-512: the 32 zmm registers hold 24
/// chains and the constants, covering latencies up to 12 cycles on two
/// ports.
const AVX512_CHAINS: usize = 24;

/// Scalar chains (the baseline target has no FMA instruction; this only
/// keeps the probe defined there).
const SCALAR_CHAINS: usize = 8;

/// Runs `iterations` rounds of independent vector FMAs at the best SIMD
/// level and returns a value that depends on all of them, so nothing is
/// optimised away. Returns (result, flops performed).
pub fn fma_peak_probe(iterations: usize, seed: f32) -> (f32, f64) {
    match crate::level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX-512 only when the CPU has it.
        crate::Level::Avx512 => (unsafe { avx512(iterations, seed) }, (iterations * AVX512_CHAINS * 16 * 2) as f64),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX2 only when the CPU has AVX2 and FMA.
        crate::Level::Avx2 => (unsafe { avx2(iterations, seed) }, (iterations * AVX2_CHAINS * 8 * 2) as f64),
        _ => {
            let mut acc = [seed; SCALAR_CHAINS];
            for _ in 0..iterations {
                acc.iter_mut().for_each(|v| *v = *v * 0.999_99 + 1e-6);
            }
            (acc.iter().sum(), (iterations * SCALAR_CHAINS * 2) as f64)
        }
    }
}

/// The bf16 twin of [`fma_peak_probe`]: `iterations` rounds of independent
/// `vdpbf16ps` (16 lanes, each adding two bf16 products: 64 flops), when
/// this thread's kernels run on it ([`crate::bf16_native`]). `None`
/// otherwise: the portable bf16 kernels multiply in f32, so the f32 probe
/// is their limit.
pub fn bf16_peak_probe(iterations: usize, seed: f32) -> Option<(f32, f64)> {
    #[cfg(target_arch = "x86_64")]
    if crate::bf16_native() {
        // SAFETY: `bf16_native` reports true only when the CPU has AVX-512F
        // and AVX-512 BF16.
        let result = unsafe { avx512_bf16(iterations, seed) };
        return Some((result, (iterations * AVX512_CHAINS * 16 * 4) as f64));
    }
    let _ = (iterations, seed);
    None
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn avx512(iterations: usize, seed: f32) -> f32 {
    use std::arch::x86_64::*;
    let (a, b) = (_mm512_set1_ps(0.999_99), _mm512_set1_ps(1e-6));
    let mut acc = [_mm512_set1_ps(seed); AVX512_CHAINS];
    for _ in 0..iterations {
        for r in acc.iter_mut() {
            *r = _mm512_fmadd_ps(*r, a, b);
        }
    }
    acc.iter().map(|&r| _mm512_reduce_add_ps(r)).sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
fn avx512_bf16(iterations: usize, seed: f32) -> f32 {
    use std::arch::x86_64::*;
    // Every lane pair holds (1e-6, 1e-6) and (1, 1) in bf16: each
    // instruction adds 2e-6 to every lane, so the sums stay small and normal.
    let small = _mm512_set1_epi32(i32::from(crate::f32_to_bf16(1e-6)) * 0x1_0001);
    let one = _mm512_set1_epi32(i32::from(crate::f32_to_bf16(1.0)) * 0x1_0001);
    // SAFETY: both are 512 bits of plain data, every bit pattern valid.
    let (a, b) =
        unsafe { (std::mem::transmute::<__m512i, __m512bh>(small), std::mem::transmute::<__m512i, __m512bh>(one)) };
    let mut acc = [_mm512_set1_ps(seed); AVX512_CHAINS];
    for _ in 0..iterations {
        for r in acc.iter_mut() {
            *r = _mm512_dpbf16_ps(*r, a, b);
        }
    }
    acc.iter().map(|&r| _mm512_reduce_add_ps(r)).sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn avx2(iterations: usize, seed: f32) -> f32 {
    use std::arch::x86_64::*;
    let (a, b) = (_mm256_set1_ps(0.999_99), _mm256_set1_ps(1e-6));
    let mut acc = [_mm256_set1_ps(seed); AVX2_CHAINS];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probes_count_their_flops_and_finish() {
        let (value, flops) = fma_peak_probe(10, 1.0);
        assert!(value.is_finite() && flops > 0.0);
        // Twice the rounds, twice the flops: the count is per round.
        assert_eq!(fma_peak_probe(20, 1.0).1, 2.0 * flops);
        if let Some((value, flops)) = bf16_peak_probe(10, 0.0) {
            assert!(value > 0.0 && flops > 0.0);
        }
    }
}
