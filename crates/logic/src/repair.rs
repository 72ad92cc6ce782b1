//! Discrete repair of a hard circuit: a local search over gate ops, scored
//! by the hard circuit itself.
//!
//! Trained soft, a circuit can solve its task as a mixture of ops while
//! its argmax circuit gets a few per cent of the cells wrong; once the soft
//! loss is near 0 the gradients vanish and nothing closes that gap. The
//! hard circuit is cheap to run bit-parallel, so the gap can be closed on
//! the hard side: try other ops for the gates channel 0 reads, the
//! alternatives the logits rank closest to the argmax first, and keep a
//! change only if the hard circuit then gets strictly fewer cells wrong on
//! a fixed set of grids. A repair never makes the circuit worse on its set.
//!
//! A circuit right on every grid of its training size can still fail on
//! larger grids or after damage, which the keeper checks. A repair can
//! carry a second set of such grids ([`Repair::then`]): once the circuit
//! gets its first set right, the search goes on, keeping a change only if
//! the first set stays right and the second gets strictly fewer cells
//! wrong.

use crate::ca::{Boundary, Circuit, LogicCa};
use crate::gates::{OPS, argmax};
use crate::hard::{BitGrid, HardProgram, HardScratch, Prune, TILE, mark_live};

/// The grids a repair scores circuits on: start states, the channel-0
/// target of each, and, for asynchronous updates, each grid's fire mask
/// of every step.
#[derive(Clone, Debug)]
pub struct RepairSet {
    starts: Vec<BitGrid>,
    /// One channel each: what channel 0 should be after `steps` steps.
    targets: Vec<BitGrid>,
    /// `steps` masks per grid (grid-major), or none (synchronous).
    fires: Vec<BitGrid>,
    steps: usize,
    damage: Option<Damage>,
}

/// Cells zeroed in every channel after each of the first `steps` steps.
#[derive(Clone, Debug)]
struct Damage {
    /// One channel, a grid's size.
    mask: BitGrid,
    steps: usize,
}

impl RepairSet {
    /// A set of `(start, target)` pairs run for `steps` steps, with
    /// `fires` (`steps` one-channel masks per grid, grid-major) for
    /// asynchronous updates or empty.
    #[track_caller]
    pub fn new(starts: Vec<BitGrid>, targets: Vec<BitGrid>, fires: Vec<BitGrid>, steps: usize) -> Self {
        assert!(
            !starts.is_empty() && starts.len() == targets.len(),
            "RepairSet::new: expected one target per start grid and at least one grid, found {} and {}",
            starts.len(),
            targets.len()
        );
        assert!(
            fires.is_empty() || fires.len() == starts.len() * steps,
            "RepairSet::new: expected {} fire masks (steps per grid) or none, found {}",
            starts.len() * steps,
            fires.len()
        );
        Self { starts, targets, fires, steps, damage: None }
    }

    /// The set with the cells of `mask` (one channel, a grid's size)
    /// zeroed in every channel after each of the first `steps` steps, as
    /// the damage check does.
    #[track_caller]
    pub fn damaged(self, mask: BitGrid, steps: usize) -> Self {
        let first = &self.starts[0];
        assert!(
            (mask.height(), mask.width(), mask.channels()) == (first.height(), first.width(), 1),
            "RepairSet::damaged: expected a {}x{}x1 mask, found {}x{}x{}",
            first.height(),
            first.width(),
            mask.height(),
            mask.width(),
            mask.channels()
        );
        Self { damage: Some(Damage { mask, steps }), ..self }
    }

    /// Channel-0 cells over every grid of the set.
    pub fn cells(&self) -> usize {
        self.targets.iter().map(|t| t.height() * t.width()).sum()
    }
}

/// What a repair did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepairOutcome {
    /// Channel-0 cells wrong on the set before and after.
    pub errors_before: usize,
    /// Channel-0 cells wrong on the set after the repair.
    pub errors_after: usize,
    /// Channel-0 cells wrong on the second set ([`Repair::then`]) before
    /// and after its search, if the circuit got the first set right.
    pub then_before: Option<usize>,
    /// Channel-0 cells wrong on the second set after its search.
    pub then_after: Option<usize>,
    /// Gates whose op changed.
    pub changes: usize,
    /// Candidate circuits scored.
    pub evaluations: usize,
}

