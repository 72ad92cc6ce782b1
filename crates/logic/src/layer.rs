//! A layer of soft gates over lanes: the forward and backward kernels every
//! circuit here runs, and [`GateLayer`], the same layer as a custom op on
//! the autodiff tape.
//!
//! Data is row-major `[rows, lanes]`: a row is one value (a gate output, a
//! perception tap) across `lanes` independent evaluations (cells x batch),
//! so the inner loops stream contiguous lanes and vectorise.

use crate::gates::{self, OPS};
use crate::wiring::Wiring;
use crate::{LayerName, LogicError, Result};
use minnow_autodiff::{CustomOp, Error as AdError, Result as AdResult};
use minnow_tensor::Shape;

/// Lanes per vector block of the backward kernel (one AVX-512 register):
/// lane counts are multiples of it.
pub const BLOCK: usize = 16;

/// One gate: reads rows `a` and `b`, uses the logits (folded coefficients)
/// of parameter gate `param`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    /// Row of the first input.
    pub a: u32,
    /// Row of the second input.
    pub b: u32,
    /// The parameter gate whose logits this gate uses (shared logits:
    /// perception gates of every channel use one).
    pub param: u32,
}

/// Soft forward of a layer: `out[i] = C0 + C1 a + C2 b + C3 ab` with
/// `a = x[gates[i].a]`, `b = x[gates[i].b]` and `C = coeffs[gates[i].param]`.
///
/// out is `[gates.len(), lanes]`, x is `[rows, lanes]`. The hard forward is
/// this kernel with one-hot coefficients ([`gates::COEFFS`] of the argmax),
/// exact on 0/1 inputs.
#[track_caller]
pub fn gate_forward(out: &mut [f32], x: &[f32], lanes: usize, gates: &[Gate], coeffs: &[[f32; 4]]) {
    assert!(
        out.len() == gates.len() * lanes && x.len().is_multiple_of(lanes.max(1)),
        "gate_forward: expected out [{}, {lanes}] and x [rows, {lanes}], found {} and {} values",
        gates.len(),
        out.len(),
        x.len()
    );
    if lanes == 0 {
        return;
    }
    crate::simd::gate_forward(out, x, lanes, gates, coeffs);
}

/// `a * b + c`, fused where the instruction set has FMA.
#[inline(always)]
fn mad<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

#[inline(always)]
pub(crate) fn forward_body<const FMA: bool>(
    out: &mut [f32],
    x: &[f32],
    lanes: usize,
    gates: &[Gate],
    coeffs: &[[f32; 4]],
) {
    for (gate, y) in gates.iter().zip(out.chunks_exact_mut(lanes)) {
        let a = &x[gate.a as usize * lanes..][..lanes];
        let b = &x[gate.b as usize * lanes..][..lanes];
        let [c0, c1, c2, c3] = coeffs[gate.param as usize];
        for ((y, &a), &b) in y.iter_mut().zip(a).zip(b) {
            *y = mad::<FMA>(mad::<FMA>(c3, a, c2), b, mad::<FMA>(c1, a, c0));
        }
    }
}

/// Soft backward of a layer. Given dL/dout (`dout`, `[gates.len(), lanes]`)
/// adds `g (C1 + C3 b)` into `dx[a]` and `g (C2 + C3 a)` into `dx[b]`
/// (`dx` is `[rows, lanes]` like `x`), and adds (Σg, Σga, Σgb, Σgab) over
/// the lanes into `sums[param]`, from which [`gates::logit_grads`] gives
/// the logit gradients. `lanes` must be a multiple of [`BLOCK`].
#[track_caller]
pub fn gate_backward(
    dx: &mut [f32],
    sums: &mut [[f32; 4]],
    x: &[f32],
    dout: &[f32],
    lanes: usize,
    gates: &[Gate],
    coeffs: &[[f32; 4]],
) {
    assert!(
        lanes.is_multiple_of(BLOCK)
            && dout.len() == gates.len() * lanes
            && dx.len() == x.len()
            && x.len().is_multiple_of(lanes.max(1)),
        "gate_backward: expected dout [{}, {lanes}] and dx, x of one shape [rows, {lanes}] \
         with {lanes} a multiple of {BLOCK}, found {}, {} and {} values",
        gates.len(),
        dout.len(),
        dx.len(),
        x.len()
    );
    if lanes == 0 {
        return;
    }
    crate::simd::gate_backward(dx, sums.as_flattened_mut(), x, dout, lanes, gates, coeffs, &mut [], 0);
}

