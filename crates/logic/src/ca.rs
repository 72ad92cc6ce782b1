//! A logic cellular automaton: per-channel perception kernels and an update
//! circuit, laid out as one circuit over rows.
//!
//! Every cell runs the same circuit. Its rows, in order:
//! - taps `c*9 + d`: channel c of the 3x3 neighbour d (row-major, centre 4),
//!   zero outside a zero-boundary grid;
//! - perception layer l: rows `(c*K + k)*w_l + j` of its block (channel c,
//!   kernel k, gate j; every channel uses kernel k's logits);
//! - update layers, the first reading the cell's own channels (the centre
//!   taps) then perception output `c*S*K + s*K + k` (S outputs per kernel),
//!   the reference's `(c s k)` order;
//! - the last update layer's C rows: the cell's next state.
//!
//! Gate i of a layer reads two earlier rows, so one forward pass is the
//! stages in order and the backward pass is the stages reversed.

use crate::gates::{self, OPS};
use crate::hard::{HardProgram, Prune};
use crate::layer::{Gate, gate_forward};
use crate::wiring::Wiring;
use crate::{LayerName, LogicError, Result};
use minnow_autodiff::{ParamId, Params};
use minnow_config::Check;
use rand::{Rng, SeedableRng};

/// Neighbour taps per cell (the 3x3 Moore patch, centre included).
pub const TAPS: usize = 9;
/// The centre tap.
pub const CENTRE: usize = 4;
/// Marks a neighbour outside a zero-boundary grid.
pub const OUTSIDE: u32 = u32::MAX;

/// What a cell sees beyond the edge of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Boundary {
    /// Every channel reads 0 outside.
    Zero,
    /// The grid wraps around.
    Periodic,
}

/// The architecture of a logic CA. Defaults are the checkerboard task of
/// docs/LOGIC_CA.md: 16x16, 8 channels, 16 kernels of layers 8, 4, 2, update
/// 264 -> 256 x 10 -> 128, 64, 32, 16, 8, 8, zero boundary, pass-through
/// logit 10.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogicCaConfig {
    /// Rows of the grid, at least 3 (default 16).
    pub height: usize,
    /// Columns of the grid, at least 3 (default 16).
    pub width: usize,
    /// Bits of state per cell; channel 0 is the one a task reads (default 8).
    pub channels: usize,
    /// Perception kernels, each with its own logits shared by every
    /// channel (default 16).
    pub kernels: usize,
    /// Gates per perception layer; the first must be 8 (the Moore wiring).
    pub perception: Vec<usize>,
    /// Gates per update layer; the last must equal `channels`.
    pub update: Vec<usize>,
    /// What cells at the edge see beyond it (default zero).
    pub boundary: Boundary,
    /// Initial logit of the pass-through op A (all others start at 0).
    pub pass_logit: f32,
}

impl Default for LogicCaConfig {
    fn default() -> Self {
        let mut update = vec![256; 10];
        update.extend([128, 64, 32, 16, 8, 8]);
        Self {
            height: 16,
            width: 16,
            channels: 8,
            kernels: 16,
            perception: vec![8, 4, 2],
            update,
            boundary: Boundary::Zero,
            pass_logit: 10.0,
        }
    }
}

