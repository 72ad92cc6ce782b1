//! The x86 kernels, generic over [`Simd`] and compiled once per ISA by the
//! two `#[target_feature]` entries at the bottom.
//!
//! Raw pointers stand for the operands inside the kernels; every pointer a
//! kernel dereferences is an element (i, p) / (p, j) / (i, j) in range of
//! the [`Operands`] it was derived from, or a lane of the stack panel that
//! was written before it is read.

use super::simd::{Avx2, Avx512, Simd, transpose8, transpose16x4};
use super::{Layout, Operands};
use std::mem::MaybeUninit;

/// NT through the packed broadcast kernel: the most of k packed at once.
/// A panel is `KC x 64` floats (36 KiB), so it stays in L1 while every row
/// block of A streams past it; 144 covers the AlphaZero net's k = 140 in
/// one chunk (two chunks of 70 measured about 10% slower at 64 x 140 x 140,
/// since C is read back for the second).
const KC: usize = 144;
const PANEL: usize = KC * 64;

/// One register block of the broadcast kernel: `c[0..MR, 0..w] (+)=
/// alpha * a[0..MR, 0..k] · b[0..k, 0..w]`, w = (NV - 1) * W + |last|.
#[derive(Clone, Copy)]
struct Block<M> {
    k: usize,
    a: *const f32,
    rsa: usize,
    csa: usize,
    b: *const f32,
    ldb: usize,
    /// Lanes of the last vector of each row that are inside C.
    last: M,
    c: *mut f32,
    ldc: usize,
    alpha: f32,
    beta: f32,
}

/// The broadcast kernel on one `MR x NV` vector block: MR * NV accumulators
/// stay in registers over all of k.
///
/// # Safety
/// Every element of the block (A rows 0..MR x 0..k through its strides, B
/// rows 0..k x the lanes of the block, C likewise) is valid.
#[inline(always)]
unsafe fn broadcast_block<S: Simd, const MR: usize, const NV: usize>(s: S, blk: &Block<S::M>) {
    let Block { k, a, rsa, csa, b, ldb, last, c, ldc, alpha, beta } = *blk;
    // SAFETY: the caller vouches for every element named here; the last
    // vector of each row is masked to the lanes inside C.
    unsafe {
        let mut acc = [[s.zero(); NV]; MR];
        for p in 0..k {
            let bp = b.add(p * ldb);
            let mut bv = [s.zero(); NV];
            for v in 0..NV {
                bv[v] = if v + 1 < NV { s.load(bp.add(v * S::W)) } else { s.load_m(bp.add(v * S::W), last) };
            }
            for r in 0..MR {
                let x = s.splat(*a.add(r * rsa + p * csa));
                for v in 0..NV {
                    acc[r][v] = s.fma(x, bv[v], acc[r][v]);
                }
            }
        }
        let va = s.splat(alpha);
        let vb = s.splat(beta);
        for r in 0..MR {
            let cr = c.add(r * ldc);
            for v in 0..NV {
                let cp = cr.add(v * S::W);
                let full = v + 1 < NV;
                let y = if beta == 0.0 {
                    if alpha == 1.0 { acc[r][v] } else { s.mul(va, acc[r][v]) }
                } else {
                    let old = if full { s.load(cp) } else { s.load_m(cp, last) };
                    let old = if beta == 1.0 { old } else { s.mul(vb, old) };
                    s.fma(va, acc[r][v], old)
                };
                if full { s.store(cp, y) } else { s.store_m(cp, last, y) }
            }
        }
    }
}

/// Calls the `broadcast_block` instance for `mr` rows and `nv` vectors.
macro_rules! broadcast_table {
    ($s:expr, $mr:expr, $nv:expr, $blk:expr; $($nvs:literal => [$($mrs:literal)*]),*) => {
        match ($nv, $mr) {
            $($(($nvs, $mrs) => broadcast_block::<_, $mrs, $nvs>($s, $blk),)*)*
            _ => unreachable!("small_gemm: no {} x {} block", $mr, $nv),
        }
    };
}

