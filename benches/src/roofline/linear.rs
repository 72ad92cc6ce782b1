//! FLOPs of Linear layers, counted from their shapes.

use minnow_autodiff::Params;

/// FLOPs of one Adam update of one parameter: the first moment (2
/// multiplies, an add), the second (3 multiplies, an add), the
/// denominator (a square root, a multiply, an add) and the step (2
/// multiplies, a divide, a subtract). Elementwise, counted at the FMA
/// rate: generous to the optimiser, so the floor stays a lower bound.
pub const ADAM_FLOPS_PER_PARAMETER: f64 = 14.0;

/// A Linear layer's matrix, `inputs -> outputs` (weight [outputs, inputs]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearShape {
    /// Features in (k).
    pub inputs: usize,
    /// Features out (n).
    pub outputs: usize,
}

impl LinearShape {
    /// The weight matrices of a parameter store in creation order: every
    /// rank-2 parameter, read as a Linear weight [outputs, inputs]. True
    /// of the MLPs and the policy/value network the workloads time (their
    /// biases and LayerNorm scales are rank 1).
    pub fn of_params(params: &Params) -> Vec<LinearShape> {
        params
            .ids()
            .filter_map(|id| match params.shape(id).dims() {
                &[outputs, inputs] => Some(LinearShape { inputs, outputs }),
                _ => None,
            })
            .collect()
    }

    /// Elements of the weight.
    pub fn weights(&self) -> usize {
        self.inputs * self.outputs
    }

    /// y = x Wᵀ at `batch` rows: 2 · batch · inputs · outputs.
    pub fn forward_flops(&self, batch: usize) -> f64 {
        2.0 * (batch * self.weights()) as f64
    }

    /// The weight gradient dW = dyᵀ x, and the input gradient dx = dy W
    /// when `input_gradient` (a first layer, whose input is data, needs
    /// none): 2 · batch · inputs · outputs each.
    pub fn backward_flops(&self, batch: usize, input_gradient: bool) -> f64 {
        let products = if input_gradient { 2.0 } else { 1.0 };
        products * self.forward_flops(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linear_of_m_k_n_counts_2mkn_forward_and_4mkn_backward() {
        let (m, k, n) = (64, 144, 128);
        let layer = LinearShape { inputs: k, outputs: n };
        assert_eq!(layer.forward_flops(m), (2 * m * k * n) as f64);
        assert_eq!(layer.backward_flops(m, true), (4 * m * k * n) as f64);
        assert_eq!(layer.backward_flops(m, false), (2 * m * k * n) as f64);
        assert_eq!(layer.forward_flops(0), 0.0);
    }

    #[test]
    fn the_weights_of_a_store_are_its_rank_2_parameters_in_order() {
        use rand::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
        let mut params = Params::new();
        minnow_nn::MlpConfig::new(&[16, 64, 64, 4]).init(&mut params, "q", &mut rng).unwrap();
        let shapes: Vec<(usize, usize)> =
            LinearShape::of_params(&params).iter().map(|l| (l.inputs, l.outputs)).collect();
        assert_eq!(shapes, [(16, 64), (64, 64), (64, 4)]);
        let weights: usize = LinearShape::of_params(&params).iter().map(LinearShape::weights).sum();
        assert_eq!(params.numel(), weights + 64 + 64 + 4);
    }
}
