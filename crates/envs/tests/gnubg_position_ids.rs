//! Position IDs against GNU Backgammon itself: 1,000 positions from its
//! self-play, each with gnubg's ID and gnubg's board, written by
//! `data/gnubg_positions.py`. Round trips and the symmetric starting
//! position cannot tell the two sides of the key apart; these can.

use minnow_envs::backgammon::{BackgammonConfig, CHECKERS, POINTS, Position, point_action, position_id};
use minnow_envs::{Backgammon, Game, Turn};

mod gnubg;

const GOLDENS: &str = include_str!("data/gnubg_positions.txt");

/// One side of gnubg's board: checkers on that side's points 1..24, then
/// the bar, one hex digit each.
fn side(digits: &str) -> [u8; POINTS + 1] {
    let counts: Vec<u8> = digits.chars().map(|c| c.to_digit(16).expect("a hex digit") as u8).collect();
    counts.try_into().expect("25 counts")
}

/// gnubg's board as a [`Position`] seen by the player on roll: their
/// `n`-point is our point `24 - n`, and the other side's `n`-point is
/// the on-roll player's `25 - n`-point, our point `n - 1`.
fn position(on_roll: &str, off_roll: &str) -> Position {
    let (mine, theirs) = (side(on_roll), side(off_roll));
    let mut points = [0i8; POINTS];
    for i in 0..POINTS {
        points[POINTS - 1 - i] += mine[i] as i8;
        points[i] -= theirs[i] as i8;
    }
    let on = |s: &[u8; POINTS + 1]| s.iter().sum::<u8>();
    let off = [CHECKERS - on(&mine), CHECKERS - on(&theirs)];
    Position::new(points, [mine[POINTS], theirs[POINTS]], off).expect("gnubg's board is a legal position")
}

#[test]
fn every_gnubg_position_id_decodes_and_encodes_as_gnubg_does() {
    let (mut checked, mut wrong) = (0, Vec::new());
    for line in gnubg::golden_lines(GOLDENS) {
        let [id, _dice, on_roll, off_roll] = line.split(' ').collect::<Vec<_>>()[..] else {
            panic!("golden line '{line}': expected an ID, the dice and two boards");
        };
        let expected = position(on_roll, off_roll);
        let decoded = position_id::decode(id);
        let encoded = position_id::encode(&expected);
        if decoded.as_ref() != Ok(&expected) || encoded != id {
            wrong.push(format!("{id}: decoded {decoded:?}, encoded {encoded}"));
        }
        checked += 1;
    }
    gnubg::assert_all_agree(checked, 1000, &wrong);
}

#[test]
fn after_an_opening_31_the_reply_sees_its_own_start() {
    // The opener plays 31 as 8/5 6/5 (our points 16 and 18); the reply,
    // to play 21, still has the starting position. gnubg's ID here is
    // `sGfwATDgc/ABMA`.
    let mut game = Backgammon::from_position(BackgammonConfig::default(), Position::start(), 0, (3, 1)).unwrap();
    game.apply(point_action(16, 3)).unwrap();
    game.apply(point_action(18, 1)).unwrap();
    assert_eq!(game.turn(), Turn::Chance);
    assert_eq!(game.player(), 1);
    let reply = *game.position();
    assert_eq!(position_id::encode(&reply), "sGfwATDgc/ABMA");

    let decoded = position_id::decode("sGfwATDgc/ABMA").unwrap();
    assert_eq!(decoded, reply);
    let mine = |p: &Position| p.points().map(|n| n.max(0));
    assert_eq!(mine(&decoded), mine(&Position::start()), "the side to play keeps its starting checkers");
    // The opener's 5-point, 6-point and 8-point are the reply's 20-, 19-
    // and 17-points: our points 4, 5 and 7.
    assert_eq!(decoded.points()[4..8], [-2, -4, 0, -2]);
}
