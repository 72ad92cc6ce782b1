//! Rules from hand-worked positions, and the micro-action legal sets
//! against a brute-force enumeration of whole plays.

use super::*;
use rand::Rng;

/// A position from the mover's checkers, the opponent's (as positive
/// counts), the bars and the checkers off; panics unless it is valid.
fn position(mine: &[(usize, i8)], theirs: &[(usize, i8)], bar: [u8; 2], off: [u8; 2]) -> Position {
    let mut points = [0; POINTS];
    for &(p, n) in mine {
        points[p] += n;
    }
    for &(p, n) in theirs {
        assert_eq!(points[p], 0, "point {p} has checkers of both sides");
        points[p] -= n;
    }
    Position::new(points, bar, off).unwrap()
}

fn game(position: Position, dice: (u8, u8)) -> Backgammon {
    Backgammon::from_position(BackgammonConfig::default(), position, 0, dice).unwrap()
}

fn legal(game: &Backgammon) -> Vec<usize> {
    let mut out = [0u16; 30];
    let n = game.legal_actions(&mut out);
    out[..n].iter().map(|&a| a as usize).collect()
}

#[test]
fn the_opening_is_a_non_double_for_either_player() {
    let mut openers = [0; 2];
    let mut game = Backgammon::default();
    for seed in 0..200 {
        game.reset(seed);
        let (low, high) = game.dice().unwrap();
        assert!(low < high);
        assert_eq!(game.moves_to_play(), 2);
        assert_eq!(*game.position(), Position::start());
        openers[game.player()] += 1;
        // The same seed gives the same game.
        let mut again = Backgammon::default();
        again.reset(seed);
        assert_eq!(again, game);
    }
    assert!(openers[0] > 70 && openers[1] > 70, "{openers:?}");
}

#[test]
fn the_start_position_with_6_1() {
    // The opponent holds 5, 7, 12 and 23 in the mover's numbering. The 6
    // moves from 0, 11 or 16 (18 + 6 would bear off, but 0..18 are not
    // home); the 1 from 0, 16 or 18 (11 + 1 = 12 is closed).
    let game = game(Position::start(), (6, 1));
    let expected = vec![
        point_action(0, 1),
        point_action(0, 6),
        point_action(11, 6),
        point_action(16, 1),
        point_action(16, 6),
        point_action(18, 1),
    ];
    assert_eq!(legal(&game), expected);
}

#[test]
fn both_dice_must_be_used_when_possible() {
    // A on 0, B on 10, thirteen on 23 (stuck: not all home). Roll 6-3.
    // 6 with A (to 6) leaves no 3 (9 and 13 closed); 6 with B (to 16)
    // leaves A's 3; 3 with A (to 3) leaves B's 6; 3 with B is closed.
    let p = position(&[(0, 1), (10, 1), (23, 13)], &[(9, 2), (13, 2), (19, 2), (1, 5), (2, 4)], [0, 0], [0, 0]);
    let mut g = game(p, (6, 3));
    assert!(g.position.moves(6) & 1 == 1, "6 with A is a legal single move");
    assert_eq!(legal(&g), vec![point_action(0, 3), point_action(10, 6)]);
    g.apply(point_action(10, 6)).unwrap();
    assert_eq!(legal(&g), vec![point_action(0, 3)]);
    g.apply(point_action(0, 3)).unwrap();
    assert_eq!(g.turn(), Turn::Chance);
    assert_eq!(g.player(), 1);
}

