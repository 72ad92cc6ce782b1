//! The vector operations the small GEMM kernels are written in, for
//! AVX-512 (16 lanes) and AVX2+FMA (8 lanes).
//!
//! A value of [`Avx512`] or [`Avx2`] is proof that the CPU has the features
//! (it is only made by an `unsafe` constructor), so arithmetic on it is
//! safe; loads and stores stay `unsafe` because they take raw pointers.
//! Every method is `#[inline(always)]`: the kernels are generic over
//! [`Simd`] and are inlined whole into one `#[target_feature]` entry per
//! ISA (`x86.rs`), where the intrinsics compile to single instructions.

use std::arch::x86_64::*;

pub(super) trait Simd: Copy {
    /// A vector of `W` floats.
    type V: Copy;
    /// A lane mask.
    type M: Copy;
    const W: usize;
    /// Broadcast kernel: the widest block of C, in vectors per row.
    const NV_MAX: usize;

    /// Broadcast kernel: the most rows of C per block when a row is `nv`
    /// vectors wide (accumulators plus the B row must fit the registers).
    fn mr_max(nv: usize) -> usize;
    /// Dot kernel: the accumulator (of `W` per block) whose sum lands in
    /// lane `lane` after [`Simd::reduce`].
    fn slot(lane: usize) -> usize;

    fn zero(self) -> Self::V;
    fn splat(self, x: f32) -> Self::V;
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// a * b + c
    fn fma(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// The first `n` lanes (`n <= W`).
    fn mask(self, n: usize) -> Self::M;
    /// Lane `i` of the result is lane `start + i` of `v` (higher lanes are
    /// unspecified).
    fn lanes_from(self, v: Self::V, start: usize) -> Self::V;
    /// Lane `l` of the result is the sum of all lanes of `acc[slot(l)]`;
    /// only the first `W` entries of `acc` are read.
    fn reduce(self, acc: &[Self::V; 16]) -> Self::V;

    /// # Safety
    /// `p` is valid for reading `W` floats.
    unsafe fn load(self, p: *const f32) -> Self::V;
    /// Lanes outside `m` are zero and their memory is not touched.
    ///
    /// # Safety
    /// `p + i` is valid for reading for every lane `i` in `m`.
    unsafe fn load_m(self, p: *const f32, m: Self::M) -> Self::V;
    /// # Safety
    /// `p` is valid for writing `W` floats.
    unsafe fn store(self, p: *mut f32, v: Self::V);
    /// Writes only the lanes in `m`.
    ///
    /// # Safety
    /// `p + i` is valid for writing for every lane `i` in `m`.
    unsafe fn store_m(self, p: *mut f32, m: Self::M, v: Self::V);
}

/// AVX-512F/VL/BW/DQ with FMA.
#[derive(Clone, Copy, Debug)]
pub(super) struct Avx512(());

impl Avx512 {
    /// # Safety
    /// The CPU supports AVX-512F, AVX-512VL, AVX-512BW, AVX-512DQ and FMA.
    #[inline(always)]
    pub(super) unsafe fn new() -> Self {
        Self(())
    }
}

/// AVX2 with FMA.
#[derive(Clone, Copy, Debug)]
pub(super) struct Avx2(());

impl Avx2 {
    /// # Safety
    /// The CPU supports AVX2 and FMA.
    #[inline(always)]
    pub(super) unsafe fn new() -> Self {
        Self(())
    }
}

// In both impls every `unsafe` block is an intrinsic call whose only
// requirement (beyond the pointer contracts stated on the trait) is the
// CPU feature that `self` proves.

impl Simd for Avx512 {
    type V = __m512;
    type M = __mmask16;
    const W: usize = 16;
    const NV_MAX: usize = 4;

    #[inline(always)]
    fn mr_max(nv: usize) -> usize {
        // 32 zmm registers: MR * nv accumulators, nv for the B row, one broadcast.
        match nv {
            1 | 2 => 12,
            3 => 8,
            _ => 6,
        }
    }

