//! Initialisers, from a seeded generator (PyTorch's formulas).

use rand::Rng;

/// How to fill a parameter. `fan_in` and `fan_out` are those of the layer.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// PyTorch's default for Linear weights: kaiming_uniform with a = √5,
    /// which is U(-1/√fan_in, 1/√fan_in); also its default for biases.
    #[serde(rename = "pytorch_linear")]
    PyTorchLinear,
    /// U(-b, b), b = gain √(3 / fan_in), gain √2 (ReLU).
    KaimingUniform,
    /// N(0, gain² / fan_in), gain √2 (ReLU).
    KaimingNormal,
    /// U(-b, b), b = √(6 / (fan_in + fan_out)).
    XavierUniform,
    /// N(0, 2 / (fan_in + fan_out)).
    XavierNormal,
    /// All zeros.
    Zeros,
    /// Every value the same.
    Constant(f32),
    /// U(low, high).
    Uniform(f32, f32),
    /// N(mean, std²).
    Normal {
        /// The mean.
        mean: f32,
        /// The standard deviation.
        std: f32,
    },
}

impl Init {
    /// Fills `dst` for a layer of `fan_in` inputs and `fan_out` outputs.
    pub fn fill(self, dst: &mut [f32], fan_in: usize, fan_out: usize, rng: &mut impl Rng) {
        let fan_in = fan_in.max(1) as f32;
        let fan_out = fan_out.max(1) as f32;
        match self {
            Init::PyTorchLinear => uniform(dst, 1.0 / fan_in.sqrt(), rng),
            Init::KaimingUniform => uniform(dst, (2.0f32).sqrt() * (3.0 / fan_in).sqrt(), rng),
            Init::KaimingNormal => normal(dst, 0.0, (2.0 / fan_in).sqrt(), rng),
            Init::XavierUniform => uniform(dst, (6.0 / (fan_in + fan_out)).sqrt(), rng),
            Init::XavierNormal => normal(dst, 0.0, (2.0 / (fan_in + fan_out)).sqrt(), rng),
            Init::Zeros => dst.fill(0.0),
            Init::Constant(c) => dst.fill(c),
            Init::Uniform(lo, hi) => dst.iter_mut().for_each(|v| *v = rng.random_range(lo..hi)),
            Init::Normal { mean, std } => normal(dst, mean, std, rng),
        }
    }
}

fn uniform(dst: &mut [f32], bound: f32, rng: &mut impl Rng) {
    dst.iter_mut().for_each(|v| *v = rng.random_range(-bound..bound));
}

/// Box-Muller: two uniforms give two independent normals.
fn normal(dst: &mut [f32], mean: f32, std: f32, rng: &mut impl Rng) {
    for pair in dst.chunks_mut(2) {
        let u1: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        let u2: f64 = rng.random();
        let r = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * u2;
        pair[0] = mean + std * (r * theta.cos()) as f32;
        if let Some(second) = pair.get_mut(1) {
            *second = mean + std * (r * theta.sin()) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn moments(init: Init, fan_in: usize, fan_out: usize) -> (f64, f64, f32) {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut v = vec![0.0; 100_000];
        init.fill(&mut v, fan_in, fan_out, &mut rng);
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / v.len() as f64;
        (mean, var, v.iter().fold(0.0f32, |m, x| m.max(x.abs())))
    }

    #[test]
    fn variances_match_the_formulas() {
        // U(-b, b) has variance b²/3.
        let (mean, var, max) = moments(Init::PyTorchLinear, 64, 8);
        assert!(mean.abs() < 0.002 && (var - 1.0 / 64.0 / 3.0).abs() < 3e-4 && max <= 0.125);
        let (_, var, _) = moments(Init::KaimingNormal, 50, 8);
        assert!((var - 2.0 / 50.0).abs() < 1e-3, "{var}");
        let (_, var, _) = moments(Init::XavierUniform, 30, 70);
        assert!((var - 6.0 / 100.0 / 3.0).abs() < 1e-3, "{var}");
        let (mean, var, _) = moments(Init::Normal { mean: 1.0, std: 0.5 }, 1, 1);
        assert!((mean - 1.0).abs() < 0.01 && (var - 0.25).abs() < 0.01);
    }
}
