//! The 21 distinct rolls of two dice, as chance outcomes.

/// Distinct rolls: 6 doubles and 15 pairs of different dice.
pub const ROLLS: usize = 21;

/// Roll `i` as `(low, high)`, in order (1,1), (1,2), .. (1,6), (2,2), ..
/// (6,6).
pub const ROLL_DICE: [(u8, u8); ROLLS] = {
    let mut rolls = [(0, 0); ROLLS];
    let mut i = 0;
    let mut low = 1;
    while low <= 6 {
        let mut high = low;
        while high <= 6 {
            rolls[i] = (low, high);
            i += 1;
            high += 1;
        }
        low += 1;
    }
    rolls
};

/// The chance of each roll: 1/36 for a double, 2/36 for two different dice.
pub const ROLL_PROBABILITIES: [f32; ROLLS] = {
    let mut p = [0.0; ROLLS];
    let mut i = 0;
    while i < ROLLS {
        p[i] = if ROLL_DICE[i].0 == ROLL_DICE[i].1 { 1.0 / 36.0 } else { 2.0 / 36.0 };
        i += 1;
    }
    p
};

/// The 15 non-doubles (indices into [`ROLL_DICE`]): the possible opening rolls.
pub const OPENING_ROLLS: [usize; 15] = {
    let mut rolls = [0; 15];
    let (mut i, mut n) = (0, 0);
    while i < ROLLS {
        if ROLL_DICE[i].0 != ROLL_DICE[i].1 {
            rolls[n] = i;
            n += 1;
        }
        i += 1;
    }
    rolls
};

/// The index of the roll of `a` and `b` (in either order), if both are 1..=6.
pub fn roll_index(a: u8, b: u8) -> Option<usize> {
    let (low, high) = (a.min(b), a.max(b));
    if !(1..=6).contains(&low) || high > 6 {
        return None;
    }
    ROLL_DICE.iter().position(|&r| r == (low, high))
}

/// A roll drawn with the dice's probabilities: an index into
/// [`ROLL_DICE`].
pub fn random_roll(rng: &mut impl rand::Rng) -> usize {
    let mut u: f32 = rng.random();
    for (k, &p) in ROLL_PROBABILITIES.iter().enumerate() {
        if u < p {
            return k;
        }
        u -= p;
    }
    ROLLS - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_cover_all_36_ordered_pairs() {
        let total: f32 = ROLL_PROBABILITIES.iter().sum();
        assert!((total - 1.0).abs() < 1e-6);
        for a in 1..=6 {
            for b in 1..=6 {
                let i = roll_index(a, b).unwrap();
                assert_eq!(ROLL_DICE[i], (a.min(b), a.max(b)));
            }
        }
        assert_eq!(roll_index(0, 3), None);
        assert_eq!(roll_index(2, 7), None);
        assert_eq!(ROLL_DICE[20], (6, 6));
    }
}
