//! 100,000 games of random backgammon: every game ends, and after every
//! action and every roll each side still has its 15 checkers on the
//! points, the bar and off.

use minnow_envs::backgammon::{CHECKERS, ROLL_PROBABILITIES};
use minnow_envs::{Backgammon, Game, Turn};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const GAMES: u64 = 100_000;
/// Far beyond any real game (random games take a few hundred actions).
const MAX_STEPS: usize = 100_000;

/// Plays games `first..first + count`; returns (actions, rolls, passes, wins of player 0).
fn play(first: u64, count: u64) -> (u64, u64, u64, u64) {
    let mut rng = Pcg64Mcg::seed_from_u64(first);
    let mut actions = [0u16; 30];
    let (mut taken, mut rolls, mut passes, mut wins) = (0, 0, 0, 0);
    let mut game = Backgammon::default();
    for seed in first..first + count {
        game.reset(seed);
        let mut steps = 0;
        loop {
            let position = game.position();
            assert_eq!(position.checkers(), [CHECKERS as u32; 2], "game {seed}, step {steps}: {position:?}");
            steps += 1;
            assert!(steps < MAX_STEPS, "game {seed} did not end in {MAX_STEPS} steps");
            match game.turn() {
                Turn::Player(p) => {
                    let n = game.legal_actions(&mut actions);
                    assert!(n > 0, "game {seed}: a player to move without a legal action");
                    game.apply(actions[rng.random_range(0..n)] as usize).unwrap();
                    if game.turn() == Turn::Over {
                        assert_eq!(game.winner(), Some(p));
                    }
                    taken += 1;
                }
                Turn::Chance => {
                    let roller = game.player();
                    game.apply_chance(rng.random_range(0..ROLL_PROBABILITIES.len())).unwrap();
                    rolls += 1;
                    passes += (game.turn() == Turn::Chance && game.player() != roller) as u64;
                }
                Turn::Over => {
                    let (a, b) = (game.outcome(0).unwrap(), game.outcome(1).unwrap());
                    assert!(a == -b && a.abs() == 1.0);
                    assert_eq!(game.position().off()[0], CHECKERS);
                    wins += (a > 0.0) as u64;
                    break;
                }
            }
        }
    }
    (taken, rolls, passes, wins)
}

#[test]
fn random_games_end_and_conserve_checkers() {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4) as u64;
    let per_thread = GAMES / threads;
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let count = if t == threads - 1 { GAMES - per_thread * t } else { per_thread };
                s.spawn(move || play(per_thread * t, count))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (taken, rolls, passes, wins) =
        results.iter().fold((0, 0, 0, 0), |acc, r| (acc.0 + r.0, acc.1 + r.1, acc.2 + r.2, acc.3 + r.3));
    // Both seats win about half the games, and some rolls cannot be played.
    eprintln!("{taken} {rolls} {passes} {wins}");
    let share = wins as f64 / GAMES as f64;
    assert!((0.45..0.55).contains(&share), "player 0 won {share:.3} of the games");
    assert!(passes > 0 && passes < rolls / 5, "{passes} passes in {rolls} rolls");
    assert!(taken > 100 * GAMES, "{taken} actions in {GAMES} games");
}