/// Per ISA: the broadcast block instances it has, and its transposing pack.
trait Blocks: Simd {
    /// # Safety
    /// As [`broadcast_block`], with `1 <= mr <= mr_max(nv)`,
    /// `1 <= nv <= NV_MAX`.
    unsafe fn broadcast(self, mr: usize, nv: usize, blk: &Block<Self::M>);

    /// dst[p * ldd + j] = src[j * lds + p] for j < w, p < kc.
    ///
    /// # Safety
    /// src rows 0..w (kc floats each) are readable, dst rows 0..kc (w
    /// floats each) writable.
    unsafe fn pack_transposed(self, src: *const f32, lds: usize, w: usize, kc: usize, dst: *mut f32, ldd: usize) {
        // SAFETY: forwarded from the caller; both ISAs have AVX.
        unsafe { pack_transposed(src, lds, w, kc, dst, ldd) }
    }
}

impl Blocks for Avx512 {
    #[inline(always)]
    unsafe fn broadcast(self, mr: usize, nv: usize, blk: &Block<Self::M>) {
        // SAFETY: forwarded from the caller.
        unsafe {
            broadcast_table!(self, mr, nv, blk;
                1 => [1 2 3 4 5 6 7 8 9 10 11 12],
                2 => [1 2 3 4 5 6 7 8 9 10 11 12],
                3 => [1 2 3 4 5 6 7 8],
                4 => [1 2 3 4 5 6])
        }
    }

    /// 16 x 4 tiles with 512-bit registers: a 64 x 64 pack took about
    /// 300 ns here against about 440 ns with the 8 x 8 AVX tiles (fewer
    /// shuffles per element); rows left over take the 8 x 8 path.
    #[inline(always)]
    unsafe fn pack_transposed(self, src: *const f32, lds: usize, w: usize, kc: usize, dst: *mut f32, ldd: usize) {
        let (w16, k4) = (w / 16 * 16, kc / 4 * 4);
        // SAFETY: every index stays below (w, kc), as the caller vouched.
        unsafe {
            for j in (0..w16).step_by(16) {
                for p in (0..k4).step_by(4) {
                    transpose16x4(src.add(j * lds + p), lds, dst.add(p * ldd + j), ldd);
                }
                for jj in j..j + 16 {
                    for p in k4..kc {
                        *dst.add(p * ldd + jj) = *src.add(jj * lds + p);
                    }
                }
            }
            if w16 < w {
                pack_transposed(src.add(w16 * lds), lds, w - w16, kc, dst.add(w16), ldd);
            }
        }
    }
}

impl Blocks for Avx2 {
    #[inline(always)]
    unsafe fn broadcast(self, mr: usize, nv: usize, blk: &Block<Self::M>) {
        // SAFETY: forwarded from the caller.
        unsafe {
            broadcast_table!(self, mr, nv, blk;
                1 => [1 2 3 4 5 6 7 8],
                2 => [1 2 3 4 5 6])
        }
    }
}

/// Splits `len` into the fewest parts of at most `max`, as even as
/// possible: (start, size) pairs.
pub(crate) fn even_parts(len: usize, max: usize) -> impl Iterator<Item = (usize, usize)> {
    let parts = len.div_ceil(max);
    let (base, extra) = (len / parts.max(1), len % parts.max(1));
    (0..parts).map(move |q| (q * base + q.min(extra), base + usize::from(q < extra)))
}

/// Splits n columns into panels of at most `NV_MAX` vectors, as even as
/// possible (140 columns: 3 panels of 3 vectors, not 4 + 4 + 1): (first
/// column, width, vectors) triples. Only the last panel's last vector is
/// partial.
fn column_panels<S: Simd>(n: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    even_parts(n.div_ceil(S::W), S::NV_MAX).map(move |(v0, nv)| {
        let j0 = v0 * S::W;
        (j0, (nv * S::W).min(n - j0), nv)
    })
}

