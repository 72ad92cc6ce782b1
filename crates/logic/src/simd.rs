//! Runtime SIMD dispatch for this crate's hot loops, through the kernels'
//! own `kernel!` macro: each is compiled for AVX-512, AVX2+FMA and the
//! baseline, and one copy is picked per call from `minnow_kernels::level()`
//! (so `MINNOW_SIMD` and `with_level` cap it, as for every kernel). The
//! bodies are plain safe Rust in `layer` and `hard`; the macro's calls into
//! the target-feature copies are the one place this crate needs `unsafe`.

use crate::hard::{BitGrid, HardProgram, HardScratch};
use crate::layer::{Gate, backward_body, forward_body};

minnow_kernels::kernel! {
    pub(crate) fn gate_forward(out: &mut [f32], x: &[f32], lanes: usize, gates: &[Gate], coeffs: &[[f32; 4]]);
    check {}
    { forward_body::<FMA>(out, x, lanes, gates, coeffs) }
}

minnow_kernels::kernel! {
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
    );
    check {}
    { backward_body::<FMA, false, false>(dx, sums, x, dout, lanes, gates, coeffs, written, out_start) }
}

minnow_kernels::kernel! {
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
    );
    check {}
    { backward_body::<FMA, true, true>(dx, sums, x, dout, lanes, gates, coeffs, written, out_start) }
}

minnow_kernels::kernel! {
    pub(crate) fn hard_step(program: &HardProgram, src: &BitGrid, dst: &mut BitGrid, scratch: &mut HardScratch);
    check {}
    { program.step_body(src, dst, scratch) }
}