#[test]
fn only_the_larger_die_when_just_one_can_be_played() {
    // A on 5, fourteen on 23. Roll 6-5: either die moves A, but 16 is
    // closed so the second die never can: the 6 must be played.
    let p = position(&[(5, 1), (23, 14)], &[(16, 2), (1, 13)], [0, 0], [0, 0]);
    let mut g = game(p, (5, 6));
    assert_eq!(g.moves_to_play(), 1);
    assert_eq!(legal(&g), vec![point_action(5, 6)]);
    assert_eq!(
        g.apply(point_action(5, 5)),
        Err(EnvError::IllegalMove { game: "backgammon", action: point_action(5, 5) })
    );
    g.apply(point_action(5, 6)).unwrap();
    assert_eq!(g.turn(), Turn::Chance, "the 5 cannot be played: the turn ends");
    // With 11 closed as well, the 6 cannot move and the 5 must.
    let p = position(&[(5, 1), (23, 14)], &[(16, 2), (11, 2), (1, 11)], [0, 0], [0, 0]);
    assert_eq!(legal(&game(p, (5, 6))), vec![point_action(5, 5)]);
}

#[test]
fn bearing_off_with_a_higher_die_only_from_the_rearmost_point() {
    // All home: two on 20 (4 pips), three on 22 (2 pips), ten off.
    let p = position(&[(20, 2), (22, 3)], &[(3, 15)], [0, 0], [10, 0]);
    let g = game(p, (5, 1));
    // The 5 bears off from 20 (nothing on 19 or behind it), not from 22;
    // the 1 moves 20 -> 21 or 22 -> 23.
    assert_eq!(legal(&g), vec![point_action(20, 1), point_action(20, 5), point_action(22, 1)]);
    // Exact bear-off with a checker behind: 4 from 20, 2 from 22, and no
    // higher-die bear-off from 22 while 20 is occupied.
    let g = game(p, (4, 3));
    assert_eq!(legal(&g), vec![point_action(20, 3), point_action(20, 4)]);
}

#[test]
fn bearing_off_needs_every_checker_home_and_opens_mid_turn() {
    // One straggler on 17, fourteen on 23; roll 6-6.
    let p = position(&[(17, 1), (23, 14)], &[(3, 15)], [0, 0], [0, 0]);
    let mut g = game(p, (6, 6));
    assert_eq!(legal(&g), vec![point_action(17, 6)], "no bear-off while 17 is outside home");
    g.apply(point_action(17, 6)).unwrap();
    // 17 + 6 = 23: all home, now the 6 bears off from the rearmost point.
    assert_eq!(legal(&g), vec![point_action(23, 6)]);
    g.apply(point_action(23, 6)).unwrap();
    g.apply(point_action(23, 6)).unwrap();
    g.apply(point_action(23, 6)).unwrap();
    assert_eq!(g.turn(), Turn::Chance);
    // Seen by the opponent, who rolls next.
    assert_eq!(g.position().off(), [0, 3]);
}

#[test]
fn a_checker_on_the_bar_must_enter_before_anything_else() {
    // One on the bar; roll 3-5. The opponent holds point 2 (3 - 1), so
    // only the 5 enters; then the 3 may move anything.
    let p = position(&[(10, 4), (18, 10)], &[(2, 2), (23, 13)], [1, 0], [0, 0]);
    let mut g = game(p, (3, 5));
    assert_eq!(legal(&g), vec![bar_action(5)]);
    g.apply(bar_action(5)).unwrap();
    assert_eq!(legal(&g), vec![point_action(4, 3), point_action(10, 3), point_action(18, 3)]);
    // Two on the bar: both dice enter, nothing else.
    let p = position(&[(10, 3), (18, 10)], &[(23, 15)], [2, 0], [0, 0]);
    let mut g = game(p, (3, 5));
    assert_eq!(legal(&g), vec![bar_action(3), bar_action(5)]);
    g.apply(bar_action(3)).unwrap();
    assert_eq!(legal(&g), vec![bar_action(5)]);
    // Entry closed for both dice: the turn passes to the opponent's roll.
    let p = position(&[(10, 3), (18, 10)], &[(2, 2), (4, 2), (23, 11)], [2, 0], [0, 0]);
    let g = game(p, (3, 5));
    assert_eq!(g.turn(), Turn::Chance);
    assert_eq!(g.player(), 1);
    assert_eq!(g.position().bar(), [0, 2], "seen by the opponent now");
}