/// [`gate_backward`] for the CA engine: sums kept as four partial sums
/// each (`lane_sums` is `[params, 4 sums, 4 partials]`, one cache line per
/// gate, added without a full horizontal reduction), and written-row
/// tracking (see `backward_body`): `written` is `[rows]` over the whole
/// buffer, `dx` its rows below `out_start`.
#[track_caller]
pub(crate) fn gate_backward_tracked(
    dx: &mut [f32],
    lane_sums: &mut [f32],
    x: &[f32],
    dout: &[f32],
    lanes: usize,
    gates: &[Gate],
    coeffs: &[[f32; 4]],
    written: &mut [bool],
    out_start: usize,
) {
    assert!(
        lanes > 0
            && lanes.is_multiple_of(BLOCK)
            && dout.len() == gates.len() * lanes
            && dx.len() == x.len()
            && dx.len() == out_start * lanes
            && written.len() >= out_start + gates.len()
            && lane_sums.len() == coeffs.len() * 16,
        "gate_backward_tracked: shapes disagree (lanes {lanes}, {} gates from row {out_start}, dx {}, x {}, \
         written {}, lane sums {})",
        gates.len(),
        dx.len(),
        x.len(),
        written.len(),
        lane_sums.len()
    );
    crate::simd::gate_backward_tracked(dx, lane_sums, x, dout, lanes, gates, coeffs, written, out_start);
}

/// The backward kernel; `sums` is `[params, 4]`, or `[params, 4, 4]`
/// (four partial sums each) when `LANE_SUMS`. With `TRACK`, `written[row]` says whether a row of
/// gradients holds anything yet (absolute rows; the outputs start at
/// `out_start`): a gate whose output row was never written is skipped, and
/// the first write to an input row stores instead of adding, so nothing
/// needs zeroing beforehand.
#[inline(always)]
pub(crate) fn backward_body<const FMA: bool, const LANE_SUMS: bool, const TRACK: bool>(
    dx: &mut [f32],
    sums: &mut [f32],
    x: &[f32],
    dout: &[f32],
    lanes: usize,
    gates: &[Gate],
    coeffs: &[[f32; 4]],
    written: &mut [bool],
    out_start: usize,
) {
    for (i, (gate, g_row)) in gates.iter().zip(dout.chunks_exact(lanes)).enumerate() {
        if TRACK && !written[out_start + i] {
            continue;
        }
        let (store_a, store_b) = if TRACK {
            let store_a = !written[gate.a as usize];
            written[gate.a as usize] = true;
            let store_b = !written[gate.b as usize];
            written[gate.b as usize] = true;
            (store_a, store_b)
        } else {
            (false, false)
        };
        let (ao, bo) = (gate.a as usize * lanes, gate.b as usize * lanes);
        let a_row = &x[ao..][..lanes];
        let b_row = &x[bo..][..lanes];
        let [_, c1, c2, c3] = coeffs[gate.param as usize];
        let mut acc = [[0.0f32; BLOCK]; 4];
        for l in (0..lanes).step_by(BLOCK) {
            let g: &[f32; BLOCK] = g_row[l..l + BLOCK].try_into().expect("one block");
            let a: &[f32; BLOCK] = a_row[l..l + BLOCK].try_into().expect("one block");
            let b: &[f32; BLOCK] = b_row[l..l + BLOCK].try_into().expect("one block");
            let mut da = [0.0f32; BLOCK];
            let mut db = [0.0f32; BLOCK];
            for j in 0..BLOCK {
                da[j] = g[j] * mad::<FMA>(c3, b[j], c1);
                db[j] = g[j] * mad::<FMA>(c3, a[j], c2);
                let ga = g[j] * a[j];
                acc[0][j] += g[j];
                acc[1][j] += ga;
                acc[2][j] = mad::<FMA>(g[j], b[j], acc[2][j]);
                acc[3][j] = mad::<FMA>(ga, b[j], acc[3][j]);
            }
            // Two separate writes, so a == b is fine.
            let dst: &mut [f32; BLOCK] = (&mut dx[ao + l..ao + l + BLOCK]).try_into().expect("one block");
            if store_a {
                *dst = da;
            } else {
                for j in 0..BLOCK {
                    dst[j] += da[j];
                }
            }
            let dst: &mut [f32; BLOCK] = (&mut dx[bo + l..bo + l + BLOCK]).try_into().expect("one block");
            if store_b {
                *dst = db;
            } else {
                for j in 0..BLOCK {
                    dst[j] += db[j];
                }
            }
        }
        let p = gate.param as usize;
        if LANE_SUMS {
            // Four partial sums of each, folding the block's quarters.
            let mut part = [0.0f32; 16];
            for k in 0..4 {
                for q in 0..4 {
                    part[k * 4 + q] = (acc[k][q] + acc[k][q + 8]) + (acc[k][q + 4] + acc[k][q + 12]);
                }
            }
            let s: &mut [f32; 16] = (&mut sums[p * 16..(p + 1) * 16]).try_into().expect("lane sums");
            for i in 0..16 {
                s[i] += part[i];
            }
        } else {
            for k in 0..4 {
                sums[p * 4 + k] += reduce_block(&acc[k]);
            }
        }
    }
}

