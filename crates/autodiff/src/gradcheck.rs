//! Finite-difference gradient checking: the analytic gradient of a scalar
//! loss with respect to every parameter, against central differences.

use crate::{Graph, Params, Result, Tape, Var};

/// The worst disagreement found, and where.
#[derive(Clone, Debug)]
pub struct GradCheck {
    /// max over checked elements of |analytic - numeric| / (atol + rtol *
    /// max(|analytic|, |numeric|)): below 1 everywhere means the check passed.
    pub max_error: f32,
    /// The parameter with the largest relative error.
    pub worst_param: String,
    /// Its element.
    pub worst_index: usize,
    /// The backward pass's gradient there.
    pub analytic: f32,
    /// The finite difference there.
    pub numeric: f32,
    /// Elements compared.
    pub checked: usize,
}

impl GradCheck {
    /// Whether every element agreed within the tolerance.
    pub fn passed(&self) -> bool {
        self.checked > 0 && self.max_error < 1.0
    }
}

/// Compares `d loss / d p` from the tape with (L(p + h) - L(p - h)) / 2h for
/// up to `max_per_param` evenly spread elements of every parameter.
/// `loss` builds the graph from the parameters and returns the scalar loss;
/// it must be deterministic (a graph it seeds with [`Graph::set_seed`]
/// draws the same masks each time), and runs on training graphs on both
/// sides. The loss is computed in f32, so with h = 1e-3 and a loss of
/// order 1 the numeric side carries noise of about 1e-4: choose `atol`
/// above that.
pub fn check_gradients(
    params: &mut Params,
    h: f32,
    max_per_param: usize,
    atol: f32,
    rtol: f32,
    loss: impl Fn(&mut Graph<'_>) -> Result<Var>,
) -> Result<GradCheck> {
    let mut tape = Tape::new();
    params.zero_grads();
    {
        let mut g = tape.graph(params);
        let l = loss(&mut g)?;
        g.backward(l)?;
    }
    let analytic_all = params.grads().to_vec();
    // Training graphs on both sides: the mode a layer reads from its graph
    // (dropout, batch statistics) must be the one differentiated.
    let mut eval = |params: &mut Params| -> Result<f64> {
        let mut g = tape.graph(params);
        let l = loss(&mut g)?;
        Ok(g.scalar(l) as f64)
    };
    let mut report = GradCheck {
        max_error: 0.0,
        worst_param: String::new(),
        worst_index: 0,
        analytic: 0.0,
        numeric: 0.0,
        checked: 0,
    };
    for id in params.ids().collect::<Vec<_>>() {
        let range = params.range(id);
        let n = range.len();
        let stride = n.div_ceil(max_per_param.max(1)).max(1);
        for i in (0..n).step_by(stride) {
            let at = range.start + i;
            let original = params.values()[at];
            params.values_mut()[at] = original + h;
            let plus = eval(params)?;
            params.values_mut()[at] = original - h;
            let minus = eval(params)?;
            params.values_mut()[at] = original;
            let numeric = ((plus - minus) / (2.0 * h as f64)) as f32;
            let analytic = analytic_all[at];
            let error = (analytic - numeric).abs() / (atol + rtol * analytic.abs().max(numeric.abs()));
            report.checked += 1;
            if error > report.max_error {
                report = GradCheck {
                    max_error: error,
                    worst_param: params.name(id).to_string(),
                    worst_index: i,
                    analytic,
                    numeric,
                    checked: report.checked,
                };
            }
        }
    }
    Ok(report)
}
