//! Runtime SIMD dispatch for this crate's hot loops: each is compiled for
//! AVX-512, AVX2+FMA and the baseline, and one copy is picked per call from
//! `minnow_kernels::level()` (so `MINNOW_SIMD` and `with_level` cap it, as
//! for every kernel). The bodies are plain safe Rust in `layer` and `hard`;
//! this file only holds the target-feature copies and the `unsafe` calls
//! into them, which is the one place this crate needs `unsafe`.

use crate::hard::{BitGrid, HardProgram, HardScratch};
use crate::layer::{Gate, backward_body, forward_body};

/// Defines `$name` to call `$fast` in an AVX-512 or an AVX2+FMA copy of
/// itself when the CPU has one, else `$plain`.
macro_rules! multiversion {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?), fma: $fast:expr, plain: $plain:expr) => {
        $(#[$meta])*
        #[inline]
        $vis fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            fn avx512($($arg: $ty),*) {
                $fast
            }

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            fn avx2($($arg: $ty),*) {
                $fast
            }

            match minnow_kernels::level() {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `level()` reports AVX-512 only when the CPU has
                // every feature enabled above (minnow-kernels detects them).
                minnow_kernels::Level::Avx512 => unsafe { avx512($($arg),*) },
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `level()` reports AVX2 only when the CPU has AVX2 and FMA.
                minnow_kernels::Level::Avx2 => unsafe { avx2($($arg),*) },
                _ => $plain,
            }
        }
    };
}

multiversion!(
    pub(crate) fn gate_forward(out: &mut [f32], x: &[f32], lanes: usize, gates: &[Gate], coeffs: &[[f32; 4]]),
    fma: forward_body::<true>(out, x, lanes, gates, coeffs),
    plain: forward_body::<false>(out, x, lanes, gates, coeffs)
);

multiversion!(
    pub(crate) fn gate_backward(
        dx: &mut [f32],
        sums: &mut [f32],
        x: &[f32],
        dout: &[f32],
        lanes: usize,
        gates: &[Gate],
        coeffs: &[[f32; 4]],
        written: &mut [bool],
        out_start: usize,
    ),
    fma: backward_body::<true, false, false>(dx, sums, x, dout, lanes, gates, coeffs, written, out_start),
    plain: backward_body::<false, false, false>(dx, sums, x, dout, lanes, gates, coeffs, written, out_start)
);

multiversion!(
    pub(crate) fn gate_backward_tracked(
        dx: &mut [f32],
        sums: &mut [f32],
        x: &[f32],
        dout: &[f32],
        lanes: usize,
        gates: &[Gate],
        coeffs: &[[f32; 4]],
        written: &mut [bool],
        out_start: usize,
    ),
    fma: backward_body::<true, true, true>(dx, sums, x, dout, lanes, gates, coeffs, written, out_start),
    plain: backward_body::<false, true, true>(dx, sums, x, dout, lanes, gates, coeffs, written, out_start)
);

multiversion!(
    pub(crate) fn hard_step(program: &HardProgram, src: &BitGrid, dst: &mut BitGrid, scratch: &mut HardScratch),
    fma: program.step_body(src, dst, scratch),
    plain: program.step_body(src, dst, scratch)
);