/// The sums alone (no input gradient), for a layer whose inputs are data.
#[track_caller]
pub fn gate_sums(sums: &mut [[f32; 4]], x: &[f32], dout: &[f32], lanes: usize, gates: &[Gate]) {
    assert!(
        dout.len() == gates.len() * lanes,
        "gate_sums: expected dout [{}, {lanes}], found {} values",
        gates.len(),
        dout.len()
    );
    if lanes == 0 {
        return;
    }
    for (gate, g_row) in gates.iter().zip(dout.chunks_exact(lanes)) {
        let a_row = &x[gate.a as usize * lanes..][..lanes];
        let b_row = &x[gate.b as usize * lanes..][..lanes];
        let mut s = [0.0f32; 4];
        for ((&g, &a), &b) in g_row.iter().zip(a_row).zip(b_row) {
            s[0] += g;
            s[1] += g * a;
            s[2] += g * b;
            s[3] += g * a * b;
        }
        for k in 0..4 {
            sums[gate.param as usize][k] += s[k];
        }
    }
}

/// Sum of one block of lanes in a fixed pairwise order.
#[inline(always)]
fn reduce_block(v: &[f32; BLOCK]) -> f32 {
    let mut h = [0.0f32; BLOCK / 2];
    for j in 0..BLOCK / 2 {
        h[j] = v[j] + v[j + BLOCK / 2];
    }
    let mut q = [0.0f32; BLOCK / 4];
    for j in 0..BLOCK / 4 {
        q[j] = h[j] + h[j + BLOCK / 4];
    }
    (q[0] + q[2]) + (q[1] + q[3])
}

/// Folds every gate's logits (`[gates, 16]`) into probabilities
/// (`[gates, 16]`) and coefficients: the once-per-step softmax.
#[track_caller]
pub fn fold_all(logits: &[f32], probs: &mut [f32], coeffs: &mut [[f32; 4]]) {
    assert!(
        logits.len() == coeffs.len() * OPS && probs.len() == logits.len(),
        "fold_all: expected logits and probs [{}, 16], found {} and {} values",
        coeffs.len(),
        logits.len(),
        probs.len()
    );
    for ((l, p), c) in logits.chunks_exact(OPS).zip(probs.chunks_exact_mut(OPS)).zip(coeffs.iter_mut()) {
        *c = gates::fold(l, p);
    }
}

/// A layer of `wiring.len()` gates over `inputs` values, as a custom op on
/// the tape: inputs x `[inputs, lanes]` and logits `[gates, 16]` (a
/// parameter), output `[gates, lanes]`.
#[derive(Clone, Debug)]
pub struct GateLayer {
    inputs: usize,
    gates: Vec<Gate>,
}

impl GateLayer {
    /// A layer reading `inputs` values with the given wiring; gate i uses
    /// logits row i.
    pub fn new(inputs: usize, wiring: &Wiring) -> Result<Self> {
        if let Some(&bad) = wiring.a.iter().chain(&wiring.b).find(|&&i| i as usize >= inputs) {
            return Err(LogicError::LayerWidth {
                layer: LayerName::new("gate_layer", 0),
                expected: "wiring indices below the input count",
                found: bad as usize,
            });
        }
        let gates = wiring.pairs().enumerate().map(|(i, (a, b))| Gate { a, b, param: i as u32 }).collect();
        Ok(Self { inputs, gates })
    }

    /// Values the layer reads per lane.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Values the layer writes per lane: one per gate.
    pub fn outputs(&self) -> usize {
        self.gates.len()
    }

    /// The gates, in output order.
    pub fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// Logits with the pass-through op A at `pass_logit`, all others 0.
    pub fn init_logits(&self, pass_logit: f32, logits: &mut [f32]) {
        for row in logits.chunks_exact_mut(OPS) {
            row.fill(0.0);
            row[gates::PASS_A as usize] = pass_logit;
        }
    }
}

