//! 2-D convolution (PyTorch's cross-correlation), by im2col and one GEMM
//! for the whole batch.
//!
//! x [N, C, H, W], w [O, C, kh, kw], b [O] -> y [N, O, Ho, Wo] with
//! Ho = (H + 2p - kh) / s + 1 (likewise Wo), zero padding p, stride s:
//! y[n, o, oh, ow] = b[o] + Σ_{c,i,j} w[o, c, i, j] x[n, c, oh s + i - p, ow s + j - p].
//!
//! With K = C kh kw and M = N Ho Wo, im2col writes col [K, M] (saved for
//! backward), z [O, M] = W [O, K] · col, and y is z with its two outer
//! axes swapped, plus the bias. Backward, with dz [O, M] from dy:
//! db += Σ_M dz; dW += dz · colᵀ; dcol = Wᵀ · dz, scattered back (col2im)
//! into dx. Temporaries (z, dz, dcol) are arena blocks released at once.

use super::Kind;
use crate::ops::{OpKind, check};
use crate::tape::{Block, Graph, IndexBlock, Op, TAPE};
use crate::{Error, Result, Var};
use minnow_kernels::{self as k, Par, View, ViewMut};
use minnow_tensor::{Shape, TensorError};

/// The sizes of one convolution.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    o: usize,
    kh: usize,
    kw: usize,
    stride: usize,
    padding: usize,
    ho: usize,
    wo: usize,
}

impl Geometry {
    /// Rows of col: C kh kw.
    fn k(&self) -> usize {
        self.c * self.kh * self.kw
    }

    /// Output positions per image: Ho Wo.
    fn positions(&self) -> usize {
        self.ho * self.wo
    }

    /// Columns of col: N Ho Wo.
    fn m(&self) -> usize {
        self.n * self.positions()
    }

    /// The output positions `lo..hi` along one axis whose input coordinate
    /// `o s + tap - p` lies inside `0..len`.
    fn valid(&self, tap: usize, len: usize, out: usize) -> (usize, usize) {
        let (s, p) = (self.stride, self.padding);
        let lo = p.saturating_sub(tap).div_ceil(s);
        let hi = (len + p).saturating_sub(tap).div_ceil(s).min(out);
        (lo.min(hi), hi)
    }
}

impl Graph<'_> {
    /// 2-D convolution of x [N, C, H, W] with w [O, C, kh, kw] and an
    /// optional bias `[O]`, zero padding `padding` on every side, stride
    /// `stride`: y [N, O, Ho, Wo] (PyTorch's `conv2d`).
    pub fn conv2d(&mut self, x: Var, w: Var, b: Option<Var>, stride: usize, padding: usize) -> Result<Var> {
        const OP: &str = "conv2d";
        let (xs, ws) = (self.shape(x), self.shape(w));
        for s in [xs, ws] {
            if s.rank() != 4 {
                return Err(TensorError::Rank { op: OP, expected: 4, found: s }.into());
            }
        }
        let ([n, c, h, wd], [o, wc, kh, kw]) = (dims4(xs), dims4(ws));
        if wc != c {
            return Err(TensorError::ShapeMismatch { op: OP, lhs: xs, rhs: ws }.into());
        }
        if let Some(b) = b {
            check::same(OP, Shape::vector(o), self.shape(b))?;
        }
        let small = |v: usize| u16::try_from(v).ok();
        let (Some(s16), Some(p16), Some(kh16), Some(kw16)) = (small(stride), small(padding), small(kh), small(kw))
        else {
            return Err(Error::Config(format!(
                "{OP}: stride {stride}, padding {padding} and kernel {kh}x{kw} must each be below 65536"
            )));
        };
        if stride == 0 {
            return Err(Error::Config(format!("{OP}: stride must be at least 1")));
        }
        if kh == 0 || kw == 0 {
            return Err(Error::Config(format!("{OP}: the kernel {kh}x{kw} is empty")));
        }
        let (ph, pw) = (h + 2 * padding, wd + 2 * padding);
        if kh > ph || kw > pw {
            return Err(Error::Config(format!(
                "{OP}: kernel {kh}x{kw} is larger than the padded input {ph}x{pw} (input {h}x{wd}, padding {padding})"
            )));
        }
        let geo = Geometry {
            n,
            c,
            h,
            w: wd,
            o,
            kh,
            kw,
            stride,
            padding,
            ho: (ph - kh) / stride + 1,
            wo: (pw - kw) / stride + 1,
        };
        let inputs = [x, w, b.unwrap_or(w)];
        let inputs = &inputs[..if b.is_some() { 3 } else { 2 }];
        let y = self.output(Shape::new(&[n, o, geo.ho, geo.wo])?, inputs);
        let col = self.scratch(geo.k() * geo.m());
        let mark = self.tape.data.mark();
        let z = self.scratch(o * geo.m());
        let bias = b.map_or((TAPE, 0..0), |b| self.val(b));
        let ([xv, wv, bv], [yv, colv, zv]) =
            self.split([self.val(x), self.val(w), bias], [self.val(y), self.blk(col), self.blk(z)]);
        im2col(xv, &geo, colv);
        k::gemm(
            ViewMut::new(zv, o, geo.m()),
            0.0,
            View::new(wv, o, geo.k()),
            View::new(colv, geo.k(), geo.m()),
            1.0,
            Par::Seq,
        );
        swap_outer(zv, &geo, yv, bv);
        self.tape.data.truncate(mark);
        let kind = Kind::Conv2d { stride: s16, padding: p16, kernel: [kh16, kw16] };
        self.record(OpKind::Spatial(kind), inputs, y, col, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }
}

