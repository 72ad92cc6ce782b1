//! The tape and the graph that records onto it.
//!
//! A [`Tape`] is reusable memory: a flat arena for values, gradients and
//! saved tensors, a list of nodes and a list of recorded ops, all cleared
//! (never dropped) at the start of each step. A [`Graph`] borrows a tape and
//! a [`Params`] store for one step; ops are methods on it that check shapes,
//! compute, and record `(kind, inputs, output)` by index.

use crate::custom::{CustomId, CustomOp};
use crate::ops::OpKind;
use crate::profile::Profile;
use crate::{Error, ParamId, Params, Result};
use minnow_arena::{FlatArena, split_disjoint};
use minnow_tensor::Shape;
use std::ops::Range;

/// Most inputs one op takes.
pub const MAX_INPUTS: usize = 4;

/// A value in the graph: an index into the tape's nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Var(pub(crate) u32);

/// A block of the tape's arena, by offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Block {
    start: u32,
    len: u32,
}

impl Block {
    pub(crate) const EMPTY: Block = Block { start: 0, len: 0 };

    fn from_range(r: Range<usize>) -> Self {
        Self { start: r.start as u32, len: r.len() as u32 }
    }

    pub(crate) fn range(self) -> Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Loc {
    Tape(Block),
    Param(ParamId),
    /// The caller's buffer in slot `n` of the graph's borrowed inputs
    /// ([`Graph::input_ref`]).
    Borrowed(u8),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub(crate) shape: Shape,
    pub(crate) value: Loc,
    pub(crate) grad: Option<Block>,
    pub(crate) requires_grad: bool,
}

/// One recorded op: what ran, on which nodes, and where it saved what its
/// backward pass needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Op {
    pub(crate) kind: OpKind,
    pub(crate) inputs: [Var; MAX_INPUTS],
    pub(crate) arity: u8,
    pub(crate) output: Var,
    pub(crate) saved: Block,
    /// Indices (class labels, actions) in the tape's index store.
    pub(crate) index: IndexBlock,
    pub(crate) scalar: f32,
}

impl Op {
    pub(crate) fn inputs(&self) -> &[Var] {
        &self.inputs[..self.arity as usize]
    }
}

/// A block of the tape's index store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct IndexBlock {
    start: u32,
    end: u32,
}

impl IndexBlock {
    pub(crate) const EMPTY: IndexBlock = IndexBlock { start: 0, end: 0 };

    pub(crate) fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Which buffer a block lives in, for `split_disjoint`.
pub(crate) const TAPE: usize = 0;
pub(crate) const GRADS: usize = 1;
pub(crate) const VALUES: usize = 2;
/// The first of the [`MAX_BORROWED`] caller buffers.
pub(crate) const BORROWED: usize = 3;

/// Most inputs one graph borrows from the caller (see [`Graph::input_ref`]).
pub const MAX_BORROWED: usize = 4;

/// The caller's buffers a graph reads in place, by slot.
pub(crate) type Borrowed<'a> = [&'a [f32]; MAX_BORROWED];

/// Reusable memory for recording and differentiating steps.
#[derive(Default)]
pub struct Tape {
    pub(crate) data: FlatArena,
    pub(crate) indices: Vec<u32>,
    pub(crate) nodes: Vec<Node>,
    pub(crate) ops: Vec<Op>,
    pub(crate) customs: Vec<Box<dyn CustomOp>>,
    pub(crate) profile: Option<Profile>,
    /// Threads a large matrix product may use (0 and 1: the calling thread).
    gemm_threads: usize,
}

/// Matrix products with fewer multiply-adds stay on one thread: splitting
/// them costs more than it saves. 2^19 takes the cube DQN net's two large
/// layers (64 x 144 x 128 and 64 x 128 x 64, forward and both gradients);
/// `dqn_step/cube/2thr` measures it (docs/notebook/both-cores-and-peers.md).
pub const PARALLEL_GEMM_MIN_MACS: usize = 1 << 19;

