//! Destination-taking ops: check shapes, then call one kernel. None
//! allocates; a mismatch is an `Err` naming both shapes.

use crate::{AsTensor, AsTensorMut, Result, Shape, TensorError};
use minnow_kernels as k;

fn same(op: &'static str, lhs: Shape, rhs: Shape) -> Result<()> {
    if lhs == rhs { Ok(()) } else { Err(TensorError::ShapeMismatch { op, lhs, rhs }) }
}

fn dst_is(op: &'static str, expected: Shape, found: Shape) -> Result<()> {
    if expected == found { Ok(()) } else { Err(TensorError::DestinationShape { op, expected, found }) }
}

macro_rules! binary_op {
    ($(#[$meta:meta])* $name:ident, $kernel:path) => {
        $(#[$meta])*
        pub fn $name(a: &impl AsTensor, b: &impl AsTensor, dst: &mut impl AsTensorMut) -> Result<()> {
            const OP: &str = stringify!($name);
            let (a, b, mut dst) = (a.view(), b.view(), dst.view_mut());
            same(OP, a.shape(), b.shape())?;
            dst_is(OP, a.shape(), dst.shape())?;
            $kernel(a.data(OP)?, b.data(OP)?, dst.data_mut());
            Ok(())
        }
    };
}

macro_rules! unary_op {
    ($(#[$meta:meta])* $name:ident, $kernel:path) => {
        $(#[$meta])*
        pub fn $name(x: &impl AsTensor, dst: &mut impl AsTensorMut) -> Result<()> {
            const OP: &str = stringify!($name);
            let (x, mut dst) = (x.view(), dst.view_mut());
            dst_is(OP, x.shape(), dst.shape())?;
            $kernel(x.data(OP)?, dst.data_mut());
            Ok(())
        }
    };
}

binary_op!(
    /// dst = a + b (same shapes)
    add_into, k::add
);
binary_op!(
    /// dst = a - b (same shapes)
    sub_into, k::sub
);
binary_op!(
    /// dst = a * b elementwise (same shapes)
    mul_into, k::mul
);
unary_op!(
    /// dst = max(x, 0)
    relu_into, k::relu
);
unary_op!(
    /// dst = sigmoid(x)
    sigmoid_into, k::sigmoid
);
unary_op!(
    /// dst = tanh(x)
    tanh_into, k::tanh
);
unary_op!(
    /// dst = e^x
    exp_into, k::exp
);
unary_op!(
    /// dst = x
    copy_into, k::copy
);

macro_rules! row_op {
    ($(#[$meta:meta])* $name:ident, $kernel:path) => {
        $(#[$meta])*
        pub fn $name(x: &impl AsTensor, dst: &mut impl AsTensorMut) -> Result<()> {
            const OP: &str = stringify!($name);
            let (x, mut dst) = (x.view(), dst.view_mut());
            dst_is(OP, x.shape(), dst.shape())?;
            $kernel(x.data(OP)?, x.shape().last(), dst.data_mut());
            Ok(())
        }
    };
}

row_op!(
    /// Softmax over the last axis.
    softmax_into, k::softmax_rows
);
row_op!(
    /// Log-softmax over the last axis.
    log_softmax_into, k::log_softmax_rows
);

/// dst = alpha * x
pub fn scale_into(alpha: f32, x: &impl AsTensor, dst: &mut impl AsTensorMut) -> Result<()> {
    let (x, mut dst) = (x.view(), dst.view_mut());
    dst_is("scale_into", x.shape(), dst.shape())?;
    k::scale_into(alpha, x.data("scale_into")?, dst.data_mut());
    Ok(())
}

/// dst[.., j] = x[.., j] + bias[j]: bias is a vector as long as x's last axis.
pub fn bias_add_into(x: &impl AsTensor, bias: &impl AsTensor, dst: &mut impl AsTensorMut) -> Result<()> {
    const OP: &str = "bias_add_into";
    let (x, bias, mut dst) = (x.view(), bias.view(), dst.view_mut());
    same(OP, Shape::vector(x.shape().last()), bias.shape())?;
    dst_is(OP, x.shape(), dst.shape())?;
    k::bias_add(x.data(OP)?, bias.data(OP)?, dst.data_mut());
    Ok(())
}

/// dst[j] = Σ over all rows of x[.., j]: dst is a vector as long as x's last axis.
pub fn col_sums_into(x: &impl AsTensor, dst: &mut impl AsTensorMut) -> Result<()> {
    const OP: &str = "col_sums_into";
    let (x, mut dst) = (x.view(), dst.view_mut());
    dst_is(OP, Shape::vector(x.shape().last()), dst.shape())?;
    k::col_sums(x.data(OP)?, x.shape().last(), dst.data_mut(), k::Accum::Replace);
    Ok(())
}

/// Σ of all elements.
pub fn sum(x: &impl AsTensor) -> Result<f32> {
    Ok(k::sum(x.view().data("sum")?))
}

/// dst = alpha * a * b + beta * dst for matrices; `a` and `b` may be
/// transposed views (`TensorRef::t`), read in place.
pub fn matmul_into(
    a: &impl AsTensor,
    b: &impl AsTensor,
    dst: &mut impl AsTensorMut,
    alpha: f32,
    beta: f32,
    par: k::Par,
) -> Result<()> {
    const OP: &str = "matmul_into";
    let (a, b, mut dst) = (a.view(), b.view(), dst.view_mut());
    let (m, ka) = a.shape().as_matrix(OP)?;
    let (kb, n) = b.shape().as_matrix(OP)?;
    if ka != kb {
        return Err(TensorError::ShapeMismatch { op: OP, lhs: a.shape(), rhs: b.shape() });
    }
    dst_is(OP, Shape::matrix(m, n), dst.shape())?;
    let (av, bv) = (gemm_view(a, m, ka), gemm_view(b, kb, n));
    k::gemm(k::ViewMut::new(dst.data_mut(), m, n), beta, av, bv, alpha, par);
    Ok(())
}

/// The kernel view of a (possibly transposed) `rows x cols` matrix.
fn gemm_view(t: crate::TensorRef<'_>, rows: usize, cols: usize) -> k::View<'_> {
    if t.is_transposed() { k::View::new(t.storage(), cols, rows).t() } else { k::View::new(t.storage(), rows, cols) }
}
