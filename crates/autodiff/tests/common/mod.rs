//! The gradient-check harness shared by the op test files: parameters
//! with values away from ReLU kinks, and a check of d/dparams of
//! Σ (f(graph) ⊙ r) for a fixed random r against central differences.
#![allow(dead_code)]

use minnow_autodiff::gradcheck::check_gradients;
use minnow_autodiff::{Graph, ParamId, Params, Result, Tape, Var};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub const H: f32 = 1e-2;
/// With h = 1e-2, f32 rounding in losses of order 10 adds about 5e-5 of
/// noise to the finite differences; truncation error is about h² = 1e-4
/// relative. A gradient off by 1% fails.
pub const ATOL: f32 = 1e-4;
pub const RTOL: f32 = 2e-3;

/// Values in ±[0.1, 1]: away from the kinks of ReLU-like ops.
pub fn values(rng: &mut Pcg64Mcg, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(0.1f32..1.0) * if rng.random_bool(0.5) { 1.0 } else { -1.0 }).collect()
}

pub struct Case {
    pub params: Params,
    pub rng: Pcg64Mcg,
    pub h: f32,
}

impl Case {
    pub fn new(seed: u64) -> Self {
        Self { params: Params::new(), rng: Pcg64Mcg::seed_from_u64(seed), h: H }
    }

    /// A larger step for a loss linear in each parameter (convolution),
    /// where central differences are exact and only f32 rounding of the
    /// loss, divided by 2h, is noise.
    pub fn linear(mut self) -> Self {
        self.h = 0.5;
        self
    }

    pub fn param(&mut self, name: &str, dims: &[usize]) -> ParamId {
        let v = values(&mut self.rng, dims.iter().product());
        self.param_with(name, dims, &v)
    }

    pub fn param_with(&mut self, name: &str, dims: &[usize], v: &[f32]) -> ParamId {
        self.params.add(name, dims, |dst| dst.copy_from_slice(v)).unwrap()
    }

    pub fn data(&mut self, n: usize) -> Vec<f32> {
        values(&mut self.rng, n)
    }

    /// Checks d/dparams of Σ (f(graph) ⊙ r) for a fixed random r.
    pub fn check(mut self, name: &str, f: impl Fn(&mut Graph<'_>) -> Result<Var>) {
        let mut probe = Tape::new();
        let numel = {
            let mut g = probe.graph(&mut self.params);
            let y = f(&mut g).unwrap();
            g.shape(y).numel()
        };
        let r = self.data(numel);
        let report = check_gradients(&mut self.params, self.h, 64, ATOL, RTOL, |g| {
            let y = f(g)?;
            let dims: Vec<usize> = g.shape(y).dims().to_vec();
            let rv = g.input(&dims, &r)?;
            let weighted = g.mul(y, rv)?;
            g.sum(weighted)
        })
        .unwrap();
        assert!(report.passed(), "{name}: gradient check failed: {report:?}");
    }
}