impl LogicCaConfig {
    /// An error naming the first thing that cannot be built.
    pub fn validate(&self) -> Result<()> {
        if self.height < 3 || self.width < 3 {
            return Err(LogicError::GridTooSmall { height: self.height, width: self.width });
        }
        let count = |field, expected, found: usize| {
            LogicError::from(Check("LogicCaConfig").count(field, expected, found as u64))
        };
        if self.channels == 0 {
            return Err(count("channels", "at least 1", 0));
        }
        if self.kernels == 0 {
            return Err(count("kernels", "at least 1", 0));
        }
        if self.height.checked_mul(self.width).is_none_or(|c| c > u32::MAX as usize / 2) {
            return Err(count("height * width", "below 2^31 cells", usize::MAX));
        }
        if !self.pass_logit.is_finite() {
            return Err(Check("LogicCaConfig").value("pass_logit", "a finite number", self.pass_logit).into());
        }
        match self.perception.first() {
            Some(8) => {}
            other => {
                return Err(LogicError::LayerWidth {
                    layer: LayerName::new("perception", 0),
                    expected: "8 gates (centre against each neighbour)",
                    found: other.copied().unwrap_or(0),
                });
            }
        }
        for (i, w) in self.perception.windows(2).enumerate() {
            check_unique(LayerName::new("perception", i + 1), w[0], w[1])?;
        }
        if self.update.is_empty() {
            return Err(count("update", "at least one layer", 0));
        }
        let mut inputs = self.update_inputs();
        for (i, &w) in self.update.iter().enumerate() {
            check_unique(LayerName::new("update", i), inputs, w)?;
            inputs = w;
        }
        let last = *self.update.last().expect("checked non-empty");
        if last != self.channels {
            return Err(LogicError::LayerWidth {
                layer: LayerName::new("update", self.update.len() - 1),
                expected: "one gate per channel",
                found: last,
            });
        }
        Ok(())
    }

    /// Inputs of the update circuit: the cell's channels, then every
    /// perception output.
    pub fn update_inputs(&self) -> usize {
        let per_kernel = self.perception.last().copied().unwrap_or(0);
        self.channels + self.channels * self.kernels * per_kernel
    }

    /// Cells of the grid: `height * width`.
    pub fn cells(&self) -> usize {
        self.height * self.width
    }
}

fn check_unique(layer: LayerName, inputs: usize, outputs: usize) -> Result<()> {
    if outputs == 0 || inputs < 2 || 2 * outputs < inputs {
        return Err(LogicError::UniqueWiring { layer, inputs, outputs });
    }
    Ok(())
}

/// Gates writing consecutive rows from `out_start`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// The layer this stage runs.
    pub name: LayerName,
    /// The first row it writes.
    pub out_start: usize,
    /// Its gates, in row order (perception stages: every channel's copy).
    pub gates: Vec<Gate>,
}

impl Stage {
    /// The rows it writes.
    pub fn out_rows(&self) -> std::ops::Range<usize> {
        self.out_start..self.out_start + self.gates.len()
    }
}

/// One cell's circuit as rows (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Circuit {
    /// Bits of state per cell.
    pub channels: usize,
    /// Tap rows: `channels * 9`.
    pub taps: usize,
    /// Rows in all: taps, then every stage's outputs.
    pub rows: usize,
    /// The gate layers, in the order a forward pass runs them.
    pub stages: Vec<Stage>,
    /// First of the `channels` rows holding the next state.
    pub outputs: usize,
    /// Gates with their own logits (perception gates count once, not once
    /// per channel).
    pub params: usize,
}