/// Row-wise ops over at least this many floats split their rows like
/// matrix products (`Tape::set_gemm_threads`): 64 rows of a 140-wide
/// LayerNorm are just above it.
pub const PARALLEL_ROWS_MIN_FLOATS: usize = 1 << 13;

impl std::fmt::Debug for Tape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tape")
            .field("nodes", &self.nodes.len())
            .field("ops", &self.ops.len())
            .field("arena_used", &self.data.used())
            .field("arena_capacity", &self.data.capacity())
            .finish()
    }
}

impl Tape {
    /// An empty tape; its memory grows to the largest step and is then reused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers an op defined outside this crate; record it with
    /// [`Graph::custom`]. Done once, when a model is built.
    pub fn register(&mut self, op: Box<dyn CustomOp>) -> CustomId {
        self.customs.push(op);
        CustomId(self.customs.len() as u32 - 1)
    }

    /// Starts a training step: clears the tape and records every op.
    /// Layers run in training mode on it ([`Graph::is_training`]).
    pub fn graph<'a>(&'a mut self, params: &'a mut Params) -> Graph<'a> {
        self.clear();
        Graph {
            tape: self,
            params: ParamAccess::Train(params),
            borrowed: [&[]; MAX_BORROWED],
            borrowed_used: 0,
            seed: None,
            draws: 0,
            recording: true,
        }
    }

    /// Starts a forward-only pass that records nothing: for inference,
    /// with layers in evaluation mode.
    pub fn inference<'a>(&'a mut self, params: &'a Params) -> Graph<'a> {
        self.clear();
        Graph {
            tape: self,
            params: ParamAccess::Infer(params),
            borrowed: [&[]; MAX_BORROWED],
            borrowed_used: 0,
            seed: None,
            draws: 0,
            recording: false,
        }
    }

    fn clear(&mut self) {
        self.data.reset();
        self.indices.clear();
        self.nodes.clear();
        self.ops.clear();
    }

    /// Starts timing every op by kind (forward and backward), for
    /// `cargo xtask profile`; `take_profile` returns and stops it.
    pub fn enable_profile(&mut self) {
        self.profile = Some(Profile::default());
    }

    /// The per-op times since `enable_profile`, which stops.
    pub fn take_profile(&mut self) -> Option<Profile> {
        self.profile.take()
    }

    /// Lets matrix products of at least [`PARALLEL_GEMM_MIN_MACS`]
    /// multiply-adds, and the forward LayerNorms and softmaxes of at least
    /// [`PARALLEL_ROWS_MIN_FLOATS`] values, split their output rows over
    /// `threads` threads of rayon's pool (1: all on the calling thread, the
    /// default). Rows are computed as on one thread: the same bits.
    pub fn set_gemm_threads(&mut self, threads: usize) {
        self.gemm_threads = threads;
    }

    /// The threads work of `macs` multiply-adds splits over: the
    /// [`set_gemm_threads`](Self::set_gemm_threads) count from
    /// [`PARALLEL_GEMM_MIN_MACS`] up, below that 1 (waking a second worker
    /// would cost more than it saves).
    pub fn threads_for(&self, macs: usize) -> usize {
        if macs >= PARALLEL_GEMM_MIN_MACS { self.gemm_threads.max(1) } else { 1 }
    }

    /// Floats of arena the last step used (its high-water mark).
    pub fn arena_floats(&self) -> usize {
        self.data.used()
    }
}

/// `Graph::split` on explicit fields, so a caller can hold another field of
/// the tape (a custom op) at the same time.
pub(crate) fn split_parts<'s, const R: usize, const W: usize>(
    data: &'s mut FlatArena,
    params: &'s mut ParamAccess<'_>,
    borrowed: Borrowed<'s>,
    reads: [(usize, Range<usize>); R],
    writes: [(usize, Range<usize>); W],
) -> ([&'s [f32]; R], [&'s mut [f32]; W]) {
    let (values, grads): (&[f32], &mut [f32]) = match params {
        ParamAccess::Train(p) => p.values_with_grads_mut(),
        ParamAccess::Infer(p) => (p.values(), &mut []),
    };
    let [b0, b1, b2, b3] = borrowed;
    split_disjoint([data.as_mut_slice(), grads], [values, b0, b1, b2, b3], reads, writes)
}

