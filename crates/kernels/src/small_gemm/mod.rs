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
/// 144 x 128 in all three layouts 0.87-0.96 in docs/PERFORMANCE.md's run
/// and 0.88-0.98 in an interleaved A/B loop, 0.89-1.03 in the last two
/// xtask runs: parity or a little better. 64 x 140 x 140 (0.97-0.99) and 128 x 128 x 128 (0.96-1.11)
/// are ties, so faer keeps them and everything larger. The batch-1 and
/// batch-8 AlphaZero forwards (NT, dot form) all fit under it and win:
/// 1 x 198 x 140 0.72-0.85, 1 x 140 x 140 0.63-0.80, 1 x 140 x 676
/// 0.74-0.78, 8 x 198 x 140 0.69-0.86, 8 x 140 x 140 0.70-0.72, 8 x 140 x
/// 676 0.74-0.78. (On this shared machine runs of faer against itself
/// differed by up to 25%; in a quiet run by 2%.)
const SMALL_VOLUME: usize = 64 * 144 * 128;

/// At `Level::Avx2` the small path only takes the NT shapes where our
/// AVX2 kernels beat faer even when faer uses AVX-512 (all this machine
/// can measure; faer picks its own instruction set): batch-1 Linear
/// forwards (1 x 198 x 140: 0.71x, 1 x 140 x 676: 0.82x) and thin outputs
/// (32 x 64 x 4: 0.25x, 64 x 64 x 6: 0.55x). Elsewhere our AVX2 kernels
/// ran at 60-66 GFLOP/s against faer's AVX-512 120-145; on a CPU without
/// AVX-512 faer would be slower too, so this should be re-measured there.
const AVX2_NT_MAX_N: usize = 8;

/// Whether [`crate::gemm`] takes the small path for this product at this
/// SIMD level.
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
        Level::Avx2 => nt && (m == 1 || n <= AVX2_NT_MAX_N),
        Level::Avx512 => true,
    }
}

/// Runs `dst = alpha * a · b + beta * dst` on the small kernels if
/// [`takes`] says so; returns whether it did. Called by [`crate::gemm`]
/// after the shape check.
pub(crate) fn try_gemm(dst: &mut ViewMut<'_>, beta: f32, a: &View<'_>, b: &View<'_>, alpha: f32) -> bool {
    let Some(layout) = layout(a, b) else {
        return false;
    };
    let level = level();
    if !takes(level, layout, a.rows(), b.cols(), a.cols()) {
        return false;
    }
    run(level, layout, dst, beta, a, b, alpha);
    true
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
    run(level(), layout, &mut dst, beta, &a, &b, alpha);
}

/// The operands as slices and strides: element (i, p) of A is
/// `a[i * rsa + p * csa]`, element (p, j) of B is `b[p * rsb + j * csb]`,
/// element (i, j) of C is `c[i * ldc + j]`. Every element in range lies
/// inside its slice (the views' constructors checked it).
struct Operands<'s> {
    layout: Layout,
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

fn run(level: Level, layout: Layout, dst: &mut ViewMut<'_>, beta: f32, a: &View<'_>, b: &View<'_>, alpha: f32) {
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
    let ops = Operands { layout, m, n, k, alpha, beta, a, rsa, csa, b, rsb, csb, c, ldc };
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