/// A [`RepairSet`] as the search runs it: with the zero boundary, as many
/// grids per tiled [`BitGrid`] as fill one tile of the bit-parallel step
/// (sixteen 16x16 grids), so a circuit is scored on several grids for the
/// cost of one.
#[derive(Clone, Debug)]
struct Packed {
    starts: Vec<BitGrid>,
    targets: Vec<BitGrid>,
    /// One channel each: the cells of blocks that hold a grid of the set.
    used: Vec<BitGrid>,
    /// `steps` masks per packed grid, or none.
    fires: Vec<BitGrid>,
    /// The damage mask of each packed grid (every block's), or none.
    damage: Vec<BitGrid>,
    damage_steps: usize,
}

impl Packed {
    fn new(set: &RepairSet, boundary: Boundary) -> Self {
        let first = &set.starts[0];
        let (h, w, channels) = (first.height(), first.width(), first.channels());
        let n = set.starts.len();
        let (mut across, mut down) = match boundary {
            Boundary::Zero => {
                let across = (64 / w).max(1);
                (across, (TILE / (h * (across * w).div_ceil(64))).max(1))
            }
            Boundary::Periodic => (1, 1),
        };
        if n < across * down {
            across = across.min(n);
            down = n.div_ceil(across);
        }
        let per = across * down;
        let mut packed = Self {
            starts: Vec::new(),
            targets: Vec::new(),
            used: Vec::new(),
            fires: Vec::new(),
            damage: Vec::new(),
            damage_steps: set.damage.as_ref().map_or(0, |d| d.steps),
        };
        for first in (0..n).step_by(per) {
            let grids = first..(first + per).min(n);
            let (mut start, mut target) =
                (BitGrid::tiled(h, w, down, across, channels), BitGrid::tiled(h, w, down, across, 1));
            let mut used = target.clone();
            for (b, g) in grids.clone().enumerate() {
                start.put_block(b, &set.starts[g]);
                target.put_block(b, &set.targets[g]);
                used.fill_block(b, true);
            }
            if !set.fires.is_empty() {
                for t in 0..set.steps {
                    let mut fire = BitGrid::tiled(h, w, down, across, 1);
                    for (b, g) in grids.clone().enumerate() {
                        fire.put_block(b, &set.fires[g * set.steps + t]);
                    }
                    packed.fires.push(fire);
                }
            }
            if let Some(damage) = &set.damage {
                let mut mask = BitGrid::tiled(h, w, down, across, 1);
                for b in 0..grids.len() {
                    mask.put_block(b, &damage.mask);
                }
                packed.damage.push(mask);
            }
            packed.starts.push(start);
            packed.targets.push(target);
            packed.used.push(used);
        }
        packed
    }

    /// Channel-0 cells `program` gets wrong on the packed grids after
    /// `steps` steps, counted until `limit` (a count at `limit` means "at
    /// least"); `grid` and `next` are buffers of a packed grid's shape.
    fn errors(
        &self,
        program: &HardProgram,
        steps: usize,
        limit: usize,
        (grid, next, scratch): (&mut BitGrid, &mut BitGrid, &mut HardScratch),
    ) -> usize {
        let mut errors = 0;
        for (g, (start, (target, used))) in self.starts.iter().zip(self.targets.iter().zip(&self.used)).enumerate() {
            grid.copy_from(start);
            for t in 0..steps {
                program.step(grid, next, scratch);
                if !self.fires.is_empty() {
                    next.keep_unfired(grid, &self.fires[g * steps + t]);
                }
                if t < self.damage_steps {
                    next.clear_where(&self.damage[g]);
                }
                std::mem::swap(grid, next);
            }
            errors += grid
                .plane(0)
                .iter()
                .zip(target.plane(0))
                .zip(used.plane(0))
                .map(|((a, b), u)| ((a ^ b) & u).count_ones() as usize)
                .sum::<usize>();
            if errors >= limit {
                return limit;
            }
        }
        errors
    }
}

