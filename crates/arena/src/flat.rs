use crate::aligned::AlignedBuf;
use std::ops::Range;

/// A per-step arena addressed by offsets instead of references: blocks are
/// `Range<usize>`s into one contiguous aligned buffer, so a tape can keep
/// them in plain vectors. While warming up the buffer grows (by doubling,
/// keeping its contents); after that a step of the same shape allocates
/// nothing. `reset` frees every block at once.
#[derive(Debug, Default)]
pub struct FlatArena {
    buf: AlignedBuf,
    used: usize,
}

impl FlatArena {
    /// An empty arena; it grows on the first step.
    pub fn new() -> Self {
        Self::default()
    }

    /// A block of `len` floats holding whatever an earlier step left there.
    pub fn alloc_dirty(&mut self, len: usize) -> Range<usize> {
        let start = self.used;
        let end = start + len;
        // The next block starts on a line boundary, which must lie inside
        // the buffer too.
        let next = start + crate::whole_lines(len);
        if next > self.buf.len() {
            let mut bigger = AlignedBuf::zeros((2 * self.buf.len()).max(next).max(4096));
            bigger[..self.used].copy_from_slice(&self.buf[..self.used]);
            self.buf = bigger;
        }
        self.used = next;
        start..end
    }

    /// A zeroed block of `len` floats.
    pub fn alloc(&mut self, len: usize) -> Range<usize> {
        let range = self.alloc_dirty(len);
        self.buf[range.clone()].fill(0.0);
        range
    }

    /// A block holding a copy of `values`.
    pub fn alloc_copy(&mut self, values: &[f32]) -> Range<usize> {
        let range = self.alloc_dirty(values.len());
        self.buf[range.clone()].copy_from_slice(values);
        range
    }

    /// Frees every block; the memory stays for the next step.
    pub fn reset(&mut self) {
        self.used = 0;
    }

    /// Where the next block will start: blocks at or past a mark are freed
    /// by `truncate(mark)`.
    pub fn mark(&self) -> usize {
        self.used
    }

    /// Frees every block from `mark` (a [`FlatArena::mark`]) on.
    pub fn truncate(&mut self, mark: usize) {
        assert!(mark <= self.used, "FlatArena::truncate: mark {mark} is past the end {}", self.used);
        self.used = mark;
    }

    /// Floats handed out since the last reset, alignment padding included.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Floats it can hand out before it grows.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The whole buffer, for splitting into disjoint blocks.
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.buf
    }

    /// A block's values.
    pub fn get(&self, range: Range<usize>) -> &[f32] {
        &self.buf[range]
    }

    /// A block's values, mutably.
    pub fn get_mut(&mut self, range: Range<usize>) -> &mut [f32] {
        &mut self.buf[range]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growing_to_a_length_off_the_line_keeps_room_for_the_next_block() {
        let mut arena = FlatArena::new();
        // Past the initial 4096 floats, not a multiple of a line.
        let a = arena.alloc_copy(&[1.5; 5000]);
        let b = arena.alloc_copy(&[2.5; 3]);
        assert!(b.start >= a.end && b.start.is_multiple_of(crate::LINE_FLOATS));
        assert!(arena.get(a).iter().all(|&x| x == 1.5));
        assert_eq!(arena.get(b), &[2.5; 3]);
    }

    #[test]
    fn blocks_are_aligned_and_survive_growth() {
        let mut arena = FlatArena::new();
        let a = arena.alloc_copy(&[1.0, 2.0, 3.0]);
        let b = arena.alloc(100_000);
        assert_eq!(b.start % crate::LINE_FLOATS, 0);
        assert_eq!(arena.get(a), &[1.0, 2.0, 3.0]);
        assert!(arena.get(b).iter().all(|&x| x == 0.0));
    }

    #[test]
    fn reset_keeps_capacity() {
        let mut arena = FlatArena::new();
        let _ = arena.alloc(50_000);
        let capacity = arena.capacity();
        arena.reset();
        let _ = arena.alloc(50_000);
        assert_eq!(arena.capacity(), capacity);
    }
}
