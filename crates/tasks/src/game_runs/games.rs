//! Which game a run plays next and which games a metrics line averages:
//! fixed by the run's seed and length alone, so a resumed run plays and
//! logs what an uninterrupted one does.

/// Training game `k` of a run seeded `seed` starts from this seed: the
/// same game in every run of that seed, resumed or not.
pub fn game_seed(seed: u64, k: u64) -> u64 {
    seed.rotate_left(32) ^ k
}

/// Games a metrics line averages over in a run of `games`: a thousandth
/// of the run (at least one), so a curve has about a thousand points.
pub fn games_per_line(games: u64) -> u64 {
    (games / 1000).max(1)
}

/// Whether the game just played, the run's `played`th of `games`, ends a
/// metrics line (every [`games_per_line`], and the run's last).
pub fn ends_line(played: u64, games: u64) -> bool {
    played.is_multiple_of(games_per_line(games)) || played == games
}