/// C (+)= alpha * A · B with B rows contiguous (`b[p * ldb + j]`), A
/// through any strides: NN and TN directly, NT from a packed panel.
///
/// # Safety
/// As [`broadcast_block`] for the whole m x n x k product.
#[inline(always)]
unsafe fn broadcast_product<S: Blocks>(s: S, m: usize, n: usize, blk: Block<S::M>) {
    for (j0, w, nv) in column_panels::<S>(n) {
        let last = s.mask(w - (nv - 1) * S::W);
        for (i0, mr) in even_parts(m, S::mr_max(nv)) {
            // SAFETY: rows i0..i0 + mr and columns j0..j0 + w are inside
            // the product the caller vouched for.
            unsafe {
                let at = Block {
                    a: blk.a.add(i0 * blk.rsa),
                    b: blk.b.add(j0),
                    c: blk.c.add(i0 * blk.ldc + j0),
                    last,
                    ..blk
                };
                s.broadcast(mr, nv, &at);
            }
        }
    }
}

/// NT by packing: for each 64-column panel of C and each chunk of k, B's
/// rows are transposed into a stack panel, then the broadcast kernel runs
/// over all rows of A. Chunks after the first accumulate (beta = 1).
///
/// # Safety
/// `o` describes a valid NT product (`o.rsb == 1`) and the CPU has AVX.
#[inline(always)]
unsafe fn packed_nt<S: Blocks>(s: S, o: &Raw) {
    let mut panel = MaybeUninit::<[f32; PANEL]>::uninit();
    let panel = panel.as_mut_ptr().cast::<f32>();
    for (j0, w, nv) in column_panels::<S>(o.n) {
        let ldp = nv * S::W;
        let last = s.mask(w - (nv - 1) * S::W);
        for (p0, kc) in even_parts(o.k, KC) {
            // SAFETY: B rows j0..j0 + w and columns p0..p0 + kc are in
            // range; the panel holds kc <= KC rows of ldp <= 64 floats, and
            // the kernel reads only the lanes inside `last`, all written.
            unsafe {
                s.pack_transposed(o.b.add(j0 * o.csb + p0), o.csb, w, kc, panel, ldp);
                let beta = if p0 == 0 { o.beta } else { 1.0 };
                for (i0, mr) in even_parts(o.m, S::mr_max(nv)) {
                    let blk = Block {
                        k: kc,
                        a: o.a.add(i0 * o.rsa + p0 * o.csa),
                        rsa: o.rsa,
                        csa: o.csa,
                        b: panel,
                        ldb: ldp,
                        last,
                        c: o.c.add(i0 * o.ldc + j0),
                        ldc: o.ldc,
                        alpha: o.alpha,
                        beta,
                    };
                    s.broadcast(mr, nv, &blk);
                }
            }
        }
    }
}

/// dst[p * ldd + j] = src[j * lds + p] for j < w, p < kc: 8 x 8 AVX tiles,
/// scalar edges.
///
/// # Safety
/// The CPU has AVX; src rows 0..w (kc floats each) are readable, dst rows
/// 0..kc (w floats each) writable.
#[inline(always)]
unsafe fn pack_transposed(src: *const f32, lds: usize, w: usize, kc: usize, dst: *mut f32, ldd: usize) {
    let (w8, k8) = (w / 8 * 8, kc / 8 * 8);
    // SAFETY: every index stays below (w, kc), as the caller vouched.
    unsafe {
        for j in (0..w8).step_by(8) {
            for p in (0..k8).step_by(8) {
                transpose8(src.add(j * lds + p), lds, dst.add(p * ldd + j), ldd);
            }
            for jj in j..j + 8 {
                for p in k8..kc {
                    *dst.add(p * ldd + jj) = *src.add(jj * lds + p);
                }
            }
        }
        for jj in w8..w {
            for p in 0..kc {
                *dst.add(p * ldd + jj) = *src.add(jj * lds + p);
            }
        }
    }
}