/// A set as the search scores it, with buffers of its packed shape.
#[derive(Clone, Debug)]
struct Scored {
    set: RepairSet,
    packed: Packed,
    grid: BitGrid,
    next: BitGrid,
    scratch: HardScratch,
}

impl Scored {
    fn new(set: RepairSet, circuit: &Circuit, boundary: Boundary) -> Self {
        let packed = Packed::new(&set, boundary);
        let grid = packed.starts[0].clone();
        Self { packed, next: grid.clone(), grid, scratch: HardScratch::with_slots(circuit.rows), set }
    }

    fn errors(&mut self, program: &HardProgram, limit: usize) -> usize {
        let buffers = (&mut self.grid, &mut self.next, &mut self.scratch);
        self.packed.errors(program, self.set.steps, limit, buffers)
    }
}

/// The search state: the set and every buffer a repair needs, so a repair
/// after the first allocates nothing.
#[derive(Clone, Debug)]
pub struct Repair {
    first: Scored,
    /// The second set and its budget of candidates ([`Repair::then`]).
    then: Option<(Scored, usize)>,
    boundary: Boundary,
    program: HardProgram,
    ops: Vec<u8>,
    live_rows: Vec<bool>,
    live_params: Vec<bool>,
    live_channels: Vec<bool>,
    /// (margin of the op's logit below the gate's largest, gate, op).
    candidates: Vec<(f32, u32, u8)>,
}

impl Repair {
    /// A repair of circuits like `circuit` on `set`.
    pub fn new(set: RepairSet, circuit: &Circuit, boundary: Boundary) -> Self {
        Self {
            first: Scored::new(set, circuit, boundary),
            then: None,
            boundary,
            // Built unpruned first, the largest it can be, so later rebuilds
            // reuse its capacity.
            program: HardProgram::new(circuit, &vec![crate::gates::PASS_A; circuit.params], boundary, Prune::None),
            ops: vec![0; circuit.params],
            live_rows: vec![false; circuit.rows],
            live_params: vec![false; circuit.params],
            live_channels: vec![false; circuit.channels],
            candidates: Vec::with_capacity(circuit.params * (OPS - 1)),
        }
    }

    /// The repair with a second set, searched with up to `evaluations`
    /// more candidates once a circuit gets every cell of the first set
    /// right: a change is kept only if the first set stays right and the
    /// second gets strictly fewer cells wrong.
    pub fn then(self, set: RepairSet, circuit: &Circuit, evaluations: usize) -> Self {
        let then = Some((Scored::new(set, circuit, self.boundary), evaluations));
        Self { then, ..self }
    }

    /// The set circuits are scored on.
    pub fn set(&self) -> &RepairSet {
        &self.first.set
    }

    /// The ops of the last repair's result.
    pub fn ops(&self) -> &[u8] {
        &self.ops
    }

    /// Channel-0 cells the circuit `ops` gets wrong on the set.
    pub fn errors(&mut self, circuit: &Circuit, ops: &[u8]) -> usize {
        self.program.rebuild(circuit, ops, self.boundary, Prune::Channel0);
        self.first.errors(&self.program, usize::MAX)
    }

    /// Channel-0 cells the circuit `ops` gets wrong on the second set
    /// (none without one).
    pub fn then_errors(&mut self, circuit: &Circuit, ops: &[u8]) -> Option<usize> {
        self.program.rebuild(circuit, ops, self.boundary, Prune::Channel0);
        self.then.as_mut().map(|(then, _)| then.errors(&self.program, usize::MAX))
    }

