use std::ops::Range;

/// Borrows several blocks of one or more buffers at once: `reads` as shared
/// slices and `writes` as mutable ones. Each block is `(buffer index, range)`.
/// Panics, naming the blocks, unless every write is disjoint from every
/// other write and every read in the same buffer (reads may overlap reads).
///
/// This is what lets a tape read an op's inputs while it writes the op's
/// output and gradients, all of them blocks of the same arena.
#[track_caller]
pub fn split_disjoint<'a, const B: usize, const R: usize, const W: usize>(
    buffers: [&'a mut [f32]; B],
    reads: [(usize, Range<usize>); R],
    writes: [(usize, Range<usize>); W],
) -> ([&'a [f32]; R], [&'a mut [f32]; W]) {
    let overlaps = |a: &Range<usize>, b: &Range<usize>| a.start < b.end && b.start < a.end;
    for (i, (wb, w)) in writes.iter().enumerate() {
        assert!(
            *wb < B && w.start <= w.end && w.end <= buffers[*wb].len(),
            "split_disjoint: write block {i} ({wb}, {w:?}) is out of bounds"
        );
        for (ob, o) in writes.iter().skip(i + 1).chain(reads.iter()) {
            assert!(
                wb != ob || !overlaps(w, o) || w.is_empty() || o.is_empty(),
                "split_disjoint: write ({wb}, {w:?}) overlaps ({ob}, {o:?})"
            );
        }
    }
    for (rb, r) in &reads {
        assert!(
            *rb < B && r.start <= r.end && r.end <= buffers[*rb].len(),
            "split_disjoint: read block ({rb}, {r:?}) is out of bounds"
        );
    }
    let bases = buffers.map(|b| b.as_mut_ptr());
    // SAFETY: every block is in bounds of its buffer (checked above), each
    // mutable block overlaps no other block handed out, and all of them
    // borrow from `buffers`, which are exclusively borrowed for 'a.
    let read_slices = reads.map(|(b, r)| unsafe { std::slice::from_raw_parts(bases[b].add(r.start), r.len()) });
    // SAFETY: as above.
    let write_slices =
        writes.map(|(b, w)| unsafe { std::slice::from_raw_parts_mut(bases[b].add(w.start), w.len()) });
    (read_slices, write_slices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_of_one_buffer() {
        let mut a = [1.0, 2.0, 3.0, 4.0];
        let mut b = [10.0, 20.0];
        let ([x, y], [out, other]) = split_disjoint([&mut a, &mut b], [(0, 0..2), (0, 1..2)], [(0, 2..4), (1, 0..2)]);
        out[0] = x[0] + y[0];
        other[1] = 7.0;
        assert_eq!(a, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(b, [10.0, 7.0]);
    }

    #[test]
    #[should_panic(expected = "overlaps")]
    fn overlapping_write_panics() {
        let mut a = [0.0; 4];
        let _ = split_disjoint([&mut a], [(0, 0..2)], [(0, 1..3)]);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn out_of_bounds_panics() {
        let mut a = [0.0; 4];
        let _ = split_disjoint([&mut a], [], [(0, 3..5)]);
    }
}