impl Circuit {
    /// Builds the wiring of `config` (validated) from `rng`.
    fn build(config: &LogicCaConfig, rng: &mut rand_pcg::Pcg64) -> Result<(Self, Vec<LayerSpec>)> {
        let (c_n, k_n) = (config.channels, config.kernels);
        let taps = c_n * TAPS;
        let mut rows = taps;
        let mut params = 0;
        let mut stages = Vec::new();
        let mut param_shapes = Vec::new();
        let mut seed = || rand_pcg::Pcg64::seed_from_u64(rng.random());

        // Perception: the Moore layer, then unique layers, per channel.
        let mut prev: Option<(usize, usize)> = None; // (block start, width)
        for (l, &w) in config.perception.iter().enumerate() {
            let name = LayerName::new("perception", l);
            let wiring = match prev {
                None => Wiring::moore(&mut seed()),
                Some((_, prev_w)) => Wiring::unique(name, prev_w, w, &mut seed())?,
            };
            let mut gates = Vec::with_capacity(c_n * k_n * w);
            for c in 0..c_n {
                for k in 0..k_n {
                    for (j, (a, b)) in wiring.pairs().enumerate() {
                        let (a, b) = match prev {
                            None => (c * TAPS + a as usize, c * TAPS + b as usize),
                            Some((start, pw)) => {
                                let base = start + (c * k_n + k) * pw;
                                (base + a as usize, base + b as usize)
                            }
                        };
                        gates.push(gate(a, b, params + k * w + j));
                    }
                }
            }
            stages.push(Stage { name, out_start: rows, gates });
            prev = Some((rows, w));
            rows += c_n * k_n * w;
            params += k_n * w;
            param_shapes.push(LayerSpec { name, dims: vec![k_n, w, OPS], wiring });
        }

        // The update circuit's inputs as rows.
        let (p_start, s_n) = prev.expect("validated: perception is not empty");
        let mut input_rows: Vec<usize> = (0..c_n).map(|c| c * TAPS + CENTRE).collect();
        for i in 0..c_n * s_n * k_n {
            let (c, s, k) = (i / (s_n * k_n), (i / k_n) % s_n, i % k_n);
            input_rows.push(p_start + (c * k_n + k) * s_n + s);
        }
        let mut inputs = input_rows.len();
        for (l, &w) in config.update.iter().enumerate() {
            let name = LayerName::new("update", l);
            let wiring = Wiring::unique(name, inputs, w, &mut seed())?;
            let gates: Vec<Gate> = wiring
                .pairs()
                .enumerate()
                .map(|(j, (a, b))| {
                    if l == 0 {
                        gate(input_rows[a as usize], input_rows[b as usize], params + j)
                    } else {
                        let start = rows - inputs;
                        gate(start + a as usize, start + b as usize, params + j)
                    }
                })
                .collect();
            stages.push(Stage { name, out_start: rows, gates });
            rows += w;
            params += w;
            inputs = w;
            param_shapes.push(LayerSpec { name, dims: vec![w, OPS], wiring });
        }
        let circuit = Self { channels: c_n, taps, rows, stages, outputs: rows - c_n, params };
        Ok((circuit, param_shapes))
    }

    /// Runs the stages on `rows` (`[self.rows, lanes]`, taps filled in).
    pub fn forward(&self, rows: &mut [f32], lanes: usize, coeffs: &[[f32; 4]]) {
        for stage in &self.stages {
            let (x, rest) = rows.split_at_mut(stage.out_start * lanes);
            gate_forward(&mut rest[..stage.gates.len() * lanes], x, lanes, &stage.gates, coeffs);
        }
    }
}

/// A layer as built: its name, the dimensions of its logits, its wiring.
#[derive(Clone, Debug)]
struct LayerSpec {
    name: LayerName,
    dims: Vec<usize>,
    wiring: Wiring,
}

fn gate(a: usize, b: usize, param: usize) -> Gate {
    Gate { a: a as u32, b: b as u32, param: param as u32 }
}

/// A logic CA: its circuit, the neighbour table of its grid, and its
/// logits in a [`Params`] store (one parameter per layer:
/// `perception.l` is `[kernels, gates, 16]`, `update.l` is `[gates, 16]`).
#[derive(Clone, Debug)]
pub struct LogicCa {
    config: LogicCaConfig,
    circuit: Circuit,
    params: Params,
    layers: Vec<ParamId>,
    wirings: Vec<Wiring>,
    logit_offsets: Vec<usize>,
    neighbours: Vec<[u32; TAPS]>,
}

impl LogicCa {
    /// Builds the circuit with wiring drawn from `seed` and the logits
    /// initialised (pass-through A high).
    pub fn new(config: &LogicCaConfig, seed: u64) -> Result<Self> {
        config.validate()?;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let (circuit, specs) = Circuit::build(config, &mut rng)?;
        let mut params = Params::new();
        let mut layers = Vec::new();
        let mut wirings = Vec::new();
        let mut logit_offsets = Vec::with_capacity(circuit.params);
        let pass = config.pass_logit;
        for LayerSpec { name, dims, wiring } in specs {
            let id = params.add(&name.to_string(), &dims, |v| {
                for row in v.chunks_exact_mut(OPS) {
                    row[gates::PASS_A as usize] = pass;
                }
            })?;
            let start = params.range(id).start;
            let gates = params.shape(id).numel() / OPS;
            logit_offsets.extend((0..gates).map(|g| start + g * OPS));
            layers.push(id);
            wirings.push(wiring);
        }
        assert_eq!(logit_offsets.len(), circuit.params, "LogicCa::new: one logit row per parameter gate");
        let neighbours = neighbour_table(config.height, config.width, config.boundary);
        Ok(Self { config: config.clone(), circuit, params, layers, wirings, logit_offsets, neighbours })
    }

