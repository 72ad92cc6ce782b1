//! The sum tree: `find` on hand-built trees, sampling proportions, and the
//! total against the leaves after random updates.

use minnow_rl::SumTree;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn tree(priorities: &[f32]) -> SumTree {
    let mut t = SumTree::new(priorities.len()).unwrap();
    for (i, &p) in priorities.iter().enumerate() {
        t.update(i, p);
    }
    t
}

#[test]
fn find_walks_cumulative_ranges() {
    // Cumulative ranges: 0 [0,1), 1 [1,3), 2 [3,6), 3 [6,10).
    let t = tree(&[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(t.total(), 10.0);
    let cases = [(0.0, 0), (0.999, 0), (1.0, 1), (2.999, 1), (3.0, 2), (5.999, 2), (6.0, 3), (9.999, 3)];
    for (prefix, expected) in cases {
        assert_eq!(t.find(prefix), expected, "find({prefix})");
    }
    // Rounding past either end lands on the nearest item.
    assert_eq!(t.find(-1.0), 0);
    assert_eq!(t.find(10.0), 3);
    assert_eq!(t.find(1e9), 3);
}

#[test]
fn find_skips_zero_priorities_and_padding() {
    // Capacity 5 is padded to 8 leaves; items 0, 2, 3 and the padding are 0.
    let t = tree(&[0.0, 5.0, 0.0, 0.0, 2.0]);
    assert_eq!(t.total(), 7.0);
    assert_eq!(t.find(0.0), 1);
    assert_eq!(t.find(4.99), 1);
    assert_eq!(t.find(5.0), 4);
    assert_eq!(t.find(6.99), 4);
    assert_eq!(t.find(7.0), 4);
    assert_eq!(t.find(1e9), 4);
    // A tree whose only mass is in its first leaf.
    let t = tree(&[3.0, 0.0, 0.0]);
    assert_eq!(t.find(100.0), 0);
}

#[test]
fn updates_replace_rather_than_add() {
    let mut t = tree(&[1.0, 2.0, 3.0]);
    t.update(1, 0.5);
    assert_eq!(t.total(), 4.5);
    assert_eq!(t.get(1), 0.5);
    assert_eq!(t.find(1.4), 1);
    assert_eq!(t.find(1.5), 2);
}

#[test]
fn capacity_one() {
    let mut t = SumTree::new(1).unwrap();
    t.update(0, 2.5);
    assert_eq!(t.total(), 2.5);
    assert_eq!(t.find(0.0), 0);
    assert_eq!(t.find(2.4), 0);
}

#[test]
fn capacity_zero_is_an_error() {
    let err = SumTree::new(0).unwrap_err();
    assert_eq!(err.to_string(), "SumTree.capacity: expected a value > 0, found 0");
}

#[test]
#[should_panic(expected = "SumTree::update: index 3 out of range for capacity 3")]
fn update_out_of_range_panics() {
    tree(&[1.0, 1.0, 1.0]).update(3, 1.0);
}

#[test]
#[should_panic(expected = "SumTree::find: all 2 priorities are 0")]
fn find_on_an_empty_tree_panics() {
    tree(&[0.0, 0.0]).find(0.0);
}

/// Pearson's chi-square statistic of `counts` against probabilities `p`
/// (categories of probability 0 must have count 0 and are skipped).
fn chi_square(counts: &[u64], p: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    counts
        .iter()
        .zip(p)
        .filter(|(_, p)| **p > 0.0)
        .map(|(&c, &p)| {
            let e = n as f64 * p;
            (c as f64 - e).powi(2) / e
        })
        .sum()
}

#[test]
fn stratified_sampling_is_proportional() {
    let priorities = [1.0, 2.0, 3.0, 4.0, 0.0, 10.0, 0.5];
    let t = tree(&priorities);
    let total: f64 = priorities.iter().map(|&p| p as f64).sum();
    let p: Vec<f64> = priorities.iter().map(|&q| q as f64 / total).collect();
    let mut rng = Pcg64::seed_from_u64(1);
    let mut counts = [0u64; 7];
    let mut batch = [0u32; 32];
    for _ in 0..10_000 {
        t.sample_stratified(&mut rng, &mut batch);
        for &i in &batch {
            counts[i as usize] += 1;
        }
    }
    assert_eq!(counts[4], 0, "a zero-priority item was drawn");
    // 5 degrees of freedom (6 possible items); the 0.1% critical value is
    // 20.52. Stratification only lowers the variance, so this is strict.
    let stat = chi_square(&counts, &p);
    assert!(stat < 20.52, "chi-square {stat} for counts {counts:?}");
    // And each frequency is within 1% (absolute 0.005) of its probability.
    let n: u64 = counts.iter().sum();
    for (i, (&c, &q)) in counts.iter().zip(&p).enumerate() {
        let f = c as f64 / n as f64;
        assert!((f - q).abs() < 0.005, "item {i}: frequency {f}, probability {q}");
    }
}

#[test]
fn stratified_sampling_covers_every_segment() {
    // Total 9 cut into 9 segments of 1: the draw from each segment is
    // fixed by the cumulative ranges, whatever the random offsets.
    let t = tree(&[1.0, 2.0, 4.0, 2.0]);
    let mut rng = Pcg64::seed_from_u64(2);
    let mut batch = [0u32; 9];
    for _ in 0..100 {
        t.sample_stratified(&mut rng, &mut batch);
        assert_eq!(batch, [0, 1, 1, 2, 2, 2, 2, 3, 3]);
    }
}

proptest! {
    #[test]
    fn total_is_the_sum_of_the_leaves(
        capacity in 1usize..70,
        updates in prop::collection::vec((0usize..70, 0.0f32..1000.0), 0..200),
    ) {
        let mut t = SumTree::new(capacity).unwrap();
        let mut leaves = vec![0.0f32; capacity];
        for (i, p) in updates {
            let i = i % capacity;
            t.update(i, p);
            leaves[i] = p;
        }
        let sum: f64 = leaves.iter().map(|&p| p as f64).sum();
        prop_assert!((t.total() - sum).abs() <= 1e-12 * sum.max(1.0), "total {} vs {}", t.total(), sum);
        for (i, &p) in leaves.iter().enumerate() {
            prop_assert_eq!(t.get(i), p);
        }
    }

    #[test]
    fn total_is_exact_for_dyadic_priorities(
        capacity in 1usize..70,
        updates in prop::collection::vec((0usize..70, 0u32..4096), 0..200),
    ) {
        // Multiples of 1/16 below 256 add exactly in f64 in any order.
        let mut t = SumTree::new(capacity).unwrap();
        let mut leaves = vec![0.0f32; capacity];
        for (i, q) in updates {
            let i = i % capacity;
            let p = q as f32 / 16.0;
            t.update(i, p);
            leaves[i] = p;
        }
        let sum: f64 = leaves.iter().map(|&p| p as f64).sum();
        prop_assert_eq!(t.total(), sum);
        if sum > 0.0 {
            // find agrees with a linear scan of the cumulative sums.
            let mut cumulative = 0.0;
            for (i, &p) in leaves.iter().enumerate() {
                if p > 0.0 {
                    prop_assert_eq!(t.find(cumulative), i);
                    prop_assert_eq!(t.find(cumulative + p as f64 / 2.0), i);
                }
                cumulative += p as f64;
            }
        }
    }
}