/// The dot kernel on an `MR x NR` block with MR * NR = W: C[i, j] (+)=
/// alpha * dot(A row i, B row j), then one reduction tree for the whole
/// block. Rows past `mr` / columns past `nr` repeat the last valid one and
/// are not stored.
///
/// Every ISA sums in the same order, so a product gives the same bits at
/// AVX2 as at AVX-512: each pair keeps [`DOT_LANES`] partial sums (lane l
/// takes the k with k mod 16 = l, in order; at AVX2 as two vectors) that a
/// halving tree then adds (lane q + lane q + 8, then q + 4, q + 2, q + 1).
///
/// # Safety
/// A rows 0..mr and B rows 0..nr (k floats each, `lda` / `ldb` apart) are
/// readable; C rows 0..mr (nr floats each) writable; 1 <= mr <= MR,
/// 1 <= nr <= NR, k >= 1.
#[inline(always)]
unsafe fn dot_block<S: Simd, const MR: usize, const NR: usize>(
    s: S,
    o: &Raw,
    a: *const f32,
    mr: usize,
    b: *const f32,
    nr: usize,
    c: *mut f32,
) {
    debug_assert!(MR * NR == S::W);
    let (k, lda, ldb) = (o.k, o.rsa, o.csb);
    // SAFETY: rows are clamped to the valid ones; the tail of k is masked.
    unsafe {
        let mut ar = [a; MR];
        for i in 0..MR {
            ar[i] = a.add(i.min(mr - 1) * lda);
        }
        let mut br = [b; NR];
        for j in 0..NR {
            br[j] = b.add(j.min(nr - 1) * ldb);
        }
        // acc[i][j][h] holds lanes h * W.. of the pair's DOT_LANES sums.
        let parts = DOT_LANES / S::W;
        let mut acc = [[[s.zero(); 2]; NR]; MR];
        let k_full = k / DOT_LANES * DOT_LANES;
        let mut p = 0;
        while p < k_full {
            for h in 0..parts {
                let q = p + h * S::W;
                let mut bv = [s.zero(); NR];
                for j in 0..NR {
                    bv[j] = s.load(br[j].add(q));
                }
                for i in 0..MR {
                    let av = s.load(ar[i].add(q));
                    for j in 0..NR {
                        acc[i][j][h] = s.fma(av, bv[j], acc[i][j][h]);
                    }
                }
            }
            p += DOT_LANES;
        }
        if k_full < k {
            for h in 0..parts {
                // The lanes past k are zero (an empty mask reads nothing, so
                // the pointer may point past the row: hence `wrapping_add`).
                let q = p + h * S::W;
                let tail = s.mask((k - k_full).saturating_sub(h * S::W).min(S::W));
                let mut bv = [s.zero(); NR];
                for j in 0..NR {
                    bv[j] = s.load_m(br[j].wrapping_add(q), tail);
                }
                for i in 0..MR {
                    let av = s.load_m(ar[i].wrapping_add(q), tail);
                    for j in 0..NR {
                        acc[i][j][h] = s.fma(av, bv[j], acc[i][j][h]);
                    }
                }
            }
        }
        let mut flat = [s.zero(); 16];
        for i in 0..MR {
            for j in 0..NR {
                // At AVX2 this add is the tree's first level (lane q + lane
                // q + 8), which `reduce` leaves out there.
                let sums = if parts == 2 { s.add(acc[i][j][0], acc[i][j][1]) } else { acc[i][j][0] };
                flat[S::slot(i * NR + j)] = sums;
            }
        }
        // Lane i * NR + j holds C[i, j].
        let sums = s.mul(s.splat(o.alpha), s.reduce(&flat));
        let keep = s.mask(nr);
        let vb = s.splat(o.beta);
        for i in 0..mr.min(MR) {
            let row = if i == 0 { sums } else { s.lanes_from(sums, i * NR) };
            let cp = c.add(i * o.ldc);
            let y = if o.beta == 0.0 {
                row
            } else if o.beta == 1.0 {
                s.add(row, s.load_m(cp, keep))
            } else {
                s.fma(vb, s.load_m(cp, keep), row)
            };
            s.store_m(cp, keep, y);
        }
    }
}