    /// The architecture it was built from.
    pub fn config(&self) -> &LogicCaConfig {
        &self.config
    }

    /// The circuit over rows that every cell runs.
    pub fn circuit(&self) -> &Circuit {
        &self.circuit
    }

    /// The gate logits, one parameter per layer ([`layers`](Self::layers)).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The gate logits, to train or restore.
    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// The parameter of each layer, perception layers first.
    pub fn layers(&self) -> &[ParamId] {
        &self.layers
    }

    /// The wiring of each layer, as [`layers`](Self::layers): indices into
    /// the layer's inputs (the 3x3 patch for the first perception layer,
    /// the update inputs in `(c s k)` order for the first update layer).
    pub fn wirings(&self) -> &[Wiring] {
        &self.wirings
    }

    /// Where parameter gate p's 16 logits start in the flat value buffer.
    pub fn logit_offsets(&self) -> &[usize] {
        &self.logit_offsets
    }

    /// Neighbour cell of each cell and tap ([`OUTSIDE`] beyond a zero edge).
    pub fn neighbours(&self) -> &[[u32; TAPS]] {
        &self.neighbours
    }

    /// The logits of parameter gate p.
    pub fn logits(&self, p: usize) -> &[f32] {
        &self.params.values()[self.logit_offsets[p]..][..OPS]
    }

    /// Folds every parameter gate's logits into probabilities
    /// (`[params, 16]`) and coefficients (`[params]`).
    #[track_caller]
    pub fn fold(&self, probs: &mut [f32], coeffs: &mut [[f32; 4]]) {
        self.fold_perturbed(probs, coeffs, |_| {});
    }

    /// [`fold`](Self::fold) of logits that `perturb` edits first (a copy
    /// of each gate's 16, in parameter-gate order): noisy logits for
    /// training. The gradient of [`write_logit_grads`](Self::write_logit_grads)
    /// is then that of the perturbed circuit, an additive perturbation
    /// having derivative 1.
    #[track_caller]
    pub fn fold_perturbed(&self, probs: &mut [f32], coeffs: &mut [[f32; 4]], mut perturb: impl FnMut(&mut [f32; OPS])) {
        assert!(
            probs.len() == self.circuit.params * OPS && coeffs.len() == self.circuit.params,
            "LogicCa::fold: expected probs [{}, 16] and {} coefficient quads, found {} and {}",
            self.circuit.params,
            self.circuit.params,
            probs.len(),
            coeffs.len()
        );
        for (p, (probs, c)) in probs.chunks_exact_mut(OPS).zip(coeffs.iter_mut()).enumerate() {
            let mut logits = [0.0; OPS];
            logits.copy_from_slice(self.logits(p));
            perturb(&mut logits);
            *c = gates::fold(&logits, probs);
        }
    }

    /// The hard op (argmax) of every parameter gate: `ops` holds
    /// `circuit().params` entries (any more stay as they are).
    pub fn hard_ops(&self, ops: &mut [u8]) {
        for (p, op) in ops.iter_mut().enumerate() {
            *op = gates::argmax(self.logits(p));
        }
    }

    /// The hard circuit of the current logits (each gate its argmax op)
    /// on the CA's own boundary, in one call: the long way is
    /// [`hard_ops`](Self::hard_ops) into a slice of `circuit().params`
    /// ops, then [`HardProgram::new`] with the circuit and
    /// `config().boundary`.
    pub fn hard_program(&self, prune: Prune) -> HardProgram {
        let mut ops = vec![0; self.circuit.params];
        self.hard_ops(&mut ops);
        HardProgram::new(&self.circuit, &ops, self.config.boundary, prune)
    }

