//! The portable fallback: plain loops over slices (LLVM vectorises the
//! broadcast form with the baseline instruction set).

use super::{Layout, Operands};

pub(super) fn gemm(o: Operands<'_>) {
    let Operands { layout, packed: _, m, n, k, alpha, beta, a, rsa, csa, b, rsb, csb, c, ldc } = o;
    for i in 0..m {
        let row = &mut c[i * ldc..i * ldc + n];
        match layout {
            Layout::Nn | Layout::Tn => {
                if beta == 0.0 {
                    row.fill(0.0);
                } else if beta != 1.0 {
                    row.iter_mut().for_each(|x| *x *= beta);
                }
                for p in 0..k {
                    let x = alpha * a[i * rsa + p * csa];
                    let b_row = &b[p * rsb..p * rsb + n];
                    for (y, &bv) in row.iter_mut().zip(b_row) {
                        *y += x * bv;
                    }
                }
            }
            Layout::Nt => {
                let a_row = &a[i * rsa..i * rsa + k];
                for (j, y) in row.iter_mut().enumerate() {
                    let b_row = &b[j * csb..j * csb + k];
                    let dot: f32 = a_row.iter().zip(b_row).map(|(&x, &w)| x * w).sum();
                    *y = if beta == 0.0 { alpha * dot } else { alpha * dot + beta * *y };
                }
            }
        }
    }
}