pub(crate) enum ParamAccess<'a> {
    Train(&'a mut Params),
    Infer(&'a Params),
}

impl ParamAccess<'_> {
    /// The store, read-only either way.
    pub(crate) fn store(&self) -> &Params {
        match self {
            ParamAccess::Train(p) => p,
            ParamAccess::Infer(p) => p,
        }
    }
}

/// One step's graph: ops on it compute at once and, when training, record
/// themselves for [`Graph::backward`].
pub struct Graph<'a> {
    pub(crate) tape: &'a mut Tape,
    pub(crate) params: ParamAccess<'a>,
    pub(crate) borrowed: Borrowed<'a>,
    borrowed_used: usize,
    pub(crate) recording: bool,
    /// The step's seed for random ops ([`Graph::set_seed`]).
    pub(crate) seed: Option<u64>,
    /// Seeds drawn from it so far.
    pub(crate) draws: u64,
}

impl std::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("tape", &self.tape).field("recording", &self.recording).finish()
    }
}

impl<'a> Graph<'a> {
    /// The parameter store the graph reads.
    pub fn params(&self) -> &Params {
        self.params.store()
    }

    /// Whether ops are being recorded for a backward pass.
    pub fn is_recording(&self) -> bool {
        self.recording
    }

    /// Whether layers run in training mode (dropout drops, batch norm
    /// uses and updates batch statistics): on a graph from
    /// [`Tape::graph`], which may also write the store's buffers; not on
    /// one from [`Tape::inference`]. The mode lives on the graph, not in
    /// the layers, so that layers run on `&self` and one layer value serves
    /// training and evaluation at once.
    pub fn is_training(&self) -> bool {
        matches!(self.params, ParamAccess::Train(_))
    }

    /// The threads a matrix product of `macs` multiply-adds splits over.
    pub(crate) fn gemm_threads(&self, macs: usize) -> usize {
        self.tape.threads_for(macs)
    }

    /// The threads a row-wise op (LayerNorm, softmax) over `floats`
    /// values splits its rows over: as many as a product's from
    /// [`PARALLEL_ROWS_MIN_FLOATS`] up, else 1.
    pub(crate) fn row_threads(&self, floats: usize) -> usize {
        if floats >= PARALLEL_ROWS_MIN_FLOATS { self.tape.gemm_threads.max(1) } else { 1 }
    }

    /// A data input: copied onto the tape, no gradient.
    pub fn input(&mut self, dims: &[usize], data: &[f32]) -> Result<Var> {
        let shape = Shape::new(dims)?;
        if shape.numel() != data.len() {
            return Err(minnow_tensor::TensorError::DataLength {
                op: "Graph::input",
                shape,
                numel: shape.numel(),
                len: data.len(),
            }
            .into());
        }
        let block = Block::from_range(self.tape.data.alloc_copy(data));
        Ok(self.push_node(Node { shape, value: Loc::Tape(block), grad: None, requires_grad: false }))
    }

    /// A data input read in place from the caller's buffer, which must
    /// outlive the graph: no copy, no gradient. For observations or a batch
    /// that already sit in the caller's memory. At most [`MAX_BORROWED`]
    /// per graph; [`Graph::input`] copies and has no limit.
    pub fn input_ref(&mut self, dims: &[usize], data: &'a [f32]) -> Result<Var> {
        let shape = Shape::new(dims)?;
        if shape.numel() != data.len() {
            return Err(minnow_tensor::TensorError::DataLength {
                op: "Graph::input_ref",
                shape,
                numel: shape.numel(),
                len: data.len(),
            }
            .into());
        }
        let slot = self.borrowed_used;
        if slot == MAX_BORROWED {
            return Err(Error::TooManyBorrowed { max: MAX_BORROWED });
        }
        self.borrowed[slot] = data;
        self.borrowed_used += 1;
        Ok(self.push_node(Node { shape, value: Loc::Borrowed(slot as u8), grad: None, requires_grad: false }))
    }

