//! An optimiser step split over threads. Each large tensor is cut by rows
//! into bands exactly as `minnow_kernels::gemm_threads` cuts the rows of
//! the product that computed its gradient (the first band on the calling
//! thread), so the thread that wrote a band's gradient updates it and the
//! band's values, state and gradient stay in that core's cache from one
//! step to the next. Smaller tensors are updated whole on the calling
//! thread. Every element gets the same arithmetic as on one thread, so the
//! result does not depend on the thread count.

use crate::optimizer::Layout;

/// The fewest floats a tensor needs to be split: `dqn_step/2048/2thr`
/// (5,508 parameters, Adam about 4 us) ran slower split than whole, the
/// cube network's 144x128 and 64x128 weights faster.
const MIN_SPLIT: usize = 8192;

/// How one step's pass is split: over `layout`'s tensors, on `threads`
/// threads, as above; with `zero`, each band's gradients are set to 0 on
/// the thread that updated it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bands<'a> {
    pub layout: &'a Layout,
    pub threads: usize,
    pub zero: bool,
}

impl Bands<'_> {
    /// Calls `update(buffers, grads)` band by band. Each buffer is as long
    /// as `grads`, or empty (state an optimiser does not keep with its
    /// settings, such as a momentum buffer without momentum).
    /// `rayon::join` allocates nothing when called on a worker of rayon's
    /// pool.
    pub fn run<'a, const N: usize>(
        &self,
        mut buffers: [&'a mut [f32]; N],
        mut grads: &'a mut [f32],
        update: &(impl Fn([&mut [f32]; N], &[f32]) + Sync),
    ) {
        let whole = |buffers: [&mut [f32]; N], grads: &mut [f32]| {
            update(buffers, grads);
            if self.zero {
                grads.fill(0.0);
            }
        };
        if self.threads <= 1 {
            return whole(buffers, grads);
        }
        let mut done = 0;
        for (shape, range) in self.layout.tensors() {
            let rows = shape.dims().first().copied().unwrap_or(1);
            if range.len() < MIN_SPLIT || rows < 2 {
                continue;
            }
            // The smaller tensors (and padding) before this one, then its rows.
            let before = take(&mut buffers, &mut grads, range.start - done);
            whole(before.0, before.1);
            let (band, band_grads) = take(&mut buffers, &mut grads, range.len());
            by_rows(self.threads, rows, range.len() / rows, band, band_grads, &whole);
            done = range.end;
        }
        whole(buffers, grads);
    }
}

/// `rows` rows of `cols` floats split into `threads` bands, as
/// `gemm_threads` splits a product's rows.
fn by_rows<'a, const N: usize>(
    threads: usize,
    rows: usize,
    cols: usize,
    mut buffers: [&'a mut [f32]; N],
    mut grads: &'a mut [f32],
    whole: &(impl Fn([&mut [f32]; N], &mut [f32]) + Sync),
) {
    if threads <= 1 || rows < 2 {
        return whole(buffers, grads);
    }
    let left = threads / 2;
    let mid = rows * left / threads;
    let (top, top_grads) = take(&mut buffers, &mut grads, mid * cols);
    rayon::join(
        || by_rows(left, mid, cols, top, top_grads, whole),
        || by_rows(threads - left, rows - mid, cols, buffers, grads, whole),
    );
}

/// Cuts the first `len` floats off every buffer (an empty buffer stays
/// empty) and off the gradients.
fn take<'a, const N: usize>(
    buffers: &mut [&'a mut [f32]; N],
    grads: &mut &'a mut [f32],
    len: usize,
) -> ([&'a mut [f32]; N], &'a mut [f32]) {
    let heads = std::array::from_fn(|i| {
        let buffer = std::mem::take(&mut buffers[i]);
        let (head, tail) = buffer.split_at_mut(len.min(buffer.len()));
        buffers[i] = tail;
        head
    });
    let (head, tail) = std::mem::take(grads).split_at_mut(len);
    *grads = tail;
    (heads, head)
}