#[test]
fn a_hit_sends_the_blot_to_the_bar() {
    let p = position(&[(0, 15)], &[(3, 1), (23, 14)], [0, 0], [0, 0]);
    let mut g = game(p, (3, 1));
    g.apply(point_action(0, 3)).unwrap();
    assert_eq!(g.position().bar(), [0, 1]);
    assert_eq!(g.position().points()[3], 1);
    assert_eq!(g.position().checkers(), [15, 15]);
    g.apply(point_action(0, 1)).unwrap();
    // The opponent is on roll and must enter from the bar.
    assert_eq!(g.player(), 1);
    assert_eq!(g.position().bar(), [1, 0]);
    g.apply_chance(roll_index(2, 4).unwrap()).unwrap();
    assert_eq!(legal(&g), vec![bar_action(2), bar_action(4)]);
}

#[test]
fn doubles_play_four_times_or_as_many_as_they_can() {
    let mut g = game(Position::start(), (1, 1));
    assert_eq!(g.moves_to_play(), 4);
    for _ in 0..4 {
        assert_eq!(g.turn(), Turn::Player(0));
        let a = legal(&g)[0];
        g.apply(a).unwrap();
    }
    assert_eq!(g.turn(), Turn::Chance);
    // One runner on 4, fourteen stuck on 23, 22 closed: 6-6 plays twice.
    let p = position(&[(4, 1), (23, 14)], &[(22, 2), (1, 13)], [0, 0], [0, 0]);
    let mut g = game(p, (6, 6));
    assert_eq!(g.moves_to_play(), 2);
    assert_eq!(g.dice_left(), [0, 0, 0, 0, 0, 4]);
    g.apply(point_action(4, 6)).unwrap();
    g.apply(point_action(10, 6)).unwrap();
    assert_eq!(g.turn(), Turn::Chance);
}

#[test]
fn the_last_checker_off_wins_and_gammons_score_with_the_flag() {
    let p = position(&[(23, 1)], &[(20, 1), (0, 14)], [0, 0], [14, 0]);
    let config = BackgammonConfig { scored_wins: true };
    let mut g = Backgammon::from_position(config, p, 1, (6, 2)).unwrap();
    // The 6 wins at once; so does the 2 (the game ends, the 6 unused).
    assert_eq!(legal(&g), vec![point_action(23, 2), point_action(23, 6)]);
    g.apply(point_action(23, 2)).unwrap();
    assert_eq!(g.turn(), Turn::Over);
    assert_eq!(g.winner(), Some(1));
    // The loser has a checker in the winner's home board: a backgammon.
    assert_eq!((g.outcome(1), g.outcome(0)), (Some(3.0), Some(-3.0)));
    assert_eq!((g.points(1), g.points(0)), (Some(3.0), Some(-3.0)));
    let p = position(&[(23, 1)], &[(0, 15)], [0, 0], [14, 0]);
    let mut g = Backgammon::from_position(config, p, 0, (6, 2)).unwrap();
    g.apply(point_action(23, 6)).unwrap();
    assert_eq!(g.outcome(0), Some(2.0), "a gammon");
    let mut g = game(p, (6, 2));
    g.apply(point_action(23, 6)).unwrap();
    assert_eq!((g.outcome(0), g.outcome(1)), (Some(1.0), Some(-1.0)), "without the flag every win is 1");
    assert_eq!((g.points(0), g.points(1)), (Some(2.0), Some(-2.0)), "points count the gammon all the same");
    let p = position(&[(23, 1)], &[(0, 14)], [0, 0], [14, 1]);
    let mut g = Backgammon::from_position(config, p, 0, (6, 2)).unwrap();
    g.apply(point_action(23, 6)).unwrap();
    assert_eq!(g.outcome(0), Some(1.0), "the loser bore off one: a single game");
}

