//! The transposition table: chance nodes' values by (afterstate, depth
//! left), one slot per hash, always replaced. A search bumps the
//! generation instead of clearing the slots, so starting one costs nothing.

use std::hash::{Hash, Hasher};

/// One remembered chance node.
#[derive(Clone, Copy, Default)]
struct Slot<S> {
    state: S,
    depth: u8,
    generation: u32,
    value: f32,
}

/// Slots for `2^bits` chance nodes (none when `bits` is 0).
pub(super) struct TranspositionTable<S> {
    slots: Vec<Slot<S>>,
    generation: u32,
}

/// A hasher of a few words: SplitMix64's finaliser over each (states are
/// one or two machine words; `DefaultHasher`'s SipHash costs more than a
/// leaf evaluation).
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        crate::splitmix(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = crate::splitmix(self.0 ^ word);
    }
}

impl<S: Copy + Default + PartialEq + Hash> TranspositionTable<S> {
    pub(super) fn new(bits: u32) -> Self {
        let len = if bits == 0 { 0 } else { 1usize << bits };
        // Generation 0 marks a slot never written: searches start at 1.
        Self { slots: vec![Slot::default(); len], generation: 0 }
    }

    /// Forgets every slot (a new search, or a new value function).
    pub(super) fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    fn index(&self, state: &S, depth: u8) -> usize {
        let mut hasher = WordHasher(depth as u64);
        state.hash(&mut hasher);
        (hasher.finish() as usize) & (self.slots.len() - 1)
    }

    pub(super) fn get(&self, state: &S, depth: u8) -> Option<f32> {
        if self.slots.is_empty() {
            return None;
        }
        let slot = &self.slots[self.index(state, depth)];
        (slot.generation == self.generation && slot.depth == depth && slot.state == *state).then_some(slot.value)
    }

    pub(super) fn put(&mut self, state: S, depth: u8, value: f32) {
        if self.slots.is_empty() {
            return;
        }
        let i = self.index(&state, depth);
        self.slots[i] = Slot { state, depth, generation: self.generation, value };
    }
}