fn dims4(s: Shape) -> [usize; 4] {
    let d = s.dims();
    [d[0], d[1], d[2], d[3]]
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op, stride: u16, padding: u16, kernel: [u16; 2]) {
    let (x, w) = (op.inputs[0], op.inputs[1]);
    let ([n, c, h, wd], [o, _, kh, kw]) = (dims4(g.shape(x)), dims4(g.shape(w)));
    debug_assert_eq!([kh, kw], kernel.map(usize::from), "conv2d: kernel size");
    let [_, _, ho, wo] = dims4(g.shape(op.output));
    let geo = Geometry { n, c, h, w: wd, o, kh, kw, stride: stride.into(), padding: padding.into(), ho, wo };
    let (dy_loc, dx_loc, dw_loc) = (g.grad_loc(op.output), g.grad_loc(x), g.grad_loc(w));
    let db_loc = if op.arity == 3 { g.grad_loc(op.inputs[2]) } else { (TAPE, 0..0) };
    // Every gradient block exists before the mark, so releasing the
    // temporaries below cannot free one.
    let mark = g.tape.data.mark();
    let dz = g.scratch(o * geo.m());
    let dcol = if dx_loc.1.is_empty() { Block::EMPTY } else { g.scratch(geo.k() * geo.m()) };
    let ([wv, colv, dy], [dx, dw, db, dzv, dcolv]) =
        g.split([g.val(w), g.blk(op.saved), dy_loc], [dx_loc, dw_loc, db_loc, g.blk(dz), g.blk(dcol)]);
    swap_outer_back(dy, &geo, dzv);
    let m = geo.m();
    if !db.is_empty() {
        for (d, row) in db.iter_mut().zip(dzv.chunks_exact(m.max(1))) {
            *d += k::sum(row);
        }
    }
    if !dw.is_empty() {
        k::gemm(
            ViewMut::new(dw, o, geo.k()),
            1.0,
            View::new(dzv, o, m),
            View::new(colv, geo.k(), m).t(),
            1.0,
            Par::Seq,
        );
    }
    if !dx.is_empty() {
        k::gemm(
            ViewMut::new(dcolv, geo.k(), m),
            0.0,
            View::new(wv, o, geo.k()).t(),
            View::new(dzv, o, m),
            1.0,
            Par::Seq,
        );
        col2im(dcolv, &geo, dx);
    }
    g.tape.data.truncate(mark);
}

/// y[n, o, :] = z[o, n P..(n + 1) P] + b[o] (b may be empty).
fn swap_outer(z: &[f32], geo: &Geometry, y: &mut [f32], b: &[f32]) {
    let (p, m) = (geo.positions(), geo.m());
    if p == 0 {
        return;
    }
    for (i, dst) in y.chunks_exact_mut(p).enumerate() {
        let (n, o) = (i / geo.o, i % geo.o);
        let src = &z[o * m + n * p..][..p];
        let shift = b.get(o).copied().unwrap_or(0.0);
        for (d, &v) in dst.iter_mut().zip(src) {
            *d = v + shift;
        }
    }
}