#[test]
fn bad_calls_are_errors_and_leave_the_state_alone() {
    let mut g = game(Position::start(), (6, 1));
    let before = g;
    assert!(matches!(g.apply(156), Err(EnvError::ActionOutOfRange { action: 156, .. })));
    assert!(matches!(g.apply(3), Err(EnvError::IllegalMove { action: 3, .. })), "the no-op");
    assert!(matches!(g.apply(point_action(1, 1)), Err(EnvError::IllegalMove { .. })), "an empty point");
    assert!(matches!(g.apply(bar_action(1)), Err(EnvError::IllegalMove { .. })), "an empty bar");
    assert!(matches!(g.apply_chance(0), Err(EnvError::WrongTurn { expected: "a chance node", .. })));
    assert_eq!(g, before);
    g.apply(point_action(0, 6)).unwrap();
    g.apply(point_action(0, 1)).unwrap();
    let before = g;
    assert!(matches!(g.apply(point_action(0, 1)), Err(EnvError::WrongTurn { found: "a chance node", .. })));
    assert!(matches!(g.apply_chance(21), Err(EnvError::OutcomeOutOfRange { outcome: 21, .. })));
    assert_eq!(g, before);
    assert!(matches!(
        Backgammon::from_position(BackgammonConfig::default(), Position::start(), 0, (0, 3)),
        Err(EnvError::InvalidDie { die: 0, .. })
    ));
    assert!(matches!(
        Position::new([0; POINTS], [0, 0], [15, 14]),
        Err(EnvError::CheckerCount { player: 1, found: 14, .. })
    ));
    // Over: every action and outcome is refused.
    let p = position(&[(23, 1)], &[(0, 15)], [0, 0], [14, 0]);
    let mut g = game(p, (6, 2));
    g.apply(point_action(23, 6)).unwrap();
    let before = g;
    assert!(matches!(g.apply(point_action(23, 2)), Err(EnvError::WrongTurn { found: "the game over", .. })));
    assert!(matches!(g.apply_chance(0), Err(EnvError::WrongTurn { found: "the game over", .. })));
    assert_eq!(g, before);
    assert_eq!(g.legal_actions(&mut [0; 30]), 0);
    assert_eq!(g.chance_outcomes(&mut [0.0; 21]), 0);
}

#[test]
fn the_observation_is_from_the_movers_view() {
    let p = position(&[(0, 5), (11, 1), (23, 8)], &[(3, 2), (12, 13)], [1, 0], [0, 0]);
    let g = game(p, (2, 2));
    let mut out = [0.0; OBSERVATION_SIZE];
    g.observe(&mut out);
    assert_eq!(&out[0..4], &[1.0, 1.0, 1.0, 1.0]);
    assert_eq!(&out[44..48], &[1.0, 0.0, 0.0, 0.0]);
    assert_eq!(&out[92..96], &[1.0, 1.0, 1.0, 2.5]);
    assert_eq!(&out[96 + 12..96 + 16], &[1.0, 1.0, 0.0, 0.0]);
    assert_eq!(&out[96 + 48..96 + 52], &[1.0, 1.0, 1.0, 5.0]);
    assert_eq!(&out[192..196], &[0.5, 0.0, 0.0, 0.0]);
    assert_eq!(&out[196..202], &[0.0, 2.0, 0.0, 0.0, 0.0, 0.0]);
    // At the opponent's roll the view turns round and the dice are gone.
    let mut g = game(Position::start(), (6, 1));
    g.apply(point_action(16, 6)).unwrap();
    g.apply(point_action(18, 1)).unwrap();
    g.observe(&mut out);
    assert_eq!(&out[196..202], &[0.0; 6]);
    // The opponent's own 8-point (index 16) now holds 3 of theirs = mover's.
    assert_eq!(&out[64..68], &[1.0, 1.0, 1.0, 0.0]);
    // The first player's checker moved 16 -> 22 is at 23 - 22 = 1 for them.
    assert_eq!(&out[96 + 4..96 + 8], &[1.0, 0.0, 0.0, 0.0]);
}

/// A brute-force reference: every single-die move sequence of a roll by the
/// rules as written, from a plain board.
mod reference {
    use super::super::position::BAR;

    #[derive(Clone, Copy)]
    pub struct Board {
        pub points: [i32; 24],
        pub bar: i32,
        pub off: i32,
    }

