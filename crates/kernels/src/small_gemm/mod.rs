//! minnow's own GEMM kernels for small row-major products, where faer's
//! fixed cost per call (about 1-4 us) is larger than the arithmetic.
//!
//! Three layouts, all with unit column stride in the stored matrices and
//! any leading dimension (`dst` is m x n, `a` is m x k, `b` is k x n):
//!
//! - **NN** `A · B` (a Linear layer's input gradient dy · W) and **TN**
//!   `Aᵀ · B` (its weight gradient dyᵀ · x): broadcast form. A block of C
//!   (up to 12 rows x 64 columns) lives in registers; each step of k
//!   broadcasts one element of A per row and adds it times a row of B.
//!   A is read through its two strides, so NN and TN share one kernel.
//! - **NT** `A · Bᵀ` with B stored as n x k rows (a Linear forward x · Wᵀ):
//!   either the dot form (C[i, j] = dot(A row i, B row j), both contiguous
//!   along k, register-blocked and reduced by a transposing add tree), best
//!   when m or n is small; or, when both are large enough to amortise it, B
//!   is transposed panel by panel into a stack buffer and run through the
//!   broadcast kernel.
//!
//! [`gemm`] always uses these kernels (at the SIMD level of the calling
//! thread, scalar included); [`crate::gemm`] uses them only for the shapes
//! where they were measured faster than faer (see `takes`).
//!
//! Every kernel writes into the destination it is given and allocates
//! nothing; the packed NT path transposes B through a 36 KiB stack panel.

use crate::gemm::{View, ViewMut};
use crate::{Level, level};

mod scalar;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::even_parts;

/// How the two operands are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `A · B`: A rows and B rows both contiguous.
    Nn,
    /// `Aᵀ · B`: A stored k x m, B rows contiguous.
    Tn,
    /// `A · Bᵀ`: A rows contiguous, B stored n x k.
    Nt,
}

/// The layout of `a · b` if the small kernels handle it: B must have unit
/// column stride (NN, TN) or be a transposed row-major matrix with A
/// row-major (NT). Anything else (both transposed, general strides) is
/// left to faer.
pub fn layout(a: &View<'_>, b: &View<'_>) -> Option<Layout> {
    let (_, rsa, csa) = a.raw();
    let (_, rsb, csb) = b.raw();
    if csb == 1 && csa == 1 {
        Some(Layout::Nn)
    } else if csb == 1 && rsa == 1 {
        Some(Layout::Tn)
    } else if rsb == 1 && csa == 1 {
        Some(Layout::Nt)
    } else {
        None
    }
}

/// Largest `m * n * k` (multiply-adds) that [`crate::gemm`] sends to the
/// small kernels in any layout: the cube DQN net's 64 x 144 x 128 layer,
/// so every GEMM of `dqn_step/2048` and `dqn_step/cube` runs here.
///
/// Measured with `cargo xtask bench /32x` (and `/64`, `/128`) on this
/// project's machine (Xeon, AVX-512, one core), our time over faer's on
/// the same row-major data: 32 x 64 x 4 0.21-0.22, 64 x 64 x 6 0.44-0.52
/// (its /dW 0.59-0.63, /dx 0.63-0.80), 32 x 16 x 64 /dW 0.54-0.59, 32 x 64
/// x 64 and 64 x 64 x 64 0.86-0.97; the cube net's 64 x 128 x 64 and 64 x
/// 144 x 128 in all three layouts 0.87-0.96 in the first bench run
/// (docs/notebook/kernels-and-gemm.md)
/// and 0.88-0.98 in an interleaved A/B loop, 0.89-1.03 in the last two
/// xtask runs: parity or a little better. 64 x 140 x 140 (0.97-0.99) and 128 x 128 x 128 (0.96-1.11)
/// are ties, so faer keeps them and everything larger. The batch-1 and
/// batch-8 AlphaZero forwards (NT, dot form) all fit under it and win:
/// 1 x 198 x 140 0.72-0.85, 1 x 140 x 140 0.63-0.80, 1 x 140 x 676
/// 0.74-0.78, 8 x 198 x 140 0.69-0.86, 8 x 140 x 140 0.70-0.72, 8 x 140 x
/// 676 0.74-0.78. (On this shared machine runs of faer against itself
/// differed by up to 25%; in a quiet run by 2%.)
const SMALL_VOLUME: usize = 64 * 144 * 128;

/// Whether [`crate::gemm`] takes the small path for this product at this
/// SIMD level (see [`route`]).
///
/// AVX2 takes exactly the shapes AVX-512 takes: the kernels sum in the
/// same order at both (see `x86::dot_block`), so a run gives the same bits
/// on a CPU with AVX-512 as on one with AVX2 only, where faer would sum
/// differently. On an AVX-512 CPU faer was about twice as fast as our AVX2
/// kernels on the broadcast shapes (120-145 against 60-66 GFLOP/s), but
/// there faer itself runs AVX-512; on an AVX2-only CPU both are AVX2.
///
/// At `Level::Scalar` faer (which brings its own SIMD) is always faster
/// than the portable fallback, so it keeps those calls. NT with n = 1 (a
/// value head's dot products) goes to faer's matrix-vector path: 1 x 140
/// x 1 took 40 ns there against 120 ns in our dot kernel, which computes
/// 16 outputs per block.
pub(crate) fn takes(level: Level, layout: Layout, m: usize, n: usize, k: usize) -> bool {
    let volume = m.saturating_mul(n).saturating_mul(k);
    let nt = layout == Layout::Nt;
    if nt && n == 1 {
        return false;
    }
    match level {
        Level::Scalar => false,
        _ if volume > SMALL_VOLUME => false,
        Level::Avx2 | Level::Avx512 => true,
    }
}

