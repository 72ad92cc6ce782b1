//! Kernels never touch the heap: counted with the counting allocator.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_kernels::{self as k, Accum, AdamParams};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn kernels_allocate_nothing_after_warm_up() {
    let (rows, cols) = (64, 128);
    let x = vec![0.5f32; rows * cols];
    let w = vec![0.25f32; cols * cols];
    let mut y = vec![0.0f32; rows * cols];
    let mut dx = vec![0.0f32; rows * cols];
    let (mut mean, mut rstd) = (vec![0.0; rows], vec![0.0; rows]);
    let (gamma, beta) = (vec![1.0; cols], vec![0.0; cols]);
    let (mut dg, mut db) = (vec![0.0; cols], vec![0.0; cols]);
    let (mut p, mut m, mut v) = (vec![0.1; cols], vec![0.0; cols], vec![0.0; cols]);
    let mut maxes = vec![0.0; rows];
    let mut args = vec![0u32; rows];
    let mut all = || {
        k::add(&x, &x, &mut y);
        k::bias_relu_inplace(&mut y, &gamma);
        k::relu_inplace(&mut y);
        k::relu_backward(&y, &x, &mut dx, Accum::Add);
        k::tanh(&x, &mut y);
        k::softmax_rows(&x, cols, &mut y);
        k::log_softmax_rows_backward(&y, &x, cols, &mut dx, Accum::Replace);
        k::layer_norm(&x, &gamma, &beta, 1e-5, &mut y, &mut mean, &mut rstd);
        k::layer_norm_backward(&x, &y, &gamma, &mean, &rstd, &mut dx, &mut dg, &mut db, Accum::Replace);
        k::col_sums(&x, cols, &mut db, Accum::Add);
        k::row_max_argmax(&x, cols, &mut maxes, &mut args);
        k::adam_step(&mut p, &db, &mut m, &mut v, &AdamParams::new(1e-3, 0.9, 0.999, 1e-8, 0.0, false, 1));
        let s = k::dot(&x, &x) + k::sum(&y) + k::all_finite(&x) as u8 as f32;
        k::gemm(
            k::ViewMut::new(&mut y, rows, cols),
            0.0,
            k::View::new(&x, rows, cols),
            k::View::new(&w, cols, cols).t(),
            1.0,
            k::Par::Seq,
        );
        s
    };
    all(); // warm-up: CPU detection, faer's per-thread packing buffers
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..5 {
            std::hint::black_box(all());
        }
    });
    assert_eq!(on_thread.allocations, 0, "kernels allocated {} bytes", on_thread.bytes);
}