    /// The target of a single-die move, or `None` if it is illegal. 24 is off.
    fn target(b: &Board, source: u32, die: i32) -> Option<usize> {
        if b.bar > 0 {
            if source != BAR {
                return None;
            }
            let t = die as usize - 1;
            return (b.points[t] >= -1).then_some(t);
        }
        if source == BAR || b.points[source as usize] <= 0 {
            return None;
        }
        let p = source as i32;
        let t = p + die;
        if t <= 23 {
            return (b.points[t as usize] >= -1).then_some(t as usize);
        }
        let all_home = (0..18).all(|q| b.points[q] <= 0);
        let rearmost = (0..p as usize).all(|q| b.points[q] <= 0);
        (all_home && (t == 24 || rearmost)).then_some(24)
    }

    fn play(b: &Board, source: u32, t: usize) -> Board {
        let mut b = *b;
        if source == BAR {
            b.bar -= 1;
        } else {
            b.points[source as usize] -= 1;
        }
        if t == 24 {
            b.off += 1;
        } else {
            if b.points[t] == -1 {
                b.points[t] = 0;
            }
            b.points[t] += 1;
        }
        b
    }

    /// All move sequences (as actions) using the dice in order, each cut
    /// short where no move exists; a win counts as using the dice left.
    fn sequences(b: &Board, dice: &[i32], prefix: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, usize)>) {
        if dice.is_empty() || b.off == 15 {
            let used = prefix.len() + if b.off == 15 { dice.len() } else { 0 };
            out.push((prefix.clone(), used));
            return;
        }
        let mut any = false;
        for source in (0..24).chain([BAR]) {
            if let Some(t) = target(b, source, dice[0]) {
                any = true;
                let code = if source == BAR { 1 } else { 2 + source as usize };
                prefix.push(6 * code + dice[0] as usize - 1);
                sequences(&play(b, source, t), &dice[1..], prefix, out);
                prefix.pop();
            }
        }
        if !any {
            out.push((prefix.clone(), prefix.len()));
        }
    }

    /// The legal whole plays of `dice` (each a list of actions).
    pub fn legal_plays(b: &Board, dice: (i32, i32)) -> Vec<Vec<usize>> {
        let mut all = Vec::new();
        if dice.0 == dice.1 {
            sequences(b, &[dice.0; 4], &mut Vec::new(), &mut all);
        } else {
            sequences(b, &[dice.0, dice.1], &mut Vec::new(), &mut all);
            sequences(b, &[dice.1, dice.0], &mut Vec::new(), &mut all);
        }
        let most = all.iter().map(|s| s.1).max().unwrap();
        let mut plays: Vec<Vec<usize>> = all.into_iter().filter(|s| s.1 == most).map(|s| s.0).collect();
        if most == 1 && dice.0 != dice.1 {
            let high = dice.0.max(dice.1) as usize - 1;
            if plays.iter().any(|p| p[0] % 6 == high) {
                plays.retain(|p| p[0] % 6 == high);
            }
        }
        plays
    }
}

/// Plays the turn of `g` (a player to move) with random legal actions,
/// checking at every decision that the legal actions are the next actions
/// of the reference's legal plays continuing the actions already taken,
/// and that the turn ends exactly when a whole legal play is taken.
/// Returns the actions taken.
fn play_turn_against_reference(g: &mut Backgammon, rng: &mut impl Rng, context: &str) -> Vec<usize> {
    let p = g.position();
    let board =
        reference::Board { points: p.points().map(|n| n as i32), bar: p.bar()[0] as i32, off: p.off()[0] as i32 };
    let (low, high) = g.dice().unwrap();
    let plays = reference::legal_plays(&board, (low as i32, high as i32));
    let player = g.player();
    let mut taken: Vec<usize> = Vec::new();
    while g.turn() == Turn::Player(player) {
        let mut expected: Vec<usize> =
            plays.iter().filter(|p| p.starts_with(&taken) && p.len() > taken.len()).map(|p| p[taken.len()]).collect();
        expected.sort_unstable();
        expected.dedup();
        let actions = legal(g);
        assert_eq!(actions, expected, "{context}, roll {low}-{high}, after {taken:?}: {:?}", g.position());
        let a = actions[rng.random_range(0..actions.len())];
        g.apply(a).unwrap();
        assert!(g.position().masks_match_points(), "{context}: {:?}", g.position());
        taken.push(a);
    }
    assert!(plays.contains(&taken), "{context}: {taken:?} is not a legal play");
    taken
}