    /// A parameter: read in place from the store; its gradient accumulates
    /// into the store's gradient buffer.
    pub fn param(&mut self, id: ParamId) -> Var {
        let shape = self.params().shape(id);
        let requires_grad = self.recording;
        self.push_node(Node { shape, value: Loc::Param(id), grad: None, requires_grad })
    }

    /// The shape of a node.
    pub fn shape(&self, v: Var) -> Shape {
        self.tape.nodes[v.0 as usize].shape
    }

    /// The value of a node.
    pub fn value(&self, v: Var) -> &[f32] {
        match self.tape.nodes[v.0 as usize].value {
            Loc::Tape(b) => self.tape.data.get(b.range()),
            Loc::Param(id) => self.params().value(id),
            Loc::Borrowed(slot) => self.borrowed[slot as usize],
        }
    }

    /// The value of a one-element node (a loss).
    pub fn scalar(&self, v: Var) -> f32 {
        self.value(v)[0]
    }

    /// The gradient a tape node received in the backward pass (parameters'
    /// gradients are in the store).
    pub fn grad(&self, v: Var) -> Option<&[f32]> {
        let node = &self.tape.nodes[v.0 as usize];
        match (node.value, node.grad) {
            (Loc::Param(id), _) => Some(self.params().grad(id)),
            (Loc::Tape(_) | Loc::Borrowed(_), Some(b)) => Some(self.tape.data.get(b.range())),
            (Loc::Tape(_) | Loc::Borrowed(_), None) => None,
        }
    }

    fn push_node(&mut self, node: Node) -> Var {
        self.tape.nodes.push(node);
        Var(self.tape.nodes.len() as u32 - 1)
    }

    pub(crate) fn requires_grad(&self, v: Var) -> bool {
        self.tape.nodes[v.0 as usize].requires_grad
    }

    /// A new tape node for an op's output (contents undefined).
    pub(crate) fn output(&mut self, shape: Shape, inputs: &[Var]) -> Var {
        if let Some(p) = self.tape.profile.as_mut() {
            p.op_start = Some(std::time::Instant::now());
        }
        let requires_grad = self.recording && inputs.iter().any(|&v| self.requires_grad(v));
        let block = Block::from_range(self.tape.data.alloc_dirty(shape.numel()));
        self.push_node(Node { shape, value: Loc::Tape(block), grad: None, requires_grad })
    }

    /// Scratch on the tape that lives until the step ends (saved values).
    pub(crate) fn scratch(&mut self, len: usize) -> Block {
        Block::from_range(self.tape.data.alloc_dirty(len))
    }

    /// Copies indices onto the tape's index store.
    pub(crate) fn store_indices(&mut self, idx: &[u32]) -> IndexBlock {
        let start = self.tape.indices.len() as u32;
        self.tape.indices.extend_from_slice(idx);
        IndexBlock { start, end: self.tape.indices.len() as u32 }
    }

    /// Where a node's value lives, as a `split_disjoint` block.
    pub(crate) fn val(&self, v: Var) -> (usize, Range<usize>) {
        match self.tape.nodes[v.0 as usize].value {
            Loc::Tape(b) => (TAPE, b.range()),
            Loc::Param(id) => (VALUES, self.params().range(id)),
            Loc::Borrowed(slot) => (BORROWED + slot as usize, 0..self.borrowed[slot as usize].len()),
        }
    }

    pub(crate) fn blk(&self, b: Block) -> (usize, Range<usize>) {
        (TAPE, b.range())
    }

    /// Where a node's gradient lives, allocated (zeroed) on first use; an
    /// empty block for a node that needs no gradient.
    pub(crate) fn grad_loc(&mut self, v: Var) -> (usize, Range<usize>) {
        let node = self.tape.nodes[v.0 as usize];
        if !node.requires_grad {
            return (TAPE, 0..0);
        }
        match (node.value, node.grad) {
            (Loc::Param(id), _) => (GRADS, self.params().range(id)),
            (Loc::Tape(_) | Loc::Borrowed(_), Some(b)) => (TAPE, b.range()),
            (Loc::Tape(_) | Loc::Borrowed(_), None) => {
                let b = Block::from_range(self.tape.data.alloc(node.shape.numel()));
                self.tape.nodes[v.0 as usize].grad = Some(b);
                (TAPE, b.range())
            }
        }
    }