    /// Writes dL/dlogits into the gradient buffer (overwriting it) from
    /// the probabilities of [`fold`](Self::fold) and the per-gate sums.
    pub fn write_logit_grads(&mut self, probs: &[f32], sums: &[[f32; 4]]) {
        let grads = self.params.grads_mut();
        for (p, &offset) in self.logit_offsets.iter().enumerate() {
            gates::logit_grads(&probs[p * OPS..][..OPS], sums[p], &mut grads[offset..offset + OPS]);
        }
    }

    /// One synchronous step of the hard circuit, in floats: `state` and
    /// `next` are `[channels, height * width]` of 0/1 values. The
    /// bit-parallel circuit must agree with this exactly.
    #[track_caller]
    pub fn hard_step(&self, state: &[f32], next: &mut [f32]) -> Result<()> {
        let cells = self.config.cells();
        let n = self.config.channels * cells;
        for (what, len) in [("hard_step state", state.len()), ("hard_step next", next.len())] {
            if len != n {
                return Err(LogicError::DataLength { what, expected: n, found: len });
            }
        }
        let mut ops = vec![0u8; self.circuit.params];
        self.hard_ops(&mut ops);
        let coeffs: Vec<[f32; 4]> = ops.iter().map(|&op| gates::COEFFS[op as usize]).collect();
        let mut rows = vec![0.0f32; self.circuit.rows * cells];
        fill_taps(&mut rows, cells, state, cells, &self.neighbours, 0, cells);
        self.circuit.forward(&mut rows, cells, &coeffs);
        for c in 0..self.config.channels {
            let out = &rows[(self.circuit.outputs + c) * cells..][..cells];
            next[c * cells..(c + 1) * cells].copy_from_slice(out);
        }
        Ok(())
    }
}

/// Neighbour of each cell for each tap.
pub fn neighbour_table(height: usize, width: usize, boundary: Boundary) -> Vec<[u32; TAPS]> {
    let mut table = Vec::with_capacity(height * width);
    for r in 0..height as isize {
        for c in 0..width as isize {
            table.push(std::array::from_fn(|d| {
                let (rr, cc) = (r + d as isize / 3 - 1, c + d as isize % 3 - 1);
                match boundary {
                    Boundary::Zero => {
                        if rr < 0 || cc < 0 || rr >= height as isize || cc >= width as isize {
                            OUTSIDE
                        } else {
                            (rr as usize * width + cc as usize) as u32
                        }
                    }
                    Boundary::Periodic => {
                        let rr = rr.rem_euclid(height as isize) as usize;
                        let cc = cc.rem_euclid(width as isize) as usize;
                        (rr * width + cc) as u32
                    }
                }
            }));
        }
    }
    table
}

/// Fills the tap rows (`[channels * 9, lanes]` at the start of `rows`) for
/// cells `first..first + count` from `state` (`[channels, stride]`); lanes
/// beyond `count` read 0.
#[inline]
pub(crate) fn fill_taps(
    rows: &mut [f32],
    lanes: usize,
    state: &[f32],
    stride: usize,
    neighbours: &[[u32; TAPS]],
    first: usize,
    count: usize,
) {
    let channels = state.len() / stride;
    for c in 0..channels {
        let plane = &state[c * stride..][..stride];
        for d in 0..TAPS {
            let row = &mut rows[(c * TAPS + d) * lanes..][..lanes];
            for (l, v) in row[..count].iter_mut().enumerate() {
                let n = neighbours[first + l][d];
                *v = if n == OUTSIDE { 0.0 } else { plane[n as usize] };
            }
            row[count..].fill(0.0);
        }
    }
}

