//! Activations and their backward passes. Forward: `out = f(x)`. Backward:
//! `dx (+)= dy * f'(.)`, with the derivative written in terms of whichever of
//! x and y = f(x) is cheaper, as each doc comment says.

use crate::{Accum, math, same_len, whole_rows};

macro_rules! unary {
    ($(#[$meta:meta])* $name:ident, |$x:ident| $f:expr) => {
        kernel! {
            $(#[$meta])*
            pub fn $name(x: &[f32], out: &mut [f32]);
            check { same_len(stringify!($name), &[x.len(), out.len()]) }
            {
                for (o, &$x) in out.iter_mut().zip(x) {
                    *o = $f;
                }
            }
        }
    };
}

macro_rules! unary_backward {
    ($(#[$meta:meta])* $name:ident, |$s:ident, $dy:ident| $f:expr) => {
        kernel! {
            $(#[$meta])*
            pub fn $name(saved: &[f32], dy: &[f32], dx: &mut [f32], accum: Accum);
            check { same_len(stringify!($name), &[saved.len(), dy.len(), dx.len()]) }
            {
                match accum {
                    Accum::Replace => {
                        for ((d, &$s), &$dy) in dx.iter_mut().zip(saved).zip(dy) {
                            *d = $f;
                        }
                    }
                    Accum::Add => {
                        for ((d, &$s), &$dy) in dx.iter_mut().zip(saved).zip(dy) {
                            *d += $f;
                        }
                    }
                }
            }
        }
    };
}

unary!(
    /// y = max(x, 0); NaN stays NaN (PyTorch's `relu`).
    relu, |x| math::relu(x)
);
unary_backward!(
    /// From y or x: dx = 0 where y <= 0, else dy (a NaN y passes dy, as
    /// PyTorch's `threshold_backward` does).
    relu_backward, |y, dy| if y <= 0.0 { 0.0 } else { dy }
);
unary!(
    /// y = 1 / (1 + e^-x)
    sigmoid, |x| math::sigmoid::<FMA>(x)
);
unary_backward!(
    /// From y: dx = dy * y (1 - y).
    sigmoid_backward, |y, dy| dy * y * (1.0 - y)
);
unary!(
    /// y = tanh(x)
    tanh, |x| math::tanh::<FMA>(x)
);
unary_backward!(
    /// From y: dx = dy * (1 - y^2).
    tanh_backward, |y, dy| dy * (1.0 - y * y)
);
unary!(
    /// y = e^x (inputs clamped to [-87.3, 88.7])
    exp, |x| math::exp::<FMA>(x)
);

kernel! {
    /// x = max(x, 0) in place; NaN stays NaN.
    pub fn relu_inplace(x: &mut [f32]);
    check {}
    {
        for v in x.iter_mut() {
            *v = math::relu(*v);
        }
    }
}

kernel! {
    /// y = x if x > 0, else slope * x (NaN stays NaN: slope * NaN).
    pub fn leaky_relu(x: &[f32], slope: f32, out: &mut [f32]);
    check { same_len("leaky_relu", &[x.len(), out.len()]) }
    {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = if v > 0.0 { v } else { slope * v };
        }
    }
}

kernel! {
    /// From x: dx (+)= dy where x > 0, else slope * dy.
    pub fn leaky_relu_backward(x: &[f32], slope: f32, dy: &[f32], dx: &mut [f32], accum: Accum);
    check { same_len("leaky_relu_backward", &[x.len(), dy.len(), dx.len()]) }
    {
        let grad = |v: f32, g: f32| if v > 0.0 { g } else { slope * g };
        match accum {
            Accum::Replace => {
                for ((d, &v), &g) in dx.iter_mut().zip(x).zip(dy) {
                    *d = grad(v, g);
                }
            }
            Accum::Add => {
                for ((d, &v), &g) in dx.iter_mut().zip(x).zip(dy) {
                    *d += grad(v, g);
                }
            }
        }
    }
}

kernel! {
    /// Broadcast bias add: `out[r, j] = x[r, j] + bias[j]`, rows of `bias.len()`.
    pub fn bias_add(x: &[f32], bias: &[f32], out: &mut [f32]);
    check {
        same_len("bias_add", &[x.len(), out.len()]);
        whole_rows("bias_add", x.len(), bias.len());
    }
    { add_bias_then(x, bias, out, |v| v) }
}

kernel! {
    /// Fused bias add and ReLU: `out[r, j] = max(x[r, j] + bias[j], 0)`,
    /// NaN kept. Usually called in place on a GEMM output, so `x` may be `out`'s copy.
    pub fn bias_relu(x: &[f32], bias: &[f32], out: &mut [f32]);
    check {
        same_len("bias_relu", &[x.len(), out.len()]);
        whole_rows("bias_relu", x.len(), bias.len());
    }
    { add_bias_then(x, bias, out, math::relu) }
}

kernel! {
    /// In-place fused bias add and ReLU on rows of `bias.len()`, NaN
    /// kept: the GEMM epilogue of a Linear + ReLU layer.
    pub fn bias_relu_inplace(x: &mut [f32], bias: &[f32]);
    check { whole_rows("bias_relu_inplace", x.len(), bias.len()); }
    { add_bias_in_place_then(x, bias, math::relu) }
}

/// A Linear's epilogue on its product y [rows, outputs]: add the bias if
/// there is one, then ReLU if asked (fused when both).
pub fn linear_epilogue(y: &mut [f32], bias: Option<&[f32]>, relu: bool) {
    match (bias, relu) {
        (Some(b), true) => bias_relu_inplace(y, b),
        (Some(b), false) => bias_add_inplace(y, b),
        (None, true) => relu_inplace(y),
        (None, false) => {}
    }
}

kernel! {
    /// In-place broadcast bias add on rows of `bias.len()`.
    pub fn bias_add_inplace(x: &mut [f32], bias: &[f32]);
    check { whole_rows("bias_add_inplace", x.len(), bias.len()); }
    { add_bias_in_place_then(x, bias, |v| v) }
}

/// `out[r, j] = then(x[r, j] + bias[j])` on rows of `bias.len()`: the
/// loop of the bias kernels, inlined into each SIMD copy of them.
#[inline(always)]
fn add_bias_then(x: &[f32], bias: &[f32], out: &mut [f32], then: impl Fn(f32) -> f32) {
    let cols = bias.len();
    if cols == 0 {
        return;
    }
    for (o_row, x_row) in out.chunks_exact_mut(cols).zip(x.chunks_exact(cols)) {
        for ((o, &v), &b) in o_row.iter_mut().zip(x_row).zip(bias) {
            *o = then(v + b);
        }
    }
}

/// [`add_bias_then`] with `out` and `x` the same rows.
#[inline(always)]
fn add_bias_in_place_then(x: &mut [f32], bias: &[f32], then: impl Fn(f32) -> f32) {
    let cols = bias.len();
    if cols == 0 {
        return;
    }
    for row in x.chunks_exact_mut(cols) {
        for (v, &b) in row.iter_mut().zip(bias) {
            *v = then(*v + b);
        }
    }
}