/// The dot kernel over rows `i0..i1` of C (all columns), in `MR x NR`
/// blocks; B's block stays in L1 while the row blocks pass.
///
/// # Safety
/// `o` describes a valid NT product; i0 < i1 <= m.
#[inline(always)]
unsafe fn dot_rows<S: Simd, const MR: usize, const NR: usize>(s: S, o: &Raw, i0: usize, i1: usize) {
    for j0 in (0..o.n).step_by(NR) {
        let nr = NR.min(o.n - j0);
        for i in (i0..i1).step_by(MR) {
            let mr = MR.min(i1 - i);
            // SAFETY: rows i..i + mr of A and C, rows j0..j0 + nr of B and
            // columns j0..j0 + nr of C are in range.
            unsafe {
                dot_block::<S, MR, NR>(s, o, o.a.add(i * o.rsa), mr, o.b.add(j0 * o.csb), nr, o.c.add(i * o.ldc + j0))
            }
        }
    }
}

/// The operands as raw pointers (see [`Operands`] for the indexing).
struct Raw {
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    beta: f32,
    a: *const f32,
    rsa: usize,
    csa: usize,
    b: *const f32,
    rsb: usize,
    csb: usize,
    c: *mut f32,
    ldc: usize,
}

impl Raw {
    fn new(o: Operands<'_>) -> (Layout, bool, Self) {
        let raw = Self {
            m: o.m,
            n: o.n,
            k: o.k,
            alpha: o.alpha,
            beta: o.beta,
            a: o.a.as_ptr(),
            rsa: o.rsa,
            csa: o.csa,
            b: o.b.as_ptr(),
            rsb: o.rsb,
            csb: o.csb,
            c: o.c.as_mut_ptr(),
            ldc: o.ldc,
        };
        (o.layout, o.packed, raw)
    }

    fn block<M>(&self, last: M) -> Block<M> {
        Block {
            k: self.k,
            a: self.a,
            rsa: self.rsa,
            csa: self.csa,
            b: self.b,
            ldb: self.rsb,
            last,
            c: self.c,
            ldc: self.ldc,
            alpha: self.alpha,
            beta: self.beta,
        }
    }
}

/// The partial sums per output of the dot kernel: one AVX-512 vector, two
/// AVX2 ones.
const DOT_LANES: usize = 16;

/// # Safety
/// The CPU has AVX-512F/VL/BW/DQ, AVX2 and FMA; `o` has m, n, k >= 1.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
pub(super) unsafe fn gemm_avx512(o: Operands<'_>) {
    // SAFETY: the caller vouches for the CPU.
    let s = unsafe { Avx512::new() };
    let (layout, packed, o) = Raw::new(o);
    // SAFETY: `Operands` guarantees every element in range is inside its
    // slice, which is all the kernels read or write.
    unsafe {
        match layout {
            Layout::Nn | Layout::Tn => broadcast_product(s, o.m, o.n, o.block(s.mask(16))),
            Layout::Nt if packed => packed_nt(s, &o),
            Layout::Nt => {
                let m4 = o.m / 4 * 4;
                if m4 > 0 {
                    dot_rows::<_, 4, 4>(s, &o, 0, m4);
                }
                match o.m - m4 {
                    0 => {}
                    1 => dot_rows::<_, 1, 16>(s, &o, m4, o.m),
                    2 => dot_rows::<_, 2, 8>(s, &o, m4, o.m),
                    _ => dot_rows::<_, 4, 4>(s, &o, m4, o.m),
                }
            }
        }
    }
}

/// # Safety
/// The CPU has AVX2 and FMA; `o` has m, n, k >= 1.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn gemm_avx2(o: Operands<'_>) {
    // SAFETY: the caller vouches for the CPU.
    let s = unsafe { Avx2::new() };
    let (layout, packed, o) = Raw::new(o);
    // SAFETY: as in `gemm_avx512`.
    unsafe {
        match layout {
            Layout::Nn | Layout::Tn => broadcast_product(s, o.m, o.n, o.block(s.mask(8))),
            Layout::Nt if packed => packed_nt(s, &o),
            Layout::Nt => {
                let m2 = o.m / 2 * 2;
                if m2 > 0 {
                    dot_rows::<_, 2, 4>(s, &o, 0, m2);
                }
                if o.m > m2 {
                    dot_rows::<_, 1, 8>(s, &o, m2, o.m);
                }
            }
        }
    }
}
