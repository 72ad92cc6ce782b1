//! GEMM on row-major slices through faer's strided views: a transpose is a
//! view with swapped strides, never a copy.

use crate::small_gemm::{self, Route};
use faer::{Accum as FaerAccum, MatMut, MatRef};

pub use faer::Par;

/// A read-only matrix view over a slice: row-major storage with leading
/// dimension `ld`, possibly viewed transposed.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl<'a> View<'a> {
    /// A contiguous row-major `rows x cols` matrix.
    #[track_caller]
    pub fn new(data: &'a [f32], rows: usize, cols: usize) -> Self {
        Self::with_ld(data, rows, cols, cols)
    }

    /// A row-major `rows x cols` matrix whose rows start `ld` floats apart.
    #[track_caller]
    pub fn with_ld(data: &'a [f32], rows: usize, cols: usize, ld: usize) -> Self {
        check_footprint("View", data.len(), rows, cols, ld);
        Self { data, rows, cols, row_stride: ld, col_stride: 1 }
    }

    /// The transposed view (free).
    pub fn t(self) -> Self {
        Self { rows: self.cols, cols: self.rows, row_stride: self.col_stride, col_stride: self.row_stride, ..self }
    }

    /// Rows, as viewed.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns, as viewed.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Element (r, c).
    #[track_caller]
    pub fn at(&self, r: usize, c: usize) -> f32 {
        assert!(r < self.rows && c < self.cols, "View::at: ({r}, {c}) outside {}x{}", self.rows, self.cols);
        self.data[r * self.row_stride + c * self.col_stride]
    }

    /// The backing slice and the (row, column) strides.
    /// Rows `start..end`.
    fn row_range(self, start: usize, end: usize) -> Self {
        let offset = (start * self.row_stride).min(self.data.len());
        Self { data: &self.data[offset..], rows: end - start, ..self }
    }

    pub(crate) fn raw(&self) -> (&'a [f32], usize, usize) {
        (self.data, self.row_stride, self.col_stride)
    }

    pub(crate) fn faer(&self) -> MatRef<'a, f32> {
        // SAFETY: the constructor checked that every (r, c) in range maps
        // inside `data`, and transposing only swaps the two strides.
        unsafe {
            MatRef::from_raw_parts(
                self.data.as_ptr(),
                self.rows,
                self.cols,
                self.row_stride as isize,
                self.col_stride as isize,
            )
        }
    }
}

/// A mutable row-major `rows x cols` matrix view with leading dimension `ld`.
#[derive(Debug)]
pub struct ViewMut<'a> {
    data: &'a mut [f32],
    rows: usize,
    cols: usize,
    ld: usize,
}

impl<'a> ViewMut<'a> {
    /// A contiguous row-major `rows x cols` matrix.
    #[track_caller]
    pub fn new(data: &'a mut [f32], rows: usize, cols: usize) -> Self {
        Self::with_ld(data, rows, cols, cols)
    }

    /// A row-major `rows x cols` matrix whose rows start `ld` floats apart.
    #[track_caller]
    pub fn with_ld(data: &'a mut [f32], rows: usize, cols: usize, ld: usize) -> Self {
        check_footprint("ViewMut", data.len(), rows, cols, ld);
        Self { data, rows, cols, ld }
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The backing slice and the leading dimension.
    /// Rows `..mid` and `mid..`.
    fn split_rows(self, mid: usize) -> (ViewMut<'a>, ViewMut<'a>) {
        let (top, bottom) = self.data.split_at_mut((mid * self.ld).min(self.data.len()));
        let (rows, cols, ld) = (self.rows, self.cols, self.ld);
        (ViewMut { data: top, rows: mid, cols, ld }, ViewMut { data: bottom, rows: rows - mid, cols, ld })
    }

    pub(crate) fn raw_mut(&mut self) -> (&mut [f32], usize) {
        (self.data, self.ld)
    }

    fn faer(&mut self) -> MatMut<'_, f32> {
        // SAFETY: the constructor checked the footprint, and `&mut self`
        // makes this the only view of the data while it lives. (faer's own
        // row-major mutable constructor checks bounds as if column-major,
        // so it is avoided.)
        unsafe { MatMut::from_raw_parts_mut(self.data.as_mut_ptr(), self.rows, self.cols, self.ld as isize, 1) }
    }