impl CustomOp for GateLayer {
    fn name(&self) -> &'static str {
        "gate_layer"
    }

    fn output_shape(&self, inputs: &[Shape]) -> AdResult<Shape> {
        let ok = inputs.len() == 2
            && inputs[0].rank() == 2
            && inputs[0].dims()[0] == self.inputs
            && inputs[0].dims()[1].is_multiple_of(BLOCK)
            && inputs[1].dims() == [self.gates.len(), OPS];
        if !ok {
            return Err(AdError::Config(format!(
                "gate_layer: expected x [{}, lanes] (lanes a multiple of {BLOCK}) and logits [{}, 16], found {:?}",
                self.inputs,
                self.gates.len(),
                inputs.iter().map(|s| s.dims().to_vec()).collect::<Vec<_>>()
            )));
        }
        Ok(Shape::new(&[self.gates.len(), inputs[0].dims()[1]])?)
    }

    fn saved_len(&self, _inputs: &[Shape]) -> usize {
        // probabilities [gates, 16], then coefficients [gates, 4]
        self.gates.len() * (OPS + 4)
    }

    fn forward(&self, inputs: &[&[f32]], shapes: &[Shape], output: &mut [f32], saved: &mut [f32]) {
        let lanes = shapes[0].dims()[1];
        let (probs, coeffs) = saved.split_at_mut(self.gates.len() * OPS);
        let coeffs = as_quads_mut(coeffs);
        fold_all(inputs[1], probs, coeffs);
        gate_forward(output, inputs[0], lanes, &self.gates, coeffs);
    }

    fn backward(
        &self,
        inputs: &[&[f32]],
        shapes: &[Shape],
        _output: &[f32],
        saved: &[f32],
        d_output: &[f32],
        d_inputs: &mut [&mut [f32]],
    ) {
        let lanes = shapes[0].dims()[1];
        let (probs, coeffs) = saved.split_at(self.gates.len() * OPS);
        let coeffs = as_quads(coeffs);
        // One gate per parameter row: the sums live on the stack in chunks.
        const CHUNK: usize = 64;
        let mut sums = [[0.0f32; 4]; CHUNK];
        for start in (0..self.gates.len()).step_by(CHUNK) {
            let end = (start + CHUNK).min(self.gates.len());
            let gates = &self.gates[start..end];
            let dout = &d_output[start * lanes..end * lanes];
            sums[..end - start].fill([0.0; 4]);
            // The gates of this chunk use parameter rows start..end: index
            // their sums from 0 by shifting the coefficients view.
            let local: [Gate; CHUNK] = std::array::from_fn(|i| {
                let g = gates.get(i).copied().unwrap_or(Gate { a: 0, b: 0, param: start as u32 });
                Gate { param: g.param - start as u32, ..g }
            });
            let local = &local[..end - start];
            if d_inputs[0].is_empty() {
                gate_sums(&mut sums, inputs[0], dout, lanes, local);
            } else {
                gate_backward(d_inputs[0], &mut sums, inputs[0], dout, lanes, local, &coeffs[start..end]);
            }
            if !d_inputs[1].is_empty() {
                for (i, s) in sums[..end - start].iter().enumerate() {
                    let g = start + i;
                    let mut d = [0.0f32; OPS];
                    gates::logit_grads(&probs[g * OPS..(g + 1) * OPS], *s, &mut d);
                    for (dst, v) in d_inputs[1][g * OPS..(g + 1) * OPS].iter_mut().zip(d) {
                        *dst += v;
                    }
                }
            }
        }
    }
}

/// Views a slice of 4k floats as k quads.
pub(crate) fn as_quads(v: &[f32]) -> &[[f32; 4]] {
    let (quads, rest) = v.as_chunks::<4>();
    assert!(rest.is_empty(), "as_quads: {} values are not whole quads", v.len());
    quads
}

pub(crate) fn as_quads_mut(v: &mut [f32]) -> &mut [[f32; 4]] {
    let len = v.len();
    let (quads, rest) = v.as_chunks_mut::<4>();
    assert!(rest.is_empty(), "as_quads_mut: {len} values are not whole quads");
    quads
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_block_sums_all_lanes() {
        let v: [f32; BLOCK] = std::array::from_fn(|i| i as f32);
        assert_eq!(reduce_block(&v), (0..16).sum::<i32>() as f32);
    }
}