/// A random valid position, often a bear-off (all the mover's checkers
/// home, some off), sometimes with checkers on the bars.
fn random_position(rng: &mut impl Rng) -> Position {
    let mut points = [0i8; POINTS];
    let (mut bar, mut off) = ([0u8; 2], [0u8; 2]);
    let bearing_off = rng.random_bool(0.4);
    off[0] = if bearing_off { rng.random_range(0..15) } else { rng.random_range(0..3) };
    let mut left = CHECKERS - off[0];
    if !bearing_off && rng.random_bool(0.25) {
        bar[0] = rng.random_range(1..=left.min(3));
        left -= bar[0];
    }
    for _ in 0..left {
        points[if bearing_off { rng.random_range(18..POINTS) } else { rng.random_range(0..POINTS) }] += 1;
    }
    off[1] = rng.random_range(0..4);
    bar[1] = rng.random_bool(0.2) as u8;
    let mut left = CHECKERS - off[1] - bar[1];
    while left > 0 {
        let p = rng.random_range(0..POINTS);
        if points[p] <= 0 {
            points[p] -= 1;
            left -= 1;
        }
    }
    Position::new(points, bar, off).unwrap()
}

/// Whole turns from random positions (many bear-offs and bar entries)
/// against the reference, for every roll.
#[test]
fn micro_actions_match_brute_force_from_random_positions() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(12);
    let (mut passes, mut wins) = (0, 0);
    for i in 0..4000 {
        let position = random_position(&mut rng);
        let (low, high) = ROLL_DICE[i % ROLLS];
        let mut g = game(position, (low, high));
        let context = format!("position {i}: {position:?}");
        if g.turn() == Turn::Chance {
            // The roll was passed: the reference must find no move either.
            let board = reference::Board {
                points: position.points().map(|n| n as i32),
                bar: position.bar()[0] as i32,
                off: position.off()[0] as i32,
            };
            let plays = reference::legal_plays(&board, (low as i32, high as i32));
            assert!(plays.iter().all(|p| p.is_empty()), "{context}: {plays:?}");
            passes += 1;
            continue;
        }
        play_turn_against_reference(&mut g, &mut rng, &context);
        wins += (g.turn() == Turn::Over) as u32;
    }
    assert!(passes > 10 && wins > 50, "{passes} passes, {wins} wins");
}

/// Random games where, at every decision, the legal actions must be the
/// next actions of the reference's legal plays that continue the actions
/// already taken this turn.
#[test]
fn micro_actions_match_brute_force_whole_plays() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
    let mut decisions = 0;
    let mut short_turns = 0;
    for seed in 0..300 {
        let mut g = Backgammon::default();
        g.reset(seed);
        let mut steps = 0;
        while g.turn() != Turn::Over {
            steps += 1;
            assert!(steps < 20_000, "game {seed} does not end");
            assert!(g.position().masks_match_points(), "game {seed}: {:?}", g.position());
            if g.turn() == Turn::Chance {
                g.apply_chance(rng.random_range(0..ROLLS)).unwrap();
                continue;
            }
            let (low, high) = g.dice().unwrap();
            let taken = play_turn_against_reference(&mut g, &mut rng, &format!("game {seed}"));
            decisions += taken.len();
            short_turns += (taken.len() < if low == high { 4 } else { 2 }) as u32;
        }
    }
    assert!(decisions > 50_000, "{decisions} decisions");
    assert!(short_turns > 100, "only {short_turns} turns could not use the whole roll");
}
