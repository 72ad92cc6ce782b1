//! Inverted dropout: y = x m, with m = 1 / (1 - p) for kept elements and 0
//! for dropped ones, each dropped with probability p; dx += dy m. The mask
//! is saved. It comes from a counter-based generator (SplitMix64 of the
//! seed and the element's index), so a seed fixes the mask whatever the
//! order of evaluation: a step replays exactly, and a layer draws one seed
//! per call from its own seeded stream.

use crate::ops::OpKind;
use crate::tape::{Graph, IndexBlock, Op};
use crate::{Error, Result, Var};
use minnow_kernels as k;

impl Graph<'_> {
    /// Drops each element of x with probability `p` in [0, 1) and scales
    /// the rest by 1 / (1 - p); the mask is a function of `seed`. p = 0
    /// returns x itself. (Whether to apply dropout at all, train or eval,
    /// is the caller's choice: this op always applies it.)
    pub fn dropout(&mut self, x: Var, p: f32, seed: u64) -> Result<Var> {
        if !(0.0..1.0).contains(&p) {
            return Err(Error::Config(format!("dropout: p must be in [0, 1), found {p}")));
        }
        if p == 0.0 {
            return Ok(x);
        }
        let shape = self.shape(x);
        let y = self.output(shape, &[x]);
        let mask = self.scratch(shape.numel());
        let ([xv], [yv, mv]) = self.split([self.val(x)], [self.val(y), self.blk(mask)]);
        fill_mask(mv, p, seed);
        k::mul(xv, mv, yv);
        self.record(OpKind::Dropout, &[x], y, mask, IndexBlock::EMPTY, p);
        Ok(y)
    }
}

/// mask[i] = 1 / (1 - p) if u_i ≥ p else 0, with u_i uniform on [0, 1) in
/// steps of 2^-24 from (seed, i).
fn fill_mask(mask: &mut [f32], p: f32, seed: u64) {
    const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
    let keep = 1.0 / (1.0 - p);
    let base = seed.wrapping_mul(GOLDEN);
    for (i, m) in mask.iter_mut().enumerate() {
        let mut z = base.wrapping_add((i as u64 + 1).wrapping_mul(GOLDEN));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let u = (z >> 40) as f32 * (1.0 / (1u64 << 24) as f32);
        *m = if u >= p { keep } else { 0.0 };
    }
}

pub(crate) fn backward(g: &mut Graph<'_>, op: &Op) {
    let x = op.inputs[0];
    let (dy_loc, dx_loc) = (g.grad_loc(op.output), g.grad_loc(x));
    let ([dy, mask], [dx]) = g.split([dy_loc, g.blk(op.saved)], [dx_loc]);
    if !dx.is_empty() {
        k::mul_add_assign(dx, dy, mask);
    }
}
