//! The circuit compiler: a soft circuit with its argmax ops becomes a
//! [`HardProgram`], exactly or pruned to what channel 0 depends on.

use super::live::wake_tap_channels;
use crate::ca::{Boundary, Circuit, TAPS};
use crate::gates::{self, op_bit};

/// Where a program output comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// A slot, negated or not.
    Slot {
        /// The slot (a tap or an instruction's result).
        slot: u32,
        /// Whether the output is the slot's complement.
        negated: bool,
    },
    /// A constant: the channel is 0 (or 1) after every step.
    Const(bool),
    /// Not computed: channel 0 does not depend on this channel.
    Dead,
}

/// One bitwise gate: `slot = op(slots[a], slots[b])`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    /// The op, an index into [`gates::OP_NAMES`] (0..16).
    pub op: u8,
    /// The slot of the first input (always below this instruction's).
    pub a: u32,
    /// The slot of the second input.
    pub b: u32,
}

/// How much to simplify when building a [`HardProgram`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prune {
    /// Every gate and channel, exactly as the circuit is wired.
    None,
    /// Only what channel 0 depends on, simplified.
    Channel0,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Tap,
    Gate { op: u8, a: u32, b: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Const(bool),
    Lit { var: u32, neg: bool },
}

/// A hard circuit as straight-line bitwise code: slots `0..taps.len()`
/// are the live taps (channel, tap), then one slot per instruction; the
/// outputs are the next state's channels.
#[derive(Clone, Debug, Default)]
pub struct HardProgram {
    pub(super) channels: usize,
    pub(super) periodic: bool,
    pub(super) taps: Vec<(u16, u8)>,
    pub(super) instrs: Vec<Instr>,
    pub(super) outputs: Vec<Output>,
    // Build scratch, kept so a rebuild allocates nothing.
    vals: Vec<Val>,
    nodes: Vec<Node>,
    live: Vec<bool>,
    slot_of: Vec<u32>,
    table: Vec<u32>,
    live_channels: Vec<bool>,
}

impl HardProgram {
    /// The program of `circuit` with parameter gate p fixed to `ops[p]`,
    /// on a grid with `boundary`. `ops` holds one op per parameter gate,
    /// `circuit.params` of them in the order of the logits (a perception
    /// gate, shared by every channel, counts once), each an index into
    /// [`gates::OP_NAMES`] (0..16): what [`LogicCa::hard_ops`] fills.
    /// Panics on another length. From a trained CA or trainer,
    /// [`LogicCa::hard_program`], [`PatternTrainer::hard_program`] and
    /// [`Trained::hard_program`] build it in one call.
    ///
    /// [`LogicCa::hard_ops`]: crate::LogicCa::hard_ops
    /// [`LogicCa::hard_program`]: crate::LogicCa::hard_program
    /// [`PatternTrainer::hard_program`]: crate::PatternTrainer::hard_program
    /// [`Trained::hard_program`]: crate::Trained::hard_program
    #[track_caller]
    pub fn new(circuit: &Circuit, ops: &[u8], boundary: Boundary, prune: Prune) -> Self {
        let mut program = Self::default();
        program.rebuild(circuit, ops, boundary, prune);
        program
    }

    /// Rebuilds in place (`ops` as for [`new`](Self::new)); allocates
    /// nothing once it has been built for a circuit of this size.
    #[track_caller]
    pub fn rebuild(&mut self, circuit: &Circuit, ops: &[u8], boundary: Boundary, prune: Prune) {
        assert_eq!(ops.len(), circuit.params, "HardProgram::rebuild: expected one op per parameter gate");
        self.channels = circuit.channels;
        self.periodic = boundary == Boundary::Periodic;
        self.vals.clear();
        self.nodes.clear();
        self.taps.clear();
        self.instrs.clear();
        self.outputs.clear();
        let table_len = (2 * circuit.rows).next_power_of_two();
        self.table.clear();
        self.table.resize(table_len, u32::MAX);
        for r in 0..circuit.taps {
            self.nodes.push(Node::Tap);
            self.vals.push(Val::Lit { var: r as u32, neg: false });
        }
        for stage in &circuit.stages {
            for g in &stage.gates {
                let op = ops[g.param as usize];
                let (a, b) = (self.vals[g.a as usize], self.vals[g.b as usize]);
                let v = match prune {
                    Prune::None => {
                        let (Val::Lit { var: a, .. }, Val::Lit { var: b, .. }) = (a, b) else {
                            unreachable!("unpruned values are plain rows")
                        };
                        self.nodes.push(Node::Gate { op, a, b });
                        Val::Lit { var: self.nodes.len() as u32 - 1, neg: false }
                    }
                    Prune::Channel0 => self.simplify(op, a, b),
                };
                self.vals.push(v);
            }
        }
        // Liveness, with the channels channel 0 depends on found as a fixed point.
        self.live_channels.clear();
        self.live_channels.resize(circuit.channels, prune == Prune::None);
        self.live_channels[0] = true;
        loop {
            self.live.clear();
            self.live.resize(self.nodes.len(), prune == Prune::None);
            for c in 0..circuit.channels {
                if let (true, Val::Lit { var, .. }) = (self.live_channels[c], self.vals[circuit.outputs + c]) {
                    self.live[var as usize] = true;
                }
            }
            for v in (0..self.nodes.len()).rev() {
                if let (true, Node::Gate { a, b, .. }) = (self.live[v], self.nodes[v]) {
                    self.live[a as usize] = true;
                    self.live[b as usize] = true;
                }
            }
            if !wake_tap_channels(&self.live[..circuit.taps], &mut self.live_channels) {
                break;
            }
        }
        // Emit: live taps, then live gates in order.
        self.slot_of.clear();
        self.slot_of.resize(self.nodes.len(), u32::MAX);
        let mut slot = 0u32;
        for t in 0..circuit.taps {
            if self.live[t] {
                self.taps.push(((t / TAPS) as u16, (t % TAPS) as u8));
                self.slot_of[t] = slot;
                slot += 1;
            }
        }
        for v in circuit.taps..self.nodes.len() {
            if let (true, Node::Gate { op, a, b }) = (self.live[v], self.nodes[v]) {
                self.instrs.push(Instr { op, a: self.slot_of[a as usize], b: self.slot_of[b as usize] });
                self.slot_of[v] = slot;
                slot += 1;
            }
        }
        for c in 0..circuit.channels {
            let out = if !self.live_channels[c] {
                Output::Dead
            } else {
                match self.vals[circuit.outputs + c] {
                    Val::Const(x) => Output::Const(x),
                    Val::Lit { var, neg } => Output::Slot { slot: self.slot_of[var as usize], negated: neg },
                }
            };
            self.outputs.push(out);
        }
    }

