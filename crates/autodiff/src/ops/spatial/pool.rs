//! 2x2 max pooling with stride 2 (PyTorch's `max_pool2d(x, 2)`): x [N, C,
//! H, W] -> y [N, C, H/2, W/2], rounding down (an odd last row or column is
//! dropped). Saves which of the four window cells won (0..4, row-major, as
//! f32; the first maximum wins ties and a NaN wins over numbers, as in
//! PyTorch); backward adds dy to that cell of dx.

use super::Kind;
use crate::ops::OpKind;
use crate::tape::{Graph, IndexBlock, Op};
use crate::{Error, Result, Var};
use minnow_tensor::{Shape, TensorError};

impl Graph<'_> {
    /// Max over 2x2 windows, stride 2, of x [N, C, H, W].
    pub fn max_pool2d(&mut self, x: Var) -> Result<Var> {
        const OP: &str = "max_pool2d";
        let xs = self.shape(x);
        if xs.rank() != 4 {
            return Err(TensorError::Rank { op: OP, expected: 4, found: xs }.into());
        }
        let [n, c, h, w] = [xs.dims()[0], xs.dims()[1], xs.dims()[2], xs.dims()[3]];
        if h < 2 || w < 2 {
            return Err(Error::Config(format!("{OP}: input {h}x{w} is smaller than the 2x2 window")));
        }
        let (ho, wo) = (h / 2, w / 2);
        let y = self.output(Shape::new(&[n, c, ho, wo])?, &[x]);
        let saved = self.scratch(n * c * ho * wo);
        let ([xv], [yv, arg]) = self.split([self.val(x)], [self.val(y), self.blk(saved)]);
        let planes = xv.chunks_exact(h * w).zip(yv.chunks_exact_mut(ho * wo)).zip(arg.chunks_exact_mut(ho * wo));
        for ((src, dst), arg) in planes {
            for oh in 0..ho {
                let top = &src[2 * oh * w..][..w];
                let bottom = &src[(2 * oh + 1) * w..][..w];
                for ow in 0..wo {
                    let cells = [top[2 * ow], top[2 * ow + 1], bottom[2 * ow], bottom[2 * ow + 1]];
                    let mut best = 0;
                    for (i, &v) in cells.iter().enumerate().skip(1) {
                        if v > cells[best] || (v.is_nan() && !cells[best].is_nan()) {
                            best = i;
                        }
                    }
                    dst[oh * wo + ow] = cells[best];
                    arg[oh * wo + ow] = best as f32;
                }
            }
        }
        self.record(OpKind::Spatial(Kind::MaxPool2d), &[x], y, saved, IndexBlock::EMPTY, 0.0);
        Ok(y)
    }
}

pub(super) fn backward(g: &mut Graph<'_>, op: &Op) {
    let x = op.inputs[0];
    let (h, w) = (g.shape(x).dims()[2], g.shape(x).dims()[3]);
    let (ho, wo) = (h / 2, w / 2);
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
    let ([dy, arg], [dx]) = g.split([dy_loc, g.blk(op.saved)], [dx_loc]);
    if dx.is_empty() {
        return;
    }
    let planes = dx.chunks_exact_mut(h * w).zip(dy.chunks_exact(ho * wo)).zip(arg.chunks_exact(ho * wo));
    for ((dst, dy), arg) in planes {
        for oh in 0..ho {
            for ow in 0..wo {
                let cell = arg[oh * wo + ow] as usize;
                dst[(2 * oh + cell / 2) * w + 2 * ow + cell % 2] += dy[oh * wo + ow];
            }
        }
    }
}
