use crate::{Error, Result};
use minnow_arena::AlignedBuf;
use minnow_tensor::Shape;
use std::ops::Range;

/// A parameter's handle: an index into its [`Params`] store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamId(pub(crate) u32);

impl ParamId {
    /// Its position in the store (the order parameters were added).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A buffer's handle: state a model keeps in its [`Params`] store beside
/// the parameters but never trains (batch norm's running statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferId(pub(crate) u32);

impl BufferId {
    /// Its position among the store's buffers (the order they were added).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Entry {
    name: String,
    shape: Shape,
    range: Range<usize>,
}

/// All parameters of a model, and their gradients, each as one flat
/// aligned buffer with an offsets table (llm.c's layout), so an optimiser
/// updates everything in one fused pass and `zero_grads` is one fill.
///
/// A model holds only [`ParamId`]s; two stores built by the same code have
/// the same layout, so a target network is a second `Params` and syncing
/// it is one copy.
///
/// Buffers ([`BufferId`]) are a model's other state, kept apart from the
/// flat parameter memory so that optimisers, gradient clipping and
/// all-reduces never see them; of the graphs, only a training one writes
/// them, and checkpoints and syncs carry them with the parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    entries: Vec<Entry>,
    values: AlignedBuf,
    grads: AlignedBuf,
    used: usize,
    buffer_entries: Vec<Entry>,
    buffers: Vec<f32>,
}

impl Params {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a zero-initialised parameter; `init` then fills its values.
    /// Build-time only: the store grows (and so allocates) here.
    pub fn add(&mut self, name: &str, dims: &[usize], init: impl FnOnce(&mut [f32])) -> Result<ParamId> {
        self.check_unused(name)?;
        let shape = Shape::new(dims)?;
        let start = self.used;
        let end = start + shape.numel();
        // Every parameter starts on a 64-byte boundary.
        self.used = start + minnow_arena::whole_lines(shape.numel());
        if self.used > self.values.len() {
            let capacity = self.used.max(2 * self.values.len());
            for buf in [&mut self.values, &mut self.grads] {
                let mut bigger = AlignedBuf::zeros(capacity);
                bigger[..start].copy_from_slice(&buf[..start]);
                *buf = bigger;
            }
        }
        init(&mut self.values[start..end]);
        self.entries.push(Entry { name: name.to_string(), shape, range: start..end });
        Ok(ParamId(self.entries.len() as u32 - 1))
    }

    /// Adds a buffer, zero-initialised; `init` then fills it. Its name
    /// shares the parameters' namespace (a checkpoint holds both).
    /// Build-time only, as [`add`](Self::add).
    pub fn add_buffer(&mut self, name: &str, dims: &[usize], init: impl FnOnce(&mut [f32])) -> Result<BufferId> {
        self.check_unused(name)?;
        let shape = Shape::new(dims)?;
        let start = self.buffers.len();
        self.buffers.resize(start + shape.numel(), 0.0);
        init(&mut self.buffers[start..]);
        self.buffer_entries.push(Entry { name: name.to_string(), shape, range: start..self.buffers.len() });
        Ok(BufferId(self.buffer_entries.len() as u32 - 1))
    }

    fn check_unused(&self, name: &str) -> Result<()> {
        if self.find(name).is_some() || self.buffer_entries.iter().any(|e| e.name == name) {
            return Err(Error::DuplicateParam { name: name.to_string() });
        }
        Ok(())
    }

    /// The parameter with this name.
    pub fn find(&self, name: &str) -> Option<ParamId> {
        self.entries.iter().position(|e| e.name == name).map(|i| ParamId(i as u32))
    }

