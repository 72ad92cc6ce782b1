//! Fixed wiring of a gate layer: which two inputs each gate reads. Wiring
//! is drawn once from a seeded generator and never trained.

use crate::{LayerName, LogicError, Result};
use rand::Rng;
use rand::seq::SliceRandom;

/// Inputs `a[i]` and `b[i]` of gate i of one layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wiring {
    /// First input of each gate, an index into the layer's inputs.
    pub a: Vec<u32>,
    /// Second input of each gate.
    pub b: Vec<u32>,
}

impl Wiring {
    /// Gates in the layer.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether the layer has no gates.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// The pairs, in gate order.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.a.iter().copied().zip(self.b.iter().copied())
    }

    /// "Unique" wiring of `outputs` gates reading `inputs` values (needs
    /// `2 * outputs >= inputs`, so every input is read): pairs (0,1),
    /// (2,3), ...; if fewer than `outputs`, then (1,2), (3,4), ...; then
    /// (i, i + off) for off = 2, 3, ... until there are enough; truncated
    /// to `outputs`, then the gate order permuted by `rng`.
    pub fn unique(layer: LayerName, inputs: usize, outputs: usize, rng: &mut impl Rng) -> Result<Self> {
        let error = LogicError::UniqueWiring { layer, inputs, outputs };
        if outputs == 0 || inputs == 0 || 2 * outputs < inputs {
            return Err(error);
        }
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(outputs + inputs);
        pairs.extend((0..inputs / 2).map(|i| (2 * i as u32, 2 * i as u32 + 1)));
        if pairs.len() < outputs {
            pairs.extend((0..(inputs - 1) / 2).map(|i| (2 * i as u32 + 1, 2 * i as u32 + 2)));
        }
        let mut offset = 2;
        while pairs.len() < outputs && offset < inputs {
            pairs.extend((0..inputs - offset).map(|i| (i as u32, (i + offset) as u32)));
            offset += 1;
        }
        if pairs.len() < outputs {
            // Only one input: no pair of distinct inputs exists.
            return Err(error);
        }
        pairs.truncate(outputs);
        pairs.shuffle(rng);
        Ok(Self { a: pairs.iter().map(|p| p.0).collect(), b: pairs.iter().map(|p| p.1).collect() })
    }

    /// "Random" wiring as the reference draws it: a random permutation of
    /// 2 * outputs slots taken modulo `inputs`, mapped through a random
    /// permutation of the inputs, so each input is read about equally often.
    pub fn random(layer: LayerName, inputs: usize, outputs: usize, rng: &mut impl Rng) -> Result<Self> {
        if outputs == 0 || inputs == 0 {
            return Err(LogicError::LayerWidth {
                layer,
                expected: "at least one input and one gate",
                found: inputs.min(outputs),
            });
        }
        let mut slots: Vec<u32> = (0..2 * outputs as u32).collect();
        slots.shuffle(rng);
        let mut map: Vec<u32> = (0..inputs as u32).collect();
        map.shuffle(rng);
        let c: Vec<u32> = slots.iter().map(|&s| map[s as usize % inputs]).collect();
        Ok(Self { a: c[..outputs].to_vec(), b: c[outputs..].to_vec() })
    }

    /// The first perception layer: 8 gates, gate j reading
    /// (neighbour n[pi(j)], centre) of a 3x3 patch in row-major order
    /// (centre 4), n = [0, 1, 2, 3, 5, 6, 7, 8], pi a random permutation.
    pub fn moore(rng: &mut impl Rng) -> Self {
        let mut a = vec![0u32, 1, 2, 3, 5, 6, 7, 8];
        a.shuffle(rng);
        Self { a, b: vec![4; 8] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const T: LayerName = LayerName::new("t", 0);

    fn rng() -> rand_pcg::Pcg64 {
        rand_pcg::Pcg64::seed_from_u64(7)
    }

    fn sorted(w: &Wiring) -> Vec<(u32, u32)> {
        let mut p: Vec<_> = w.pairs().collect();
        p.sort();
        p
    }

    #[test]
    fn unique_wiring_follows_the_reference_construction() {
        // 8 -> 4: (0,1) (2,3) (4,5) (6,7).
        let w = Wiring::unique(T, 8, 4, &mut rng()).unwrap();
        assert_eq!(sorted(&w), vec![(0, 1), (2, 3), (4, 5), (6, 7)]);
        // 4 -> 4: (0,1) (2,3), then (1,2), then offset 2: (0,2).
        let w = Wiring::unique(T, 4, 4, &mut rng()).unwrap();
        assert_eq!(sorted(&w), vec![(0, 1), (0, 2), (1, 2), (2, 3)]);
        // 5 -> 6: (0,1) (2,3); (1,2) (3,4); offset 2: (0,2) (1,3) [truncated].
        let w = Wiring::unique(T, 5, 6, &mut rng()).unwrap();
        assert_eq!(sorted(&w), vec![(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (3, 4)]);
        // 264 -> 256: all of (0,1)..(262,263), then (1,2)..(247,248).
        let w = Wiring::unique(T, 264, 256, &mut rng()).unwrap();
        let s = sorted(&w);
        assert!(s.contains(&(262, 263)) && s.contains(&(247, 248)) && !s.contains(&(249, 250)));
        let mut seen = vec![0; 264];
        for (a, b) in w.pairs() {
            seen[a as usize] += 1;
            seen[b as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n >= 1), "every input is read");
        // 256 -> 256: 128 + 127 + (0, 2).
        let w = Wiring::unique(T, 256, 256, &mut rng()).unwrap();
        let s = sorted(&w);
        assert!(s.contains(&(0, 2)) && s.contains(&(253, 254)) && !s.contains(&(1, 3)));
    }

    #[test]
    fn unique_wiring_is_permuted_and_seeded() {
        let a = Wiring::unique(T, 256, 256, &mut rng()).unwrap();
        let b = Wiring::unique(T, 256, 256, &mut rng()).unwrap();
        let c = Wiring::unique(T, 256, 256, &mut rand_pcg::Pcg64::seed_from_u64(8)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a.pairs().take(4).collect::<Vec<_>>(), vec![(0, 1), (2, 3), (4, 5), (6, 7)]);
    }

    #[test]
    fn unique_wiring_rejects_too_few_gates() {
        let layer = LayerName::new("update", 3);
        let e = Wiring::unique(layer, 9, 4, &mut rng()).unwrap_err();
        assert!(matches!(e, LogicError::UniqueWiring { layer: l, inputs: 9, outputs: 4 } if l == layer), "{e:?}");
        assert!(e.to_string().starts_with("layer update.3:"), "{e}");
        assert!(e.to_string().contains("2 * outputs >= inputs"));
        assert!(Wiring::unique(T, 1, 1, &mut rng()).is_err());
        assert!(Wiring::unique(T, 4, 0, &mut rng()).is_err());
    }

    #[test]
    fn moore_wiring_pairs_each_neighbour_with_the_centre() {
        let w = Wiring::moore(&mut rng());
        let mut a = w.a.clone();
        a.sort();
        assert_eq!(a, vec![0, 1, 2, 3, 5, 6, 7, 8]);
        assert!(w.b.iter().all(|&b| b == 4));
    }

    #[test]
    fn random_wiring_reads_inputs_evenly() {
        let w = Wiring::random(T, 10, 20, &mut rng()).unwrap();
        let mut seen = [0; 10];
        for (a, b) in w.pairs() {
            seen[a as usize] += 1;
            seen[b as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n == 4));
    }
}