    /// The value of gate `op(a, b)` with constants folded, negations folded
    /// into the op, wires for ops that read one input, and equal gates
    /// shared. Gates kept have op(0, 0) = 0 (a negated output is carried
    /// by the literal instead) and their inputs in increasing order.
    fn simplify(&mut self, op: u8, a: Val, b: Val) -> Val {
        let unary = |f0: bool, f1: bool, var: u32| -> Val {
            match (f0, f1) {
                (x, y) if x == y => Val::Const(x),
                (false, true) => Val::Lit { var, neg: false },
                _ => Val::Lit { var, neg: true },
            }
        };
        match (a, b) {
            (Val::Const(x), Val::Const(y)) => Val::Const(op_bit(op, x, y)),
            (Val::Const(x), Val::Lit { var, neg }) => unary(op_bit(op, x, neg), op_bit(op, x, !neg), var),
            (Val::Lit { var, neg }, Val::Const(y)) => unary(op_bit(op, neg, y), op_bit(op, !neg, y), var),
            (Val::Lit { var: va, neg: na }, Val::Lit { var: vb, neg: nb }) => {
                if va == vb {
                    return unary(op_bit(op, na, nb), op_bit(op, !na, !nb), va);
                }
                let mut op = op;
                if na {
                    op = gates::negate_a(op);
                }
                if nb {
                    op = gates::negate_b(op);
                }
                match gates::reads(op) {
                    (false, false) => return Val::Const(op_bit(op, false, false)),
                    (true, false) => return unary(op_bit(op, false, false), op_bit(op, true, false), va),
                    (false, true) => return unary(op_bit(op, false, false), op_bit(op, false, true), vb),
                    (true, true) => {}
                }
                let (mut va, mut vb) = (va, vb);
                if va > vb {
                    op = gates::swap_inputs(op);
                    std::mem::swap(&mut va, &mut vb);
                }
                let neg = op_bit(op, false, false);
                if neg {
                    op = gates::negate_output(op);
                }
                let var = self.intern(op, va, vb);
                Val::Lit { var, neg }
            }
        }
    }

    /// The node of gate (op, a, b), made if new (open addressing).
    fn intern(&mut self, op: u8, a: u32, b: u32) -> u32 {
        let mask = self.table.len() - 1;
        let key = Node::Gate { op, a, b };
        let hash =
            (a as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (b as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f) ^ op as u64;
        let mut i = (hash ^ (hash >> 29)) as usize & mask;
        loop {
            match self.table[i] {
                u32::MAX => {
                    self.nodes.push(key);
                    let var = self.nodes.len() as u32 - 1;
                    self.table[i] = var;
                    return var;
                }
                v if self.nodes[v as usize] == key => return v,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Channels of the grids it steps.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// The live taps as (channel, tap).
    pub fn taps(&self) -> &[(u16, u8)] {
        &self.taps
    }

    /// The gates, in the order they run; instruction i writes slot
    /// `taps().len() + i`.
    pub fn instrs(&self) -> &[Instr] {
        &self.instrs
    }

    /// Where each channel of the next state comes from.
    pub fn outputs(&self) -> &[Output] {
        &self.outputs
    }

    /// The boundary the taps assume.
    pub fn boundary(&self) -> Boundary {
        if self.periodic { Boundary::Periodic } else { Boundary::Zero }
    }

    /// Gates left after pruning (bitwise instructions per cell update,
    /// not counting output negations).
    pub fn gate_count(&self) -> usize {
        self.instrs.len()
    }
}