/// Adds the tap-row gradients of cells `first..first + count` into the
/// state gradient `dstate` (`[channels, stride]`) at the neighbours they
/// read (rows not `written` hold no gradient).
#[inline]
pub(crate) fn scatter_taps(
    dstate: &mut [f32],
    stride: usize,
    grads: &[f32],
    written: &[bool],
    lanes: usize,
    neighbours: &[[u32; TAPS]],
    first: usize,
    count: usize,
) {
    let channels = dstate.len() / stride;
    for c in 0..channels {
        let plane = &mut dstate[c * stride..][..stride];
        for d in 0..TAPS {
            if !written[c * TAPS + d] {
                continue;
            }
            let row = &grads[(c * TAPS + d) * lanes..][..lanes];
            for (l, &g) in row[..count].iter().enumerate() {
                let n = neighbours[first + l][d];
                if n != OUTSIDE {
                    plane[n as usize] += g;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_has_the_reference_size() {
        let ca = LogicCa::new(&LogicCaConfig::default(), 23).unwrap();
        let c = ca.circuit();
        assert_eq!(c.params, 3040);
        assert_eq!(ca.params().numel(), 48_640);
        // Gate evaluations per cell and CA step: 1,792 perception + 2,816 update.
        let evals: usize = c.stages.iter().map(|s| s.gates.len()).sum();
        assert_eq!(evals, 4608);
        assert_eq!(c.rows, 72 + 4608);
        assert_eq!(c.stages.len(), 3 + 16);
        assert_eq!(ca.config().update_inputs(), 264);
    }

    #[test]
    fn update_inputs_follow_the_c_s_k_order() {
        let config = LogicCaConfig::default();
        let ca = LogicCa::new(&config, 1).unwrap();
        let c = ca.circuit();
        let p3 = &c.stages[2];
        let first_update = &c.stages[3];
        // Every perception output and every centre tap is read by the first
        // update layer (264 inputs, 256 gates, unique wiring).
        let mut read = std::collections::BTreeSet::new();
        for g in &first_update.gates {
            read.insert(g.a as usize);
            read.insert(g.b as usize);
        }
        assert!(p3.out_rows().all(|r| read.contains(&r)));
        assert!((0..8).all(|ch| read.contains(&(ch * TAPS + CENTRE))));
        assert_eq!(read.len(), 264);
        // Perception output (c, k, s) lives at row p3 + (c*K + k)*2 + s and
        // uses the logits of kernel k.
        for (i, g) in p3.gates.iter().enumerate() {
            let (ck, s) = (i / 2, i % 2);
            let k = ck % 16;
            assert_eq!(g.param as usize, 16 * 8 + 16 * 4 + k * 2 + s);
        }
    }

    #[test]
    fn bad_configs_are_errors() {
        let small = LogicCaConfig { height: 2, ..LogicCaConfig::default() };
        assert!(matches!(small.validate(), Err(LogicError::GridTooSmall { height: 2, width: 16 })));
        let mut narrow = LogicCaConfig::default();
        narrow.update[3] = 100; // 256 -> 100 cannot read all 256 inputs
        let e = narrow.validate().unwrap_err();
        let layer = LayerName::new("update", 3);
        assert!(matches!(e, LogicError::UniqueWiring { layer: l, inputs: 256, outputs: 100 } if l == layer), "{e:?}");
        let wrong_out = LogicCaConfig { channels: 4, ..LogicCaConfig::default() };
        assert!(matches!(wrong_out.validate(), Err(LogicError::LayerWidth { .. })));
        let first = LogicCaConfig { perception: vec![6, 3], ..LogicCaConfig::default() };
        assert!(matches!(first.validate(), Err(LogicError::LayerWidth { .. })));
        assert!(LogicCa::new(&small, 0).is_err());
    }

    #[test]
    fn neighbours_respect_the_boundary() {
        let zero = neighbour_table(3, 4, Boundary::Zero);
        assert_eq!(zero[0], [OUTSIDE, OUTSIDE, OUTSIDE, OUTSIDE, 0, 1, OUTSIDE, 4, 5]);
        assert_eq!(zero[5], [0, 1, 2, 4, 5, 6, 8, 9, 10]);
        let wrap = neighbour_table(3, 4, Boundary::Periodic);
        assert_eq!(wrap[0], [11, 8, 9, 3, 0, 1, 7, 4, 5]);
    }
}
