use crate::aligned::AlignedBuf;
use std::cell::{Cell, UnsafeCell};
use std::fmt;

const FIRST_CHUNK: usize = 16 * 1024;

/// A bump allocator for per-step temporaries.
///
/// `alloc` hands out disjoint slices through `&self`, so many can be alive at
/// once; `reset` and `rewind` take `&mut self`, so no slice outlives them.
/// While warming up the arena grows by chunks; `reset` then merges them into
/// one, so from the second step on a step of the same shape allocates nothing.
pub struct Arena {
    // Only ever pushed to through `&self`; the heap memory of a chunk never
    // moves while it is in the vector, so slices into it stay valid.
    chunks: UnsafeCell<Vec<AlignedBuf>>,
    current: Cell<usize>,
    used: Cell<usize>,
    high_water: Cell<usize>,
}

// SAFETY: the arena owns its chunks; moving it to another thread moves them
// all (slices borrowed from it cannot outlive the move).
unsafe impl Send for Arena {}

/// A position in an [`Arena`] to [`Arena::rewind`] to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaMark {
    chunk: usize,
    used: usize,
    total: usize,
}

impl Arena {
    /// An empty arena; the first allocation creates the first chunk.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An arena with room for `floats` floats before it needs to grow.
    pub fn with_capacity(floats: usize) -> Self {
        let chunks = if floats == 0 { Vec::new() } else { vec![AlignedBuf::zeros(round_up(floats))] };
        Self { chunks: UnsafeCell::new(chunks), current: Cell::new(0), used: Cell::new(0), high_water: Cell::new(0) }
    }

    /// A zeroed slice of `len` floats, 64-byte aligned.
    #[allow(clippy::mut_from_ref)]
    pub fn alloc(&self, len: usize) -> &mut [f32] {
        let slice = self.alloc_dirty(len);
        slice.fill(0.0);
        slice
    }

    /// A slice of `len` floats holding whatever an earlier step left there,
    /// for destinations that are fully overwritten.
    #[allow(clippy::mut_from_ref)]
    pub fn alloc_dirty(&self, len: usize) -> &mut [f32] {
        let need = round_up(len);
        // SAFETY: `chunks` is only touched here and in `&mut self` methods;
        // this function does not re-enter itself, and pushing a chunk moves
        // only the `AlignedBuf` handles, never the memory handed out before.
        let chunks = unsafe { &mut *self.chunks.get() };
        let mut index = self.current.get();
        let mut used = self.used.get();
        loop {
            match chunks.get(index) {
                Some(chunk) if chunk.len() - used >= need => break,
                Some(_) => {
                    index += 1;
                    used = 0;
                }
                None => {
                    let last = chunks.last().map_or(0, |c| c.len());
                    chunks.push(AlignedBuf::zeros(need.max(2 * last).max(FIRST_CHUNK)));
                    index = chunks.len() - 1;
                    used = 0;
                }
            }
        }
        self.current.set(index);
        self.used.set(used + need);
        let total = self.used_floats();
        self.high_water.set(self.high_water.get().max(total));
        let base = chunks[index].as_ptr().cast_mut();
        // SAFETY: `[used, used + len)` lies inside chunk `index`, and no other
        // live slice covers it: the bump offset only grows until `&mut self`
        // rewinds it, which ends every borrow.
        unsafe { std::slice::from_raw_parts_mut(base.add(used), len) }
    }

    /// Where the arena stands now.
    pub fn mark(&self) -> ArenaMark {
        ArenaMark { chunk: self.current.get(), used: self.used.get(), total: self.used_floats() }
    }

    /// Frees everything allocated after `mark`, keeping the memory.
    pub fn rewind(&mut self, mark: ArenaMark) {
        assert!(
            mark.total <= self.used_floats(),
            "Arena::rewind: mark at {} floats is ahead of the arena at {}",
            mark.total,
            self.used_floats()
        );
        self.current.set(mark.chunk);
        self.used.set(mark.used);
    }

    /// Frees everything. If the last step needed more than one chunk, they
    /// are merged into one big enough for it, so the next step does not grow.
    pub fn reset(&mut self) {
        let chunks = self.chunks.get_mut();
        if chunks.len() > 1 {
            let total: usize = chunks.iter().map(|c| c.len()).sum();
            chunks.clear();
            chunks.push(AlignedBuf::zeros(total));
        }
        self.current.set(0);
        self.used.set(0);
    }

    /// Floats handed out since the last reset (including alignment padding,
    /// and space skipped at the end of a full chunk).
    pub fn used_floats(&self) -> usize {
        // SAFETY: reading lengths only; see `alloc_dirty`.
        let chunks = unsafe { &*self.chunks.get() };
        let before: usize = chunks.iter().take(self.current.get()).map(|c| c.len()).sum();
        before + self.used.get()
    }

    /// The most floats ever in use at once.
    pub fn high_water(&self) -> usize {
        self.high_water.get()
    }

    /// Floats the arena holds without growing.
    pub fn capacity(&self) -> usize {
        // SAFETY: reading lengths only; see `alloc_dirty`.
        unsafe { &*self.chunks.get() }.iter().map(|c| c.len()).sum()
    }
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Arena {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Arena")
            .field("used", &self.used_floats())
            .field("capacity", &self.capacity())
            .field("high_water", &self.high_water())
            .finish()
    }
}

/// Every allocation starts on a 64-byte boundary, and takes at least a line.
fn round_up(len: usize) -> usize {
    crate::whole_lines(len.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_disjoint_aligned_and_zeroed() {
        let arena = Arena::with_capacity(64);
        let a = arena.alloc(10);
        a.fill(1.0);
        let b = arena.alloc(20);
        assert!(b.iter().all(|&x| x == 0.0));
        b.fill(2.0);
        assert!(a.iter().all(|&x| x == 1.0));
        assert_eq!(a.as_ptr() as usize % crate::ALIGN, 0);
        assert_eq!(b.as_ptr() as usize % crate::ALIGN, 0);
    }

    #[test]
    fn grows_then_merges_on_reset() {
        let mut arena = Arena::with_capacity(16);
        for _ in 0..3 {
            let _ = arena.alloc(16);
            let _ = arena.alloc(100_000);
            arena.reset();
        }
        let capacity = arena.capacity();
        let _ = arena.alloc(16);
        let _ = arena.alloc(100_000);
        assert_eq!(arena.capacity(), capacity, "a repeated step must not grow the arena");
        assert!(arena.high_water() >= 100_016);
    }

    #[test]
    fn rewind_returns_to_mark() {
        let mut arena = Arena::new();
        let _ = arena.alloc(5);
        let mark = arena.mark();
        let _ = arena.alloc(50);
        arena.rewind(mark);
        assert_eq!(arena.used_floats(), mark.total);
        let _ = arena.alloc(5);
        assert_eq!(arena.used_floats(), 2 * crate::LINE_FLOATS);
    }

    #[test]
    fn zero_length_allocations_are_fine() {
        let arena = Arena::new();
        assert!(arena.alloc(0).is_empty());
    }
}