    #[inline(always)]
    fn slot(lane: usize) -> usize {
        4 * (lane % 4) + lane / 4
    }

    #[inline(always)]
    fn zero(self) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_setzero_ps() }
    }
    #[inline(always)]
    fn splat(self, x: f32) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_set1_ps(x) }
    }
    #[inline(always)]
    fn add(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_add_ps(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_mul_ps(a, b) }
    }
    #[inline(always)]
    fn fma(self, a: __m512, b: __m512, c: __m512) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe { _mm512_fmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn mask(self, n: usize) -> __mmask16 {
        if n >= 16 { 0xFFFF } else { (1u16 << n) - 1 }
    }
    #[inline(always)]
    fn lanes_from(self, v: __m512, start: usize) -> __m512 {
        // SAFETY: `self` proves AVX-512F.
        unsafe {
            let idx = _mm512_add_epi32(
                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                _mm512_set1_epi32(start as i32),
            );
            _mm512_permutexvar_ps(idx, v)
        }
    }
    #[inline(always)]
    fn reduce(self, v: &[__m512; 16]) -> __m512 {
        // A transposing add tree: each level adds the two halves of every
        // vector and packs two vectors' halves into one, so 16 vectors
        // become one after 4 levels (15 adds, 30 shuffles).
        // SAFETY: `self` proves AVX-512F.
        unsafe {
            // [a0 a1 b0 b1] + [a2 a3 b2 b3] (128-bit chunks)
            let l1 = |a, b| {
                _mm512_add_ps(_mm512_shuffle_f32x4::<0b01_00_01_00>(a, b), _mm512_shuffle_f32x4::<0b11_10_11_10>(a, b))
            };
            // [x0 x2 y0 y2] + [x1 x3 y1 y3]
            let l2 = |x, y| {
                _mm512_add_ps(_mm512_shuffle_f32x4::<0b10_00_10_00>(x, y), _mm512_shuffle_f32x4::<0b11_01_11_01>(x, y))
            };
            // within each 128-bit chunk: [u0 u1 w0 w1] + [u2 u3 w2 w3]
            let l3 = |u, w| {
                _mm512_add_ps(_mm512_shuffle_ps::<0b01_00_01_00>(u, w), _mm512_shuffle_ps::<0b11_10_11_10>(u, w))
            };
            // within each chunk: [s0 s2 t0 t2] + [s1 s3 t1 t3]
            let l4 = |s, t| {
                _mm512_add_ps(_mm512_shuffle_ps::<0b10_00_10_00>(s, t), _mm512_shuffle_ps::<0b11_01_11_01>(s, t))
            };
            let p = [
                l1(v[0], v[1]),
                l1(v[2], v[3]),
                l1(v[4], v[5]),
                l1(v[6], v[7]),
                l1(v[8], v[9]),
                l1(v[10], v[11]),
                l1(v[12], v[13]),
                l1(v[14], v[15]),
            ];
            let q = [l2(p[0], p[1]), l2(p[2], p[3]), l2(p[4], p[5]), l2(p[6], p[7])];
            // Chunk c of q[r] holds partial sums of v[4r + c]; after l3 and
            // l4, lane 4c + r holds the sum of v[4r + c] (see `slot`).
            l4(l3(q[0], q[1]), l3(q[2], q[3]))
        }
    }

    #[inline(always)]
    unsafe fn load(self, p: *const f32) -> __m512 {
        // SAFETY: `self` proves AVX-512F; the caller vouches for `p`.
        unsafe { _mm512_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load_m(self, p: *const f32, m: __mmask16) -> __m512 {
        // SAFETY: `self` proves AVX-512F; masked-off lanes are not accessed.
        unsafe { _mm512_maskz_loadu_ps(m, p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32, v: __m512) {
        // SAFETY: `self` proves AVX-512F; the caller vouches for `p`.
        unsafe { _mm512_storeu_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn store_m(self, p: *mut f32, m: __mmask16, v: __m512) {
        // SAFETY: `self` proves AVX-512F; masked-off lanes are not accessed.
        unsafe { _mm512_mask_storeu_ps(p, m, v) }
    }
}

impl Simd for Avx2 {
    type V = __m256;
    type M = __m256i;
    const W: usize = 8;
    const NV_MAX: usize = 2;

    #[inline(always)]
    fn mr_max(nv: usize) -> usize {
        // 16 ymm registers: 6 x 2 accumulators + 2 for B + 1 broadcast.
        match nv {
            1 => 8,
            _ => 6,
        }
    }

    #[inline(always)]
    fn slot(lane: usize) -> usize {
        2 * (lane % 4) + lane / 4
    }

    #[inline(always)]
    fn zero(self) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_setzero_ps() }
    }
    #[inline(always)]
    fn splat(self, x: f32) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_set1_ps(x) }
    }
    #[inline(always)]
    fn add(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_add_ps(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: `self` proves AVX.
        unsafe { _mm256_mul_ps(a, b) }
    }
    #[inline(always)]
    fn fma(self, a: __m256, b: __m256, c: __m256) -> __m256 {
        // SAFETY: `self` proves FMA.
        unsafe { _mm256_fmadd_ps(a, b, c) }
    }
    #[inline(always)]
    fn mask(self, n: usize) -> __m256i {
        // SAFETY: `self` proves AVX2.
        unsafe { _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)) }
    }
    #[inline(always)]
    fn lanes_from(self, v: __m256, start: usize) -> __m256 {
        // SAFETY: `self` proves AVX2.
        unsafe {
            let idx = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(start as i32));
            _mm256_permutevar8x32_ps(v, idx)
        }
    }
    #[inline(always)]
    fn reduce(self, v: &[__m256; 16]) -> __m256 {
        // The AVX-512 tree without its first level: 8 vectors in 3 levels.
        // SAFETY: `self` proves AVX.
        unsafe {
            // [a.lo b.lo] + [a.hi b.hi]
            let l1 = |a, b| _mm256_add_ps(_mm256_permute2f128_ps::<0x20>(a, b), _mm256_permute2f128_ps::<0x31>(a, b));
            let l2 = |u, w| {
                _mm256_add_ps(_mm256_shuffle_ps::<0b01_00_01_00>(u, w), _mm256_shuffle_ps::<0b11_10_11_10>(u, w))
            };
            let l3 = |s, t| {
                _mm256_add_ps(_mm256_shuffle_ps::<0b10_00_10_00>(s, t), _mm256_shuffle_ps::<0b11_01_11_01>(s, t))
            };
            let p = [l1(v[0], v[1]), l1(v[2], v[3]), l1(v[4], v[5]), l1(v[6], v[7])];
            // Lane 4c + r ends up holding the sum of v[2r + c] (see `slot`).
            l3(l2(p[0], p[1]), l2(p[2], p[3]))
        }
    }

    #[inline(always)]
    unsafe fn load(self, p: *const f32) -> __m256 {
        // SAFETY: `self` proves AVX; the caller vouches for `p`.
        unsafe { _mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load_m(self, p: *const f32, m: __m256i) -> __m256 {
        // SAFETY: `self` proves AVX; masked-off lanes are not accessed.
        unsafe { _mm256_maskload_ps(p, m) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32, v: __m256) {
        // SAFETY: `self` proves AVX; the caller vouches for `p`.
        unsafe { _mm256_storeu_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn store_m(self, p: *mut f32, m: __m256i, v: __m256) {
        // SAFETY: `self` proves AVX; masked-off lanes are not accessed.
        unsafe { _mm256_maskstore_ps(p, m, v) }
    }
}

/// dst[p * ldd + j] = src[j * lds + p] for an 8 x 8 tile. Rows i and
/// i + 4 are loaded as the two halves of one register (the inserting load
/// runs on the load and ALU ports, not the shuffle port), so only two
/// levels of in-lane shuffles remain: 8 unpacks and 8 shuffles.
///
/// # Safety
/// The CPU has AVX; `src` rows 0..8 (8 floats each, `lds` apart) are
/// readable and `dst` rows 0..8 (`ldd` apart) are writable.
#[inline(always)]
pub(super) unsafe fn transpose8(src: *const f32, lds: usize, dst: *mut f32, ldd: usize) {
    // SAFETY: the caller vouches for the CPU and both tiles.
    unsafe {
        // r[h * 4 + i] = [row i, row i + 4] at columns 4h..4h + 4.
        let mut r = [_mm256_setzero_ps(); 8];
        for x in 0..8 {
            let (h, i) = (x / 4, x % 4);
            r[x] = _mm256_loadu2_m128(src.add((i + 4) * lds + 4 * h), src.add(i * lds + 4 * h));
        }
        for h in 0..2 {
            let q = &r[4 * h..4 * h + 4];
            let t0 = _mm256_unpacklo_ps(q[0], q[1]);
            let t1 = _mm256_unpackhi_ps(q[0], q[1]);
            let t2 = _mm256_unpacklo_ps(q[2], q[3]);
            let t3 = _mm256_unpackhi_ps(q[2], q[3]);
            let cols = [
                _mm256_shuffle_ps::<0x44>(t0, t2),
                _mm256_shuffle_ps::<0xEE>(t0, t2),
                _mm256_shuffle_ps::<0x44>(t1, t3),
                _mm256_shuffle_ps::<0xEE>(t1, t3),
            ];
            for (c, col) in cols.into_iter().enumerate() {
                _mm256_storeu_ps(dst.add((4 * h + c) * ldd), col);
            }
        }
    }
}

/// dst[p * ldd + j] = src[j * lds + p] for 16 rows j and 4 columns p: each
/// register gathers four rows' 4-float pieces (rows g, g + 4, g + 8,
/// g + 12 for register g) by inserting loads, then one in-lane 4 x 4
/// transpose (4 unpacks, 4 shuffles) leaves column p of all 16 rows in
/// register p.
///
/// # Safety
/// The CPU has AVX-512F; `src` rows 0..16 (4 floats each, `lds` apart) are
/// readable and `dst` rows 0..4 (16 floats each, `ldd` apart) writable.
#[inline(always)]
pub(super) unsafe fn transpose16x4(src: *const f32, lds: usize, dst: *mut f32, ldd: usize) {
    // SAFETY: the caller vouches for the CPU and both tiles.
    unsafe {
        let mut z = [_mm512_setzero_ps(); 4];
        for g in 0..4 {
            let v = _mm512_castps128_ps512(_mm_loadu_ps(src.add(g * lds)));
            let v = _mm512_insertf32x4::<1>(v, _mm_loadu_ps(src.add((4 + g) * lds)));
            let v = _mm512_insertf32x4::<2>(v, _mm_loadu_ps(src.add((8 + g) * lds)));
            z[g] = _mm512_insertf32x4::<3>(v, _mm_loadu_ps(src.add((12 + g) * lds)));
        }
        let t0 = _mm512_unpacklo_ps(z[0], z[1]);
        let t1 = _mm512_unpackhi_ps(z[0], z[1]);
        let t2 = _mm512_unpacklo_ps(z[2], z[3]);
        let t3 = _mm512_unpackhi_ps(z[2], z[3]);
        _mm512_storeu_ps(dst, _mm512_shuffle_ps::<0x44>(t0, t2));
        _mm512_storeu_ps(dst.add(ldd), _mm512_shuffle_ps::<0xEE>(t0, t2));
        _mm512_storeu_ps(dst.add(2 * ldd), _mm512_shuffle_ps::<0x44>(t1, t3));
        _mm512_storeu_ps(dst.add(3 * ldd), _mm512_shuffle_ps::<0xEE>(t1, t3));
    }
}
