//! Elementwise arithmetic. Binary ops write `out[i] = a[i] op b[i]`;
//! `*_assign` forms update their first argument in place.

use crate::same_len;

kernel! {
    /// out = a + b
    pub fn add(a: &[f32], b: &[f32], out: &mut [f32]);
    check { same_len("add", &[a.len(), b.len(), out.len()]) }
    {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = x + y;
        }
    }
}

kernel! {
    /// out = a - b
    pub fn sub(a: &[f32], b: &[f32], out: &mut [f32]);
    check { same_len("sub", &[a.len(), b.len(), out.len()]) }
    {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = x - y;
        }
    }
}

kernel! {
    /// out = a * b
    pub fn mul(a: &[f32], b: &[f32], out: &mut [f32]);
    check { same_len("mul", &[a.len(), b.len(), out.len()]) }
    {
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = x * y;
        }
    }
}

kernel! {
    /// dst += x
    pub fn add_assign(dst: &mut [f32], x: &[f32]);
    check { same_len("add_assign", &[dst.len(), x.len()]) }
    {
        for (d, &v) in dst.iter_mut().zip(x) {
            *d += v;
        }
    }
}

kernel! {
    /// dst += a * b (the product rule's accumulation)
    pub fn mul_add_assign(dst: &mut [f32], a: &[f32], b: &[f32]);
    check { same_len("mul_add_assign", &[dst.len(), a.len(), b.len()]) }
    {
        for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
            *d += x * y;
        }
    }
}

kernel! {
    /// y += alpha * x
    pub fn axpy(alpha: f32, x: &[f32], y: &mut [f32]);
    check { same_len("axpy", &[x.len(), y.len()]) }
    {
        for (d, &v) in y.iter_mut().zip(x) {
            *d += alpha * v;
        }
    }
}

kernel! {
    /// x *= alpha
    pub fn scale(alpha: f32, x: &mut [f32]);
    check {}
    {
        for v in x.iter_mut() {
            *v *= alpha;
        }
    }
}

kernel! {
    /// out = alpha * x
    pub fn scale_into(alpha: f32, x: &[f32], out: &mut [f32]);
    check { same_len("scale_into", &[x.len(), out.len()]) }
    {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = alpha * v;
        }
    }
}

/// `x[i] = value`
pub fn fill(x: &mut [f32], value: f32) {
    x.fill(value);
}

/// dst = src
#[track_caller]
pub fn copy(src: &[f32], dst: &mut [f32]) {
    same_len("copy", &[src.len(), dst.len()]);
    dst.copy_from_slice(src);
}