    /// The gradient block of `v`, or zeroed scratch of its size when `v`
    /// needs no gradient: for kernels that always produce every gradient.
    pub(crate) fn grad_or_scratch(&mut self, v: Var) -> (usize, Range<usize>) {
        let loc = self.grad_loc(v);
        if loc.1.is_empty() { (TAPE, self.tape.data.alloc(self.shape(v).numel())) } else { loc }
    }

    /// Borrows blocks of the tape and the parameter store at once.
    pub(crate) fn split<const R: usize, const W: usize>(
        &mut self,
        reads: [(usize, Range<usize>); R],
        writes: [(usize, Range<usize>); W],
    ) -> ([&[f32]; R], [&mut [f32]; W]) {
        split_parts(&mut self.tape.data, &mut self.params, self.borrowed, reads, writes)
    }

    /// Records an op for the backward pass (nothing when not recording, or
    /// when no input needs a gradient).
    pub(crate) fn record(
        &mut self,
        kind: OpKind,
        inputs: &[Var],
        output: Var,
        saved: Block,
        index: IndexBlock,
        scalar: f32,
    ) {
        if let Some(p) = self.tape.profile.as_mut()
            && let Some(start) = p.op_start.take()
        {
            p.add_forward(kind, start.elapsed());
        }
        if !self.recording || !self.requires_grad(output) {
            return;
        }
        let mut all = [Var(0); MAX_INPUTS];
        all[..inputs.len()].copy_from_slice(inputs);
        self.tape.ops.push(Op { kind, inputs: all, arity: inputs.len() as u8, output, saved, index, scalar });
    }

    /// Runs the reverse pass from a scalar loss: every parameter's gradient
    /// in the store gains d loss / d parameter (gradients accumulate; zero
    /// them between steps with `Params::zero_grads`).
    pub fn backward(&mut self, loss: Var) -> Result<()> {
        minnow_kernels::warn_if_unoptimized();
        let shape = self.shape(loss);
        if shape.numel() != 1 {
            return Err(Error::NotScalar { shape });
        }
        let value = self.scalar(loss);
        if !value.is_finite() {
            return Err(Error::NonFiniteLoss { value });
        }
        if !matches!(self.params, ParamAccess::Train(_)) {
            return Err(Error::Config("backward on an inference graph: start the step with Tape::graph".into()));
        }
        if !self.requires_grad(loss) {
            return Ok(());
        }
        let (_, seed) = self.grad_loc(loss);
        self.tape.data.get_mut(seed).fill(1.0);
        for i in (0..self.tape.ops.len()).rev() {
            let op = self.tape.ops[i];
            if self.tape.nodes[op.output.0 as usize].grad.is_none() {
                continue;
            }
            let start = self.tape.profile.as_ref().map(|_| std::time::Instant::now());
            crate::ops::backward(self, &op);
            if let (Some(t), Some(p)) = (start, self.tape.profile.as_mut()) {
                p.add_backward(op.kind, t.elapsed());
            }
        }
        Ok(())
    }

    pub(crate) fn custom_op(&self, id: CustomId) -> &dyn CustomOp {
        self.tape.customs[id.0 as usize].as_ref()
    }

    /// Runs `f` with a registered custom op and the blocks it reads and
    /// writes, borrowed together.
    pub(crate) fn with_custom<const R: usize, const W: usize, T>(
        &mut self,
        id: CustomId,
        reads: [(usize, Range<usize>); R],
        writes: [(usize, Range<usize>); W],
        f: impl FnOnce(&dyn CustomOp, [&[f32]; R], [&mut [f32]; W]) -> T,
    ) -> T {
        let op = self.tape.customs[id.0 as usize].as_ref();
        let (ins, outs) = split_parts(&mut self.tape.data, &mut self.params, self.borrowed, reads, writes);
        f(op, ins, outs)
    }
}