/// dz[o, n P..(n + 1) P] = dy[n, o, :].
fn swap_outer_back(dy: &[f32], geo: &Geometry, dz: &mut [f32]) {
    let (p, m) = (geo.positions(), geo.m());
    if p == 0 {
        return;
    }
    for (i, src) in dy.chunks_exact(p).enumerate() {
        let (n, o) = (i / geo.o, i % geo.o);
        dz[o * m + n * p..][..p].copy_from_slice(src);
    }
}

/// col[(c kh + i) kw + j, n Ho Wo + oh Wo + ow] = x[n, c, oh s + i - p, ow s + j - p],
/// zero where that falls in the padding.
fn im2col(x: &[f32], geo: &Geometry, col: &mut [f32]) {
    let (s, pad) = (geo.stride, geo.padding);
    let (plane, p, m) = (geo.h * geo.w, geo.positions(), geo.m());
    for c in 0..geo.c {
        for i in 0..geo.kh {
            let (oh_lo, oh_hi) = geo.valid(i, geo.h, geo.ho);
            for j in 0..geo.kw {
                let (ow_lo, ow_hi) = geo.valid(j, geo.w, geo.wo);
                let r = (c * geo.kh + i) * geo.kw + j;
                let row = &mut col[r * m..(r + 1) * m];
                for n in 0..geo.n {
                    let img = &x[(n * geo.c + c) * plane..][..plane];
                    let out = &mut row[n * p..(n + 1) * p];
                    for (oh, dst) in out.chunks_exact_mut(geo.wo).enumerate() {
                        if oh < oh_lo || oh >= oh_hi || ow_lo == ow_hi {
                            dst.fill(0.0);
                            continue;
                        }
                        let ih = oh * s + i - pad;
                        let src = &img[ih * geo.w..(ih + 1) * geo.w];
                        dst[..ow_lo].fill(0.0);
                        dst[ow_hi..].fill(0.0);
                        let start = ow_lo * s + j - pad;
                        let dst = &mut dst[ow_lo..ow_hi];
                        if s == 1 {
                            dst.copy_from_slice(&src[start..start + dst.len()]);
                        } else {
                            for (d, &v) in dst.iter_mut().zip(src[start..].iter().step_by(s)) {
                                *d = v;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The adjoint of `im2col`: dx[n, c, oh s + i - p, ow s + j - p] += dcol[...]
/// over every window that reads that pixel.
fn col2im(dcol: &[f32], geo: &Geometry, dx: &mut [f32]) {
    let (s, pad) = (geo.stride, geo.padding);
    let (plane, p, m) = (geo.h * geo.w, geo.positions(), geo.m());
    for c in 0..geo.c {
        for i in 0..geo.kh {
            let (oh_lo, oh_hi) = geo.valid(i, geo.h, geo.ho);
            for j in 0..geo.kw {
                let (ow_lo, ow_hi) = geo.valid(j, geo.w, geo.wo);
                if ow_lo == ow_hi {
                    continue;
                }
                let r = (c * geo.kh + i) * geo.kw + j;
                let row = &dcol[r * m..(r + 1) * m];
                for n in 0..geo.n {
                    let img = &mut dx[(n * geo.c + c) * plane..][..plane];
                    let src_img = &row[n * p..(n + 1) * p];
                    for oh in oh_lo..oh_hi {
                        let ih = oh * s + i - pad;
                        let dst = &mut img[ih * geo.w..(ih + 1) * geo.w];
                        let src = &src_img[oh * geo.wo + ow_lo..oh * geo.wo + ow_hi];
                        let start = ow_lo * s + j - pad;
                        if s == 1 {
                            for (d, &v) in dst[start..start + src.len()].iter_mut().zip(src) {
                                *d += v;
                            }
                        } else {
                            for (d, &v) in dst[start..].iter_mut().step_by(s).zip(src) {
                                *d += v;
                            }
                        }
                    }
                }
            }
        }
    }
}