    /// Every parameter, in the order added.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = ParamId> + use<> {
        (0..self.entries.len() as u32).map(ParamId)
    }

    /// The name a parameter was added under.
    pub fn name(&self, id: ParamId) -> &str {
        &self.entries[id.index()].name
    }

    /// Its shape.
    pub fn shape(&self, id: ParamId) -> Shape {
        self.entries[id.index()].shape
    }

    /// Where the parameter lives in the flat buffers.
    pub fn range(&self, id: ParamId) -> Range<usize> {
        self.entries[id.index()].range.clone()
    }

    /// Its values.
    pub fn value(&self, id: ParamId) -> &[f32] {
        &self.values[self.range(id)]
    }

    /// Its values, mutably.
    pub fn value_mut(&mut self, id: ParamId) -> &mut [f32] {
        let range = self.range(id);
        &mut self.values[range]
    }

    /// Its gradient.
    pub fn grad(&self, id: ParamId) -> &[f32] {
        &self.grads[self.range(id)]
    }

    /// Its gradient, mutably.
    pub fn grad_mut(&mut self, id: ParamId) -> &mut [f32] {
        let range = self.range(id);
        &mut self.grads[range]
    }

    /// Number of parameters (elements, excluding alignment padding).
    pub fn numel(&self) -> usize {
        self.entries.iter().map(|e| e.range.len()).sum()
    }

    /// Number of parameter tensors.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no parameter was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The flat value buffer, padding included (padding stays zero).
    pub fn values(&self) -> &[f32] {
        &self.values[..self.used]
    }

    /// Every value, flat (with padding between tensors), mutably.
    pub fn values_mut(&mut self) -> &mut [f32] {
        &mut self.values[..self.used]
    }

    /// The flat gradient buffer, laid out like `values`.
    pub fn grads(&self) -> &[f32] {
        &self.grads[..self.used]
    }

    /// Every gradient, flat (with padding between tensors), mutably.
    pub fn grads_mut(&mut self) -> &mut [f32] {
        &mut self.grads[..self.used]
    }

    /// Values to read and gradients to write, at once (the reverse pass).
    pub fn values_with_grads_mut(&mut self) -> (&[f32], &mut [f32]) {
        (&self.values[..self.used], &mut self.grads[..self.used])
    }

    /// Values to update and the gradients to update them with (and, if
    /// the caller likes, clear), at once.
    pub fn values_and_grads_mut(&mut self) -> (&mut [f32], &mut [f32]) {
        (&mut self.values[..self.used], &mut self.grads[..self.used])
    }

    /// Every buffer, in the order added.
    pub fn buffer_ids(&self) -> impl ExactSizeIterator<Item = BufferId> + use<> {
        (0..self.buffer_entries.len() as u32).map(BufferId)
    }

    /// The name a buffer was added under.
    pub fn buffer_name(&self, id: BufferId) -> &str {
        &self.buffer_entries[id.index()].name
    }

    /// A buffer's shape.
    pub fn buffer_shape(&self, id: BufferId) -> Shape {
        self.buffer_entries[id.index()].shape
    }

    /// A buffer's values.
    pub fn buffer(&self, id: BufferId) -> &[f32] {
        &self.buffers[self.buffer_entries[id.index()].range.clone()]
    }

    /// A buffer's values, mutably.
    pub fn buffer_mut(&mut self, id: BufferId) -> &mut [f32] {
        let range = self.buffer_entries[id.index()].range.clone();
        &mut self.buffers[range]
    }

    /// Sets every gradient to zero: one pass over flat memory.
    pub fn zero_grads(&mut self) {
        self.grads[..self.used].fill(0.0);
    }

    /// Whether `other` has the same names and shapes in the same order,
    /// parameters and buffers.
    pub fn same_layout(&self, other: &Params) -> bool {
        let same = |a: &[Entry], b: &[Entry]| {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.name == b.name && a.shape == b.shape)
        };
        same(&self.entries, &other.entries) && same(&self.buffer_entries, &other.buffer_entries)
    }

    /// Copies all values and buffers from a store of the same layout (a
    /// target-network sync): one copy each, no allocation.
    pub fn copy_values_from(&mut self, other: &Params) -> Result<()> {
        self.check_layout(other)?;
        self.values[..self.used].copy_from_slice(&other.values[..other.used]);
        self.buffers.copy_from_slice(&other.buffers);
        Ok(())
    }

    /// self = (1 - tau) * self + tau * other (Polyak averaging), values
    /// and buffers alike.
    pub fn blend_values_from(&mut self, other: &Params, tau: f32) -> Result<()> {
        self.check_layout(other)?;
        let pairs =
            [(&mut self.values[..self.used], &other.values[..other.used]), (&mut self.buffers[..], &other.buffers[..])];
        for (dst, src) in pairs {
            minnow_kernels::scale(1.0 - tau, dst);
            minnow_kernels::axpy(tau, src, dst);
        }
        Ok(())
    }

    /// An error naming the first difference, if the layouts differ.
    pub fn check_layout(&self, other: &Params) -> Result<()> {
        if self.same_layout(other) {
            return Ok(());
        }
        let first_difference = |a: &[Entry], b: &[Entry]| {
            let detail = match a.iter().zip(b).find(|(a, b)| a.name != b.name || a.shape != b.shape) {
                Some((a, b)) => format!("'{}' {} vs '{}' {}", a.name, a.shape, b.name, b.shape),
                None if a.len() != b.len() => format!("{} tensors vs {}", a.len(), b.len()),
                None => return None,
            };
            Some(detail)
        };
        let detail = first_difference(&self.entries, &other.entries)
            .or_else(|| first_difference(&self.buffer_entries, &other.buffer_entries).map(|d| format!("buffers: {d}")))
            .unwrap_or_default();
        Err(Error::LayoutMismatch { detail })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_layout_with_aligned_entries() {
        let mut p = Params::new();
        let a = p.add("a", &[3], |v| v.fill(1.0)).unwrap();
        let b = p.add("b", &[2, 2], |v| v.fill(2.0)).unwrap();
        assert_eq!(p.value(a), &[1.0; 3]);
        assert_eq!(p.value(b), &[2.0; 4]);
        assert_eq!(p.range(b).start % minnow_arena::LINE_FLOATS, 0);
        assert_eq!(p.numel(), 7);
        assert_eq!(p.find("b"), Some(b));
        p.grad_mut(b)[0] = 5.0;
        p.zero_grads();
        assert!(p.grads().iter().all(|&g| g == 0.0));
    }

    #[test]
    fn duplicate_names_are_an_error() {
        let mut p = Params::new();
        p.add("w", &[1], |_| {}).unwrap();
        assert!(matches!(p.add("w", &[1], |_| {}), Err(Error::DuplicateParam { .. })));
    }

    #[test]
    fn buffers_live_apart_from_the_flat_parameters() {
        let mut p = Params::new();
        let w = p.add("w", &[2], |v| v.fill(1.0)).unwrap();
        let mean = p.add_buffer("running_mean", &[3], |v| v.fill(0.5)).unwrap();
        assert_eq!(p.buffer(mean), &[0.5; 3]);
        assert_eq!((p.len(), p.numel(), p.values().len()), (1, 2, minnow_arena::LINE_FLOATS));
        assert_eq!(p.buffer_ids().map(|b| p.buffer_name(b)).collect::<Vec<_>>(), ["running_mean"]);
        assert!(matches!(p.add("running_mean", &[1], |_| {}), Err(Error::DuplicateParam { .. })));
        assert!(matches!(p.add_buffer("w", &[1], |_| {}), Err(Error::DuplicateParam { .. })));

        let mut q = p.clone();
        q.buffer_mut(mean).fill(2.5);
        q.value_mut(w).fill(3.0);
        p.blend_values_from(&q, 0.5).unwrap();
        assert_eq!((p.value(w), p.buffer(mean)), (&[2.0; 2][..], &[1.5; 3][..]));
        p.copy_values_from(&q).unwrap();
        assert_eq!(p, q);
        let mut other = Params::new();
        other.add("w", &[2], |_| {}).unwrap();
        other.add_buffer("running_mean", &[4], |_| {}).unwrap();
        let err = other.copy_values_from(&q).unwrap_err();
        assert_eq!(err.to_string(), "parameter layouts differ: buffers: 'running_mean' [4] vs 'running_mean' [3]");
    }

    #[test]
    fn sync_needs_the_same_layout() {
        let mut a = Params::new();
        a.add("w", &[2], |v| v.fill(3.0)).unwrap();
        let mut b = Params::new();
        b.add("w", &[2], |_| {}).unwrap();
        b.copy_values_from(&a).unwrap();
        assert_eq!(b.values()[..2], [3.0, 3.0]);
        b.blend_values_from(&a, 0.5).unwrap();
        let mut c = Params::new();
        c.add("w", &[3], |_| {}).unwrap();
        let err = c.copy_values_from(&a).unwrap_err();
        assert_eq!(err.to_string(), "parameter layouts differ: 'w' [3] vs 'w' [2]");
    }
}
