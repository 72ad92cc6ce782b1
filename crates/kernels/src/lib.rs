//! Pure functions on `f32` slices: elementwise and fused ops, reductions,
//! softmax, LayerNorm, gather/scatter, a fused Adam update, and GEMM through
//! `faer` on strided views.
//!
//! Every kernel is compiled three times (AVX-512, AVX2+FMA, baseline) and
//! picks one at run time, once per call ([`level`]). Each has a plain scalar
//! twin with the same signature in [`mod@reference`]; property tests hold them
//! equal. Kernels never allocate and never see shapes beyond the row length
//! they are given; a length mismatch is a bug in the caller and panics with
//! the op's name and the lengths.
//!
//! ```
//! use minnow_kernels::{Par, View, ViewMut, add, gemm, reference};
//!
//! let (a, b) = ([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]);
//! let mut sum = [0.0; 3];
//! add(&a, &b, &mut sum);
//! let mut twin = [0.0; 3];
//! reference::add(&a, &b, &mut twin);
//! assert_eq!(sum, twin);
//!
//! // [2, 3] x [3, 2]: b read through a transposed view of a [2, 3] matrix.
//! let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
//! let mut y = [0.0; 4];
//! gemm(ViewMut::new(&mut y, 2, 2), 0.0, View::new(&x, 2, 3), View::new(&x, 2, 3).t(), 1.0, Par::Seq);
//! assert_eq!(y, [14.0, 32.0, 32.0, 77.0]);
//! ```

#![warn(missing_docs)]

#[macro_use]
mod dispatch;
mod activation;
mod adam;
mod bf16;
mod denormals;
mod elementwise;
mod gelu;
mod gemm;
mod index;
mod layer_norm;
mod math;
mod optimizers;
mod peak;
mod reduce;
pub mod reference;
pub mod small_gemm;
mod softmax;
mod split_rows;
mod unoptimized;

pub use activation::*;
pub use adam::{AdamParams, adam_step};
pub use bf16::{PackedBf16, bf16_to_f32, f32_to_bf16, linear_bf16, linear_bf16_scratch, pack_bf16, packed_bf16_len};
pub use denormals::flush_denormals;
pub use dispatch::{
    Level, SIMD_LEVELS, UnknownSimdLevel, bf16_native, level, requested_level, supported_levels, with_level,
};
pub use elementwise::*;
pub use gelu::{gelu, gelu_backward};
pub use gemm::{Par, View, ViewMut, gemm, gemm_threads};
pub use index::*;
pub use layer_norm::*;
pub use optimizers::*;
pub use peak::{bf16_peak_probe, fma_peak_probe};
pub use reduce::*;
pub use softmax::*;
pub use split_rows::split_rows;
pub use unoptimized::{UNOPTIMIZED, UNOPTIMIZED_WARNING, warn_if_unoptimized};

/// Whether a kernel overwrites its destination or adds into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accum {
    /// Overwrite the destination.
    Replace,
    /// Add into the destination.
    Add,
}

/// Panics unless every length equals the first, naming the op.
#[track_caller]
#[inline]
pub(crate) fn same_len(op: &str, lens: &[usize]) {
    if lens.iter().any(|&l| l != lens[0]) {
        panic!("{op}: slice lengths differ: {lens:?}");
    }
}

/// Panics unless `len` is a whole number of rows of `cols`, naming the op.
#[track_caller]
#[inline]
pub(crate) fn whole_rows(op: &str, len: usize, cols: usize) -> usize {
    if cols == 0 {
        assert!(len == 0, "{op}: {len} values cannot form rows of 0 columns");
        return 0;
    }
    assert!(len.is_multiple_of(cols), "{op}: {len} values are not whole rows of {cols}");
    len / cols
}