    /// Multiplies every element in the view by `beta` (0 clears, even NaN).
    fn scale(&mut self, beta: f32) {
        let cols = self.cols;
        for r in 0..self.rows {
            let row = &mut self.data[r * self.ld..r * self.ld + cols];
            if beta == 0.0 {
                row.fill(0.0);
            } else {
                crate::scale(beta, row);
            }
        }
    }
}

#[track_caller]
fn check_footprint(what: &str, len: usize, rows: usize, cols: usize, ld: usize) {
    assert!(ld >= cols, "{what}: leading dimension {ld} is less than {cols} columns");
    if rows > 0 && cols > 0 {
        let need = (rows - 1) * ld + cols;
        assert!(len >= need, "{what}: {rows}x{cols} with ld {ld} needs {need} floats, slice has {len}");
    }
}

/// dst = alpha * a * b + beta * dst, where `a` and `b` may be transposed
/// views. beta = 0 never reads dst; beta = 1 accumulates.
/// `par` chooses faer's threading; at our sizes `Par::Seq` is usually right.
/// Small row-major products (see `small_gemm::takes`) run on minnow's own
/// kernels instead, always on the calling thread.
#[track_caller]
pub fn gemm(dst: ViewMut<'_>, beta: f32, a: View<'_>, b: View<'_>, alpha: f32, par: Par) {
    check_shapes(&dst, &a, &b);
    routed(small_gemm::route(&a, &b), dst, beta, a, b, alpha, par);
}

#[track_caller]
fn check_shapes(dst: &ViewMut<'_>, a: &View<'_>, b: &View<'_>) {
    assert!(
        a.cols == b.rows && dst.rows == a.rows && dst.cols == b.cols,
        "gemm: {}x{} = {}x{} * {}x{}",
        dst.rows,
        dst.cols,
        a.rows,
        a.cols,
        b.rows,
        b.cols
    );
}

/// [`gemm`] on the route chosen for it.
fn routed(route: Route, mut dst: ViewMut<'_>, beta: f32, a: View<'_>, b: View<'_>, alpha: f32, par: Par) {
    // Small row-major products run on minnow's own kernels, where faer's
    // fixed cost per call dominates (thresholds in `small_gemm::takes`).
    if let Route::Small { level, layout, packed } = route {
        return small_gemm::run(level, layout, packed, &mut dst, beta, &a, &b, alpha);
    }
    let accum = if beta == 0.0 {
        FaerAccum::Replace
    } else {
        if beta != 1.0 {
            dst.scale(beta);
        }
        FaerAccum::Add
    };
    if dst.rows == 0 || dst.cols == 0 {
        return;
    }
    if a.cols == 0 {
        if accum == FaerAccum::Replace {
            dst.scale(0.0);
        }
        return;
    }
    faer::linalg::matmul::matmul(dst.faer(), accum, a.faer(), b.faer(), alpha, par);
}

/// As [`gemm`], with `dst`'s rows split into `threads` bands computed on
/// rayon's pool. The split uses `rayon::join`, which allocates nothing
/// (faer's own parallel path does). The kernel is chosen once for the
/// whole product, so every band computes its rows exactly as one call
/// would: the result does not depend on `threads` (small faer products,
/// whose rows depend on their neighbours, run whole).
#[track_caller]
pub fn gemm_threads(dst: ViewMut<'_>, beta: f32, a: View<'_>, b: View<'_>, alpha: f32, threads: usize) {
    check_shapes(&dst, &a, &b);
    bands(small_gemm::route(&a, &b), dst, beta, a, b, alpha, threads);
}

fn bands(route: Route, dst: ViewMut<'_>, beta: f32, a: View<'_>, b: View<'_>, alpha: f32, threads: usize) {
    if threads <= 1 || dst.rows < 2 || route == (Route::Faer { by_rows: false }) {
        return routed(route, dst, beta, a, b, alpha, Par::Seq);
    }
    let left = threads / 2;
    let mid = dst.rows * left / threads;
    let (top, bottom) = dst.split_rows(mid);
    let (a_top, a_bottom) = (a.row_range(0, mid), a.row_range(mid, a.rows));
    rayon::join(
        || bands(route, top, beta, a_top, b, alpha, left),
        || bands(route, bottom, beta, a_bottom, b, alpha, threads - left),
    );
}
