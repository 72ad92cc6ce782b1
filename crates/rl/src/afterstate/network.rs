//! The value network: `inputs -> hidden (sigmoid) -> outputs (sigmoid)`,
//! all parameters in one flat buffer. Afterstate encodings are mostly
//! zeros, so the first layer adds one weight column per nonzero input
//! instead of multiplying the whole matrix.

use crate::state::StateSource;
use crate::{Result, RlError};
use rand::Rng;

/// Layout of the flat buffer: `w1` is `[inputs, hidden]` (input-major,
/// so a nonzero input reads one contiguous row), then `b1: [hidden]`,
/// `w2: [outputs, hidden]`, `b2: [outputs]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueNet {
    inputs: usize,
    hidden: usize,
    outputs: usize,
    params: Vec<f32>,
}

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl ValueNet {
    /// Weights uniform in `±1/sqrt(fan_in)`, biases 0.
    pub fn new(inputs: usize, hidden: usize, outputs: usize, rng: &mut impl Rng) -> Self {
        let mut net = Self { inputs, hidden, outputs, params: vec![0.0; Self::len(inputs, hidden, outputs)] };
        let (a1, a2) = (1.0 / (inputs as f32).sqrt(), 1.0 / (hidden as f32).sqrt());
        for w in &mut net.params[..inputs * hidden] {
            *w = rng.random_range(-a1..a1);
        }
        let w2 = net.w2_offset();
        for w in &mut net.params[w2..w2 + outputs * hidden] {
            *w = rng.random_range(-a2..a2);
        }
        net
    }

    fn len(inputs: usize, hidden: usize, outputs: usize) -> usize {
        inputs * hidden + hidden + outputs * hidden + outputs
    }

    fn w2_offset(&self) -> usize {
        (self.inputs + 1) * self.hidden
    }

    /// Input features.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Output probabilities.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Every parameter, in the layout above.
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// Hidden activations of `x` into `h` (`hidden` values).
    #[track_caller]
    fn hidden_layer(&self, x: &[f32], h: &mut [f32]) {
        assert_eq!(x.len(), self.inputs, "ValueNet: input length");
        let hd = self.hidden;
        h.copy_from_slice(&self.params[self.inputs * hd..(self.inputs + 1) * hd]);
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                for (hj, &w) in h.iter_mut().zip(&self.params[i * hd..(i + 1) * hd]) {
                    *hj += xi * w;
                }
            }
        }
        for hj in h.iter_mut() {
            *hj = sigmoid(*hj);
        }
    }

    fn output_layer(&self, h: &[f32], y: &mut [f32]) {
        let (w2, hd) = (self.w2_offset(), self.hidden);
        let b2 = w2 + self.outputs * hd;
        for (k, yk) in y.iter_mut().enumerate() {
            let row = &self.params[w2 + k * hd..w2 + (k + 1) * hd];
            let z: f32 = row.iter().zip(h).map(|(w, h)| w * h).sum();
            *yk = sigmoid(z + self.params[b2 + k]);
        }
    }

    /// The outputs for one input `x` (`inputs` values) into `y`
    /// (`outputs` values); `hidden` is scratch of `hidden` values.
    #[track_caller]
    pub fn forward(&self, x: &[f32], hidden: &mut [f32], y: &mut [f32]) {
        assert_eq!(y.len(), self.outputs, "ValueNet: output length");
        self.hidden_layer(x, hidden);
        self.output_layer(hidden, y);
    }

    /// One SGD step on the cross-entropy between the outputs for `x` and
    /// `target` (each output a probability): the output error is `y - t`.
    /// `scratch` holds `2 * hidden + outputs` values. Returns the squared
    /// error `sum (y - t)^2` before the step.
    #[track_caller]
    pub fn learn(&mut self, x: &[f32], target: &[f32], learning_rate: f32, scratch: &mut [f32]) -> f32 {
        assert_eq!(target.len(), self.outputs, "ValueNet learn: target length");
        let (hd, out) = (self.hidden, self.outputs);
        let (h, rest) = scratch.split_at_mut(hd);
        let (dh, rest) = rest.split_at_mut(hd);
        let y = &mut rest[..out];
        self.hidden_layer(x, h);
        self.output_layer(h, y);
        let mut squared = 0.0;
        for (yk, &t) in y.iter_mut().zip(target) {
            *yk -= t;
            squared += *yk * *yk;
        }
        let (w2, b1) = (self.w2_offset(), self.inputs * hd);
        let b2 = w2 + out * hd;
        dh.fill(0.0);
        for k in 0..out {
            let e = y[k];
            let row = &mut self.params[w2 + k * hd..w2 + (k + 1) * hd];
            for ((w, d), &hj) in row.iter_mut().zip(dh.iter_mut()).zip(h.iter()) {
                *d += e * *w;
                *w -= learning_rate * e * hj;
            }
            self.params[b2 + k] -= learning_rate * e;
        }
        for (d, &hj) in dh.iter_mut().zip(h.iter()) {
            *d *= learning_rate * hj * (1.0 - hj);
        }
        for (b, &d) in self.params[b1..b1 + hd].iter_mut().zip(dh.iter()) {
            *b -= d;
        }
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                for (w, &d) in self.params[i * hd..(i + 1) * hd].iter_mut().zip(dh.iter()) {
                    *w -= xi * d;
                }
            }
        }
        squared
    }

    /// Scratch values [`ValueNet::learn`] needs.
    pub fn learn_scratch(&self) -> usize {
        2 * self.hidden + self.outputs
    }

    /// Copies the parameters from `source`'s array `name` (same length,
    /// all finite).
    pub fn restore(&mut self, source: &dyn StateSource, name: &str) -> Result<()> {
        let fail = |detail: String| RlError::State { name: name.to_string(), detail };
        let saved = source.array(name).ok_or_else(|| fail("missing".into()))?;
        if saved.len() != self.params.len() {
            return Err(fail(format!(
                "{} parameters, this network ({} inputs, {} hidden, {} outputs) has {}",
                saved.len(),
                self.inputs,
                self.hidden,
                self.outputs,
                self.params.len()
            )));
        }
        if let Some(bad) = saved.iter().find(|w| !w.is_finite()) {
            return Err(fail(format!("a parameter is {bad}, expected finite values")));
        }
        self.params.copy_from_slice(saved);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The outputs by the definition, every input multiplied.
    fn dense(net: &ValueNet, x: &[f32]) -> Vec<f32> {
        let (n, hd, o) = (net.inputs, net.hidden, net.outputs);
        let p = &net.params;
        let h: Vec<f32> =
            (0..hd).map(|j| sigmoid(p[n * hd + j] + (0..n).map(|i| x[i] * p[i * hd + j]).sum::<f32>())).collect();
        let w2 = (n + 1) * hd;
        (0..o).map(|k| sigmoid(p[w2 + o * hd + k] + (0..hd).map(|j| h[j] * p[w2 + k * hd + j]).sum::<f32>())).collect()
    }

    fn loss(net: &ValueNet, x: &[f32], t: &[f32]) -> f64 {
        dense(net, x).iter().zip(t).map(|(&y, &t)| -(t * y.ln() + (1.0 - t) * (1.0 - y).ln()) as f64).sum()
    }

    #[test]
    fn forward_matches_the_dense_definition_and_learn_follows_the_gradient() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut net = ValueNet::new(17, 15, 3, &mut rng);
        let x: Vec<f32> = (0..17).map(|i| if i % 3 == 0 { 0.0 } else { rng.random_range(-1.0..1.0) }).collect();
        let (mut h, mut y) = (vec![0.0; 15], vec![0.0; 3]);
        net.forward(&x, &mut h, &mut y);
        for (a, b) in y.iter().zip(dense(&net, &x)) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
        // A small step changes the loss by -lr * |gradient|^2: compare with
        // central differences of the cross-entropy over every parameter.
        let t = [1.0, 0.0, 0.3];
        let eps = 1e-3;
        let mut grad = vec![0.0f64; net.params.len()];
        for (k, g) in grad.iter_mut().enumerate() {
            let mut plus = net.clone();
            plus.params[k] += eps;
            let mut minus = net.clone();
            minus.params[k] -= eps;
            *g = (loss(&plus, &x, &t) - loss(&minus, &x, &t)) / (2.0 * eps as f64);
        }
        let lr = 1e-3;
        let before = net.clone();
        let mut scratch = vec![0.0; net.learn_scratch()];
        net.learn(&x, &t, lr, &mut scratch);
        for (k, g) in grad.iter().enumerate() {
            let step = (before.params[k] - net.params[k]) as f64 / lr as f64;
            assert!((step - g).abs() < 2e-3 + 2e-2 * g.abs(), "parameter {k}: step {step}, gradient {g}");
        }
    }
}
