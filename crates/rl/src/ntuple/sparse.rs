//! The sparse form of a flat weight buffer, for storing a trained
//! network: an n-tuple network's tables are mostly never visited (a
//! trained 2048 network of twelve 6-tuples has a value in under 1% of its
//! entries), so only the entries whose bits are not those of `+0.0` are
//! kept, their values bit for bit and their positions as gaps.
//!
//! The gap before the entry at position `p` is `p - q - 1`, where `q` is
//! the previous kept position (`-1` before the first); each gap is written
//! as an unsigned LEB128 varint (7 bits a byte, low bits first, the top
//! bit set on every byte but the last), so neighbouring entries cost one
//! byte. Decoding a sparse form gives back the buffer exactly, so a
//! network read from it values every board as the one saved did.

/// The entries of a weight buffer that are not `+0.0`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparseWeights {
    /// The gaps between kept positions, LEB128 varints one after another.
    pub gaps: Vec<u8>,
    /// The kept values, in order of position.
    pub values: Vec<f32>,
}

/// The most bytes one gap takes: a `u64` in 7-bit groups.
const MAX_GAP_BYTES: usize = 10;

impl SparseWeights {
    /// The sparse form of `weights`.
    pub fn encode(weights: &[f32]) -> Self {
        let mut sparse = Self::default();
        let mut next = 0; // the position after the last kept one
        for (position, &w) in weights.iter().enumerate() {
            if w.to_bits() == 0 {
                continue;
            }
            let mut gap = (position - next) as u64;
            while gap >= 0x80 {
                sparse.gaps.push(0x80 | (gap & 0x7f) as u8);
                gap >>= 7;
            }
            sparse.gaps.push(gap as u8);
            sparse.values.push(w);
            next = position + 1;
        }
        sparse
    }

    /// Writes the buffer this form encodes into `dst` (every entry it does
    /// not name is set to 0). Checks the whole form first: on an error,
    /// naming what does not fit, `dst` is as it was.
    pub fn decode(gaps: &[u8], values: &[f32], dst: &mut [f32]) -> Result<(), String> {
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            return Err(format!("a value is {bad}, expected finite values"));
        }
        let count = positions(gaps, dst.len()).try_fold(0usize, |n, p| p.map(|_| n + 1))?;
        if count != values.len() {
            return Err(format!("{count} positions for {} values", values.len()));
        }
        // Only the entries that are not zero are written: a fresh buffer
        // (zeroed memory the system maps on first write) stays unmapped
        // but for the pages the form touches.
        dst.iter_mut().filter(|w| w.to_bits() != 0).for_each(|w| *w = 0.0);
        for (p, &v) in positions(gaps, dst.len()).zip(values) {
            dst[p.expect("checked above")] = v;
        }
        Ok(())
    }
}

/// The positions `gaps` encodes, each checked to lie below `len`; an
/// error ends the sequence.
fn positions(gaps: &[u8], len: usize) -> impl Iterator<Item = Result<usize, String>> + '_ {
    let (mut at, mut entry) = (0, 0);
    let mut next = 0u64; // the position after the last one
    std::iter::from_fn(move || {
        if at == gaps.len() {
            return None;
        }
        let (mut gap, mut shift) = (0u64, 0);
        loop {
            let Some(&byte) = gaps.get(at) else {
                return Some(Err(format!("the gaps end inside a varint at byte {at}")));
            };
            if shift / 7 == MAX_GAP_BYTES - 1 && byte > 1 {
                return Some(Err(format!("the gap at byte {at} overflows 64 bits")));
            }
            gap |= u64::from(byte & 0x7f) << shift;
            at += 1;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        let position = next.checked_add(gap).filter(|&p| p < len as u64);
        let Some(position) = position else {
            at = gaps.len(); // stop after this error
            return Some(Err(format!("entry {entry}: gap {gap} leads past the {len} weights")));
        };
        (next, entry) = (position + 1, entry + 1);
        Some(Ok(position as usize))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn neighbours_cost_one_byte_and_far_entries_more() {
        let mut w = vec![0.0f32; 1 << 20];
        (w[0], w[1], w[3], w[200], w[(1 << 20) - 1]) = (1.0, -2.0, -0.0, 0.5, 7.0);
        let sparse = SparseWeights::encode(&w);
        assert_eq!(sparse.values.len(), 5, "-0.0 is kept: its bits are not +0.0's");
        // Gaps 0, 0, 1, 196, 2^20 - 201 (3 bytes).
        assert_eq!(sparse.gaps[..4], [0, 0, 1, 0x80 | (196 & 0x7f)]);
        assert_eq!(sparse.gaps.len(), 3 + 2 + 3);
        let mut back = vec![9.0; w.len()];
        SparseWeights::decode(&sparse.gaps, &sparse.values, &mut back).unwrap();
        assert!(back.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    #[test]
    fn a_form_that_does_not_fit_is_refused_and_changes_nothing() {
        let mut dst = vec![3.0f32; 8];
        let err = |gaps: &[u8], values: &[f32], dst: &mut [f32]| SparseWeights::decode(gaps, values, dst).unwrap_err();
        assert_eq!(err(&[0, 0], &[1.0], &mut dst), "2 positions for 1 values");
        assert_eq!(err(&[0], &[1.0, 2.0], &mut dst), "1 positions for 2 values");
        assert_eq!(err(&[7, 0], &[1.0, 2.0], &mut dst), "entry 1: gap 0 leads past the 8 weights");
        assert_eq!(err(&[0x80], &[1.0], &mut dst), "the gaps end inside a varint at byte 1");
        assert_eq!(err(&[1], &[f32::NAN], &mut dst), "a value is NaN, expected finite values");
        let overflow = [0xff; 10];
        assert_eq!(err(&overflow, &[1.0], &mut dst), "the gap at byte 9 overflows 64 bits");
        assert_eq!(dst, [3.0; 8]);
        SparseWeights::decode(&[], &[], &mut dst).unwrap();
        assert_eq!(dst, [0.0; 8], "an empty form is all zeros");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any buffer comes back bit for bit.
        #[test]
        fn encode_then_decode_is_the_identity(
            entries in proptest::collection::vec((0usize..5000, -1e4f32..1e4), 0..64),
            len in 1usize..5000,
        ) {
            let mut w = vec![0.0f32; len];
            for (p, v) in entries {
                w[p % len] = v;
            }
            let sparse = SparseWeights::encode(&w);
            let mut back = vec![1.0; len];
            SparseWeights::decode(&sparse.gaps, &sparse.values, &mut back).unwrap();
            prop_assert!(back.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()));
        }

        /// Arbitrary bytes are decoded or refused, never a panic.
        #[test]
        fn arbitrary_gaps_are_decoded_or_refused(gaps in proptest::collection::vec(any::<u8>(), 0..40), n in 0usize..40) {
            let mut dst = vec![0.0f32; 300];
            let _ = SparseWeights::decode(&gaps, &vec![1.0; n], &mut dst);
        }
    }
}
