use std::ops::Range;

/// Borrows several blocks of several buffers at once: `reads` as shared
/// slices and `writes` as mutable ones. A block is `(buffer, range)`, where
/// buffer `i < B` is `mutable[i]` and `B + j` is `shared[j]`. Panics, naming
/// the blocks, unless every write lies in a mutable buffer and is disjoint
/// from every other block of that buffer (reads may overlap reads). Empty
/// blocks overlap nothing.
///
/// This is what lets a tape read an op's inputs and saved values while it
/// writes the op's output or gradients, all of them blocks of one arena.
#[track_caller]
pub fn split_disjoint<'a, const B: usize, const C: usize, const R: usize, const W: usize>(
    mutable: [&'a mut [f32]; B],
    shared: [&'a [f32]; C],
    reads: [(usize, Range<usize>); R],
    writes: [(usize, Range<usize>); W],
) -> ([&'a [f32]; R], [&'a mut [f32]; W]) {
    let len_of = |b: usize| {
        if b < B { mutable[b].len() } else { shared[b - B].len() }
    };
    let overlaps =
        |a: &Range<usize>, b: &Range<usize>| !a.is_empty() && !b.is_empty() && a.start < b.end && b.start < a.end;
    for (b, r) in &reads {
        assert!(
            *b < B + C && r.start <= r.end && r.end <= len_of(*b),
            "split_disjoint: read ({b}, {r:?}) is out of bounds"
        );
    }
    for (i, (wb, w)) in writes.iter().enumerate() {
        assert!(
            *wb < B && w.start <= w.end && w.end <= mutable[*wb].len(),
            "split_disjoint: write ({wb}, {w:?}) is out of bounds or in a shared buffer"
        );
        for (ob, o) in writes.iter().skip(i + 1).chain(reads.iter()) {
            assert!(wb != ob || !overlaps(w, o), "split_disjoint: write ({wb}, {w:?}) overlaps ({ob}, {o:?})");
        }
    }
    let bases: [*mut f32; B] = mutable.map(|b| b.as_mut_ptr());
    let shared_bases: [*const f32; C] = shared.map(|b| b.as_ptr());
    let base = |b: usize| {
        if b < B { bases[b].cast_const() } else { shared_bases[b - B] }
    };
    // SAFETY: every block is in bounds of its buffer (checked above); no
    // mutable block overlaps any other block of its buffer; all buffers are
    // borrowed (the mutable ones exclusively) for 'a.
    let read_slices = reads.map(|(b, r)| unsafe { std::slice::from_raw_parts(base(b).add(r.start), r.len()) });
    // SAFETY: as above.
    let write_slices = writes.map(|(b, w)| unsafe { std::slice::from_raw_parts_mut(bases[b].add(w.start), w.len()) });
    (read_slices, write_slices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_of_one_buffer() {
        let mut a = [1.0, 2.0, 3.0, 4.0];
        let mut b = [10.0, 20.0];
        let ([x, y], [out, other]) =
            split_disjoint([&mut a, &mut b], [], [(0, 0..2), (0, 1..2)], [(0, 2..4), (1, 0..2)]);
        out[0] = x[0] + y[0];
        other[1] = 7.0;
        assert_eq!(a, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(b, [10.0, 7.0]);
    }

    #[test]
    #[should_panic(expected = "overlaps")]
    fn overlapping_write_panics() {
        let mut a = [0.0; 4];
        let _ = split_disjoint([&mut a], [], [(0, 0..2)], [(0, 1..3)]);
    }

    #[test]
    fn shared_buffers_are_read_only() {
        let mut a = [0.0; 2];
        let b = [5.0, 6.0];
        let ([x], [y]) = split_disjoint([&mut a], [&b], [(1, 0..2)], [(0, 0..2)]);
        y.copy_from_slice(x);
        assert_eq!(a, b);
    }

    #[test]
    #[should_panic(expected = "shared buffer")]
    fn writing_a_shared_buffer_panics() {
        let b = [5.0, 6.0];
        let _ = split_disjoint::<0, 1, 0, 1>([], [&b], [], [(0, 0..2)]);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn out_of_bounds_panics() {
        let mut a = [0.0; 4];
        let _ = split_disjoint([&mut a], [], [], [(0, 3..5)]);
    }
}
