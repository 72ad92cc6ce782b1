use minnow_arena::{Arena, CountingAlloc, count_allocations};
use minnow_kernels::Par;
use minnow_tensor::*;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn mismatched_add_names_both_shapes() {
    let a = Tensor::zeros(&[2, 3]).unwrap();
    let b = Tensor::zeros(&[3, 2]).unwrap();
    let mut dst = Tensor::zeros(&[2, 3]).unwrap();
    let err = add_into(&a, &b, &mut dst).unwrap_err();
    assert_eq!(err.to_string(), "add_into: shapes [2, 3] and [3, 2] do not match");
}

#[test]
fn wrong_destination_names_expected_and_found() {
    let a = Tensor::zeros(&[4]).unwrap();
    let mut dst = Tensor::zeros(&[5]).unwrap();
    let err = relu_into(&a, &mut dst).unwrap_err();
    assert_eq!(err.to_string(), "relu_into: destination has shape [5], expected [4]");
}

#[test]
fn matmul_inner_mismatch_and_rank_errors() {
    let a = Tensor::zeros(&[2, 3]).unwrap();
    let b = Tensor::zeros(&[4, 5]).unwrap();
    let mut dst = Tensor::zeros(&[2, 5]).unwrap();
    let err = matmul_into(&a, &b, &mut dst, 1.0, 0.0, Par::Seq).unwrap_err();
    assert_eq!(err.to_string(), "matmul_into: shapes [2, 3] and [4, 5] do not match");
    let v = Tensor::zeros(&[6]).unwrap();
    let err = matmul_into(&v, &b, &mut dst, 1.0, 0.0, Par::Seq).unwrap_err();
    assert!(err.to_string().contains("rank-2") && err.to_string().contains("[6]"), "{err}");
}

#[test]
fn data_that_does_not_fill_the_shape_is_an_error() {
    let err = Tensor::from_slice(&[2, 2], &[1.0, 2.0, 3.0]).unwrap_err();
    assert_eq!(err.to_string(), "Tensor::from_slice: 3 values cannot fill shape [2, 2] (4 elements)");
    assert!(TensorRef::new(&[3], &[1.0]).is_err());
}

#[test]
fn bias_of_the_wrong_width_is_an_error() {
    let x = Tensor::zeros(&[2, 3]).unwrap();
    let bias = Tensor::zeros(&[2]).unwrap();
    let mut dst = Tensor::zeros(&[2, 3]).unwrap();
    let err = bias_add_into(&x, &bias, &mut dst).unwrap_err();
    assert_eq!(err.to_string(), "bias_add_into: shapes [3] and [2] do not match");
}

#[test]
fn transposed_views_feed_matmul_but_not_elementwise_ops() {
    // a = [[1, 2], [3, 4]]; a^T a = [[10, 14], [14, 20]]
    let a = Tensor::from_slice(&[2, 2], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let mut dst = Tensor::zeros(&[2, 2]).unwrap();
    matmul_into(&a.view().t().unwrap(), &a, &mut dst, 1.0, 0.0, Par::Seq).unwrap();
    assert_eq!(dst.data(), &[10.0, 14.0, 14.0, 20.0]);
    let err = relu_into(&a.view().t().unwrap(), &mut dst).unwrap_err();
    assert!(matches!(err, TensorError::NotContiguous { .. }));
}

#[test]
fn ops_compute_what_they_say() {
    let a = Tensor::from_slice(&[2, 2], &[1.0, -2.0, 3.0, -4.0]).unwrap();
    let b = Tensor::from_slice(&[2, 2], &[0.5, 0.5, 0.5, 0.5]).unwrap();
    let mut d = Tensor::zeros(&[2, 2]).unwrap();
    add_into(&a, &b, &mut d).unwrap();
    assert_eq!(d.data(), &[1.5, -1.5, 3.5, -3.5]);
    relu_into(&a, &mut d).unwrap();
    assert_eq!(d.data(), &[1.0, 0.0, 3.0, 0.0]);
    let mut sums = Tensor::zeros(&[2]).unwrap();
    col_sums_into(&a, &mut sums).unwrap();
    assert_eq!(sums.data(), &[4.0, -6.0]);
    assert_eq!(sum(&a).unwrap(), -2.0);
}

#[test]
fn into_ops_allocate_nothing_after_warm_up() {
    let mut arena = Arena::with_capacity(1 << 16);
    let a = Tensor::from_slice(&[8, 16], &[0.25; 128]).unwrap();
    let w = Tensor::from_slice(&[32, 16], &[0.5; 512]).unwrap();
    let bias = Tensor::from_slice(&[32], &[0.1; 32]).unwrap();
    let step = |arena: &Arena| -> Result<f32> {
        let mut h = Tensor::in_arena(arena, &[8, 32])?;
        matmul_into(&a, &w.view().t()?, &mut h, 1.0, 0.0, Par::Seq)?;
        let mut z = Tensor::in_arena(arena, &[8, 32])?;
        bias_add_into(&h, &bias, &mut z)?;
        relu_into(&z, &mut h)?;
        softmax_into(&h, &mut z)?;
        let mut out = Tensor::in_arena(arena, &[8, 32])?;
        add_into(&h, &z, &mut out)?;
        let mut sums = Tensor::in_arena(arena, &[32])?;
        col_sums_into(&out, &mut sums)?;
        // An error on the hot path costs no allocation either.
        assert!(add_into(&a, &h, &mut out).is_err());
        sum(&sums)
    };
    step(&arena).unwrap();
    arena.reset();
    let (_, on_thread, _) = count_allocations(|| {
        for _ in 0..10 {
            std::hint::black_box(step(&arena).unwrap());
            arena.reset();
        }
    });
    assert_eq!(on_thread.allocations, 0);
}