    /// Hill-climbs from `ca`'s argmax circuit: for each candidate (gate,
    /// op), closest logit first, over the gates channel 0 currently
    /// reads, keeps the change if the circuit then gets strictly fewer
    /// cells wrong; passes over the candidates until a pass changes
    /// nothing, no cell is wrong, or `max_evaluations` circuits have been
    /// scored; then, if no cell is wrong and there is a second set
    /// ([`then`](Self::then)), the same search on it. The result is in
    /// [`ops`](Self::ops).
    pub fn run(&mut self, ca: &LogicCa, max_evaluations: usize) -> RepairOutcome {
        let circuit = ca.circuit();
        ca.hard_ops(&mut self.ops);
        self.candidates.clear();
        for p in 0..circuit.params {
            let logits = ca.logits(p);
            let top = logits[argmax(logits) as usize];
            for (op, &l) in logits.iter().enumerate() {
                if op != self.ops[p] as usize {
                    self.candidates.push((top - l, p as u32, op as u8));
                }
            }
        }
        // Ties (equal margins) by gate then op, so the order is the same
        // on every machine.
        self.candidates.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
        self.program.rebuild(circuit, &self.ops, self.boundary, Prune::Channel0);
        let errors_before = self.first.errors(&self.program, usize::MAX);
        let mut evaluations = 0;
        let errors_after = self.climb(circuit, errors_before, max_evaluations, &mut evaluations, false);
        let (mut then_before, mut then_after) = (None, None);
        if let Some((_, budget)) = self.then
            && errors_after == 0
        {
            self.program.rebuild(circuit, &self.ops, self.boundary, Prune::Channel0);
            let before = self.then.as_mut().map_or(0, |(then, _)| then.errors(&self.program, usize::MAX));
            then_before = Some(before);
            then_after = Some(self.climb(circuit, before, evaluations + budget, &mut evaluations, true));
        }
        // A gate changed twice counts once.
        let mut changes = 0;
        for p in 0..circuit.params {
            changes += (self.ops[p] != argmax(ca.logits(p))) as usize;
        }
        RepairOutcome { errors_before, errors_after, then_before, then_after, changes, evaluations }
    }

    /// Passes over the candidates from the current ops, keeping a change
    /// if it gets strictly fewer cells wrong than `best` (on the first set,
    /// or with `then` on the second while the first stays right), until a
    /// pass changes nothing, no cell is wrong or `evaluations` reaches
    /// `max`; returns the cells still wrong.
    fn climb(&mut self, circuit: &Circuit, mut best: usize, max: usize, evaluations: &mut usize, then: bool) -> usize {
        self.mark_live(circuit);
        'passes: loop {
            let mut improved = false;
            for i in 0..self.candidates.len() {
                if best == 0 || *evaluations >= max {
                    break 'passes;
                }
                let (_, p, op) = self.candidates[i];
                let p = p as usize;
                let old = self.ops[p];
                if op == old || !self.live_params[p] {
                    continue;
                }
                self.ops[p] = op;
                self.program.rebuild(circuit, &self.ops, self.boundary, Prune::Channel0);
                *evaluations += 1;
                let errors = match &mut self.then {
                    Some((second, _)) if then => {
                        if self.first.errors(&self.program, 1) > 0 {
                            best
                        } else {
                            second.errors(&self.program, best)
                        }
                    }
                    _ => self.first.errors(&self.program, best),
                };
                if errors < best {
                    best = errors;
                    improved = true;
                    self.mark_live(circuit);
                } else {
                    self.ops[p] = old;
                }
            }
            if !improved {
                break;
            }
        }
        best
    }

    /// The gates whose output channel 0 reads (over any number of steps)
    /// under the current ops: a gate reads only the inputs its op depends
    /// on; a perception gate counts if any channel's copy is read.
    fn mark_live(&mut self, circuit: &Circuit) {
        mark_live(circuit, &self.ops, &mut self.live_rows, &mut self.live_channels);
        self.live_params.fill(false);
        for stage in &circuit.stages {
            for (j, g) in stage.gates.iter().enumerate() {
                self.live_params[g.param as usize] |= self.live_rows[stage.out_start + j];
            }
        }
    }
}

/// How far above every other logit [`write_op`] puts a changed gate's
/// new op: enough that the soft gate is mostly the new op (e^3 = 20 times
/// the next one's weight), so the next updates do not simply undo it.
pub const WRITE_MARGIN: f32 = 3.0;

/// Makes op `op` gate p's argmax in `ca`: if it is not already, its logit
/// is set [`WRITE_MARGIN`] above the largest.
pub fn write_op(ca: &mut LogicCa, p: usize, op: u8) {
    let offset = ca.logit_offsets()[p];
    let logits = &mut ca.params_mut().values_mut()[offset..offset + OPS];
    let top = argmax(logits) as usize;
    if top != op as usize {
        logits[op as usize] = logits[top] + WRITE_MARGIN;
    }
}
