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

/// A backward kernel: `$tracked` copies keep each lane's partial sums and
/// which rows they wrote (the CA engine), the others do not (a tape op).
/// Two dispatchers rather than one that matches on the kind: passing the
/// operands through one value cost the CA step 1.8x.
macro_rules! gate_backward_kernel {
    ($name:ident, $tracked:literal) => {
        minnow_kernels::kernel! {
            pub(crate) fn $name(
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
            { backward_body::<FMA, $tracked, $tracked>(dx, sums, x, dout, lanes, gates, coeffs, written, out_start) }
        }
    };
}

gate_backward_kernel!(gate_backward, false);
gate_backward_kernel!(gate_backward_tracked, true);

minnow_kernels::kernel! {
    pub(crate) fn hard_step(program: &HardProgram, src: &BitGrid, dst: &mut BitGrid, scratch: &mut HardScratch);
    check {}
    { program.step_body(src, dst, scratch) }
}