/// How a product is computed, chosen once from the whole product's shape:
/// the row bands of [`crate::gemm_threads`] then compute exactly what one
/// call would (a band alone might pick another kernel, which sums in
/// another order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// faer's `matmul`. `by_rows`: its rows may be computed in bands. faer
    /// picks its kernels by shape, and on small products (all of them in
    /// a tested case with k = 7, both operands transposed) a band's rows
    /// came out different from the whole call's; on the large row-major
    /// products it takes from these kernels they did not
    /// (`tests/gemm_threads_exact.rs`), so only those are split.
    Faer { by_rows: bool },
    /// These kernels, at `level`; NT through the packed broadcast kernel
    /// if `packed`, else the dot kernel.
    Small { level: Level, layout: Layout, packed: bool },
}

/// The route [`crate::gemm`] takes for `a · b` on the calling thread.
pub(crate) fn route(a: &View<'_>, b: &View<'_>) -> Route {
    let Some(layout) = layout(a, b) else {
        return Route::Faer { by_rows: false };
    };
    let level = level();
    let (m, n, k) = (a.rows(), b.cols(), a.cols());
    if !takes(level, layout, m, n, k) {
        return Route::Faer { by_rows: m.saturating_mul(n).saturating_mul(k) > SMALL_VOLUME };
    }
    Route::Small { level, layout, packed: nt_packs(layout, m, n, k) }
}

/// NT takes the packed path when k is at most this many times m: packing
/// costs about 0.1 ns per element of B (n x k) once, the dot form's
/// reductions about the same per element of C (m x n). Measured with a
/// local A/B harness (dot form vs packed, AVX-512): 8 x 16 x 64 0.29 us
/// packed vs 0.54 us dot; 8 x 64 x 64 0.84 vs 0.83; 12 x 64 x 64 1.13 vs
/// 1.27; 12 x 140 x 140 5.6 vs 5.1; 16 x 140 x 140 6.7 vs 7.1;
/// 32 x 64 x 64 2.2 vs 3.4.
const PACK_K_PER_ROW: usize = 8;
/// ... and n is at least this (thinner outputs waste the broadcast
/// kernel's lanes: 32 x 64 x 4 and 64 x 64 x 6 run 3-4x faster dot form).
const PACK_MIN_N: usize = 16;

/// Whether the product is NT through the packed broadcast kernel rather
/// than the dot kernel.
fn nt_packs(layout: Layout, m: usize, n: usize, k: usize) -> bool {
    layout == Layout::Nt && n >= PACK_MIN_N && k <= PACK_K_PER_ROW * m
}

/// dst = alpha * a · b + beta * dst on the small kernels, whatever the
/// shape, at the calling thread's SIMD level. beta = 0 never reads dst;
/// beta = 1 accumulates.
///
/// Panics if the shapes disagree or the layout is not one of [`Layout`].
#[track_caller]
pub fn gemm(mut dst: ViewMut<'_>, beta: f32, a: View<'_>, b: View<'_>, alpha: f32) {
    assert!(
        a.cols() == b.rows() && dst.rows() == a.rows() && dst.cols() == b.cols(),
        "small_gemm: {}x{} = {}x{} * {}x{}",
        dst.rows(),
        dst.cols(),
        a.rows(),
        a.cols(),
        b.rows(),
        b.cols()
    );
    let Some(layout) = layout(&a, &b) else {
        panic!(
            "small_gemm: operands {}x{} and {}x{} need unit column stride (or a transposed row-major B with row-major A)",
            a.rows(),
            a.cols(),
            b.rows(),
            b.cols()
        );
    };
    let packed = nt_packs(layout, a.rows(), b.cols(), a.cols());
    run(level(), layout, packed, &mut dst, beta, &a, &b, alpha);
}

/// The operands as slices and strides: element (i, p) of A is
/// `a[i * rsa + p * csa]`, element (p, j) of B is `b[p * rsb + j * csb]`,
/// element (i, j) of C is `c[i * ldc + j]`. Every element in range lies
/// inside its slice (the views' constructors checked it).
struct Operands<'s> {
    layout: Layout,
    /// NT only: through the packed broadcast kernel (else the dot kernel).
    packed: bool,
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    beta: f32,
    a: &'s [f32],
    rsa: usize,
    csa: usize,
    b: &'s [f32],
    rsb: usize,
    csb: usize,
    c: &'s mut [f32],
    ldc: usize,
}

/// dst = alpha * a · b + beta * dst on the kernel the arguments name.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    level: Level,
    layout: Layout,
    packed: bool,
    dst: &mut ViewMut<'_>,
    beta: f32,
    a: &View<'_>,
    b: &View<'_>,
    alpha: f32,
) {
    let (m, n, k) = (a.rows(), b.cols(), a.cols());
    let (a, rsa, csa) = a.raw();
    let (b, rsb, csb) = b.raw();
    let (c, ldc) = dst.raw_mut();
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            let row = &mut c[i * ldc..i * ldc + n];
            if beta == 0.0 {
                row.fill(0.0);
            } else if beta != 1.0 {
                row.iter_mut().for_each(|x| *x *= beta);
            }
        }
        return;
    }
    let ops = Operands { layout, packed, m, n, k, alpha, beta, a, rsa, csa, b, rsb, csb, c, ldc };
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX-512 only when the CPU has AVX-512F/VL/BW/DQ, AVX2 and FMA.
        Level::Avx512 => unsafe { x86::gemm_avx512(ops) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX2 only when the CPU has AVX2 and FMA.
        Level::Avx2 => unsafe { x86::gemm_avx2(ops) },
        _ => scalar::gemm(ops),
    }
}
