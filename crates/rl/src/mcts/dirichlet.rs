//! Gamma and Dirichlet sampling (Marsaglia and Tsang, 2000) on a caller's
//! generator, so root noise needs no distribution crate.

use rand::Rng;

/// A standard normal draw (Marsaglia's polar method).
pub fn standard_normal(rng: &mut impl Rng) -> f32 {
    loop {
        let u: f64 = 2.0 * rng.random::<f64>() - 1.0;
        let v: f64 = 2.0 * rng.random::<f64>() - 1.0;
        let s = u * u + v * v;
        if s > 0.0 && s < 1.0 {
            return (u * (-2.0 * s.ln() / s).sqrt()) as f32;
        }
    }
}

/// A Gamma(alpha, 1) draw, alpha > 0. For alpha < 1 it uses
/// Gamma(alpha) = Gamma(alpha + 1) U^(1 / alpha).
#[track_caller]
pub fn gamma(alpha: f32, rng: &mut impl Rng) -> f32 {
    assert!(alpha > 0.0 && alpha.is_finite(), "gamma: expected alpha > 0, found {alpha}");
    if alpha < 1.0 {
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        return (gamma(alpha + 1.0, rng) as f64 * u.powf(1.0 / alpha as f64)) as f32;
    }
    let d = alpha as f64 - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng) as f64;
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u: f64 = rng.random();
        if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return (d * v) as f32;
        }
    }
}

/// Fills `out` with a Dirichlet(alpha, ..., alpha) draw (sums to 1).
pub fn dirichlet(alpha: f32, rng: &mut impl Rng, out: &mut [f32]) {
    let mut total = 0.0;
    for o in out.iter_mut() {
        *o = gamma(alpha, rng);
        total += *o;
    }
    if total > 0.0 {
        out.iter_mut().for_each(|o| *o /= total);
    } else if !out.is_empty() {
        // Every draw underflowed (tiny alpha): the limit is one-hot.
        let i = rng.random_range(0..out.len());
        out.fill(0.0);
        out[i] = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn moments(alpha: f32) -> (f64, f64) {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| gamma(alpha, &mut rng) as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        (mean, var)
    }

    #[test]
    fn gamma_has_mean_and_variance_alpha() {
        for alpha in [0.03f32, 0.3, 1.0, 2.5, 10.0] {
            let (mean, var) = moments(alpha);
            let a = alpha as f64;
            assert!((mean - a).abs() < 0.02 * a.max(0.5), "alpha {alpha}: mean {mean}");
            assert!((var - a).abs() < 0.05 * a.max(0.5), "alpha {alpha}: variance {var}");
        }
    }

    #[test]
    fn dirichlet_sums_to_one_with_equal_means() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut sums = [0.0f64; 4];
        let mut out = [0.0f32; 4];
        for _ in 0..20_000 {
            dirichlet(0.5, &mut rng, &mut out);
            assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            sums.iter_mut().zip(&out).for_each(|(s, &o)| *s += o as f64);
        }
        for s in sums {
            assert!((s / 20_000.0 - 0.25).abs() < 0.01, "mean {}", s / 20_000.0);
        }
    }
}
