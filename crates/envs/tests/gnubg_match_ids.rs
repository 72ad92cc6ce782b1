//! Match IDs against GNU Backgammon itself: 1,801 distinct IDs from its
//! self-play with the cube (money and matches of 1 to 11 points) and from
//! states set up by hand, each beside the state gnubg reports, written by
//! `data/gnubg_match_ids.py`.

use minnow_envs::backgammon::match_id::{self, GameState, MatchState};

mod gnubg;

const GOLDENS: &str = include_str!("data/gnubg_match_ids.txt");

/// gnubg's report of one state: cube, owner (-1 centred), on roll,
/// Crawford, game state, turn, doubled, resigned, two dice (0 0 before
/// the roll, in either order), length, two scores, Jacoby.
fn state(fields: &[i64]) -> MatchState {
    let [cube, owner, on_roll, crawford, state, turn, doubled, resigned, d0, d1, length, s0, s1, jacoby] = fields[..]
    else {
        panic!("expected 14 fields, found {}", fields.len());
    };
    let states = [GameState::NoGame, GameState::Playing, GameState::Over, GameState::Resigned, GameState::Dropped];
    MatchState {
        cube: cube as u32,
        cube_owner: (owner >= 0).then_some(owner as usize),
        on_roll: on_roll as usize,
        crawford: crawford == 1,
        state: states[state as usize],
        turn: turn as usize,
        doubled: doubled == 1,
        resigned: (resigned > 0).then_some(resigned as u8),
        dice: (d0 > 0).then_some(((d0.max(d1)) as u8, d0.min(d1) as u8)),
        length: length as u16,
        score: [s0 as u16, s1 as u16],
        jacoby: jacoby == 1,
    }
}

#[test]
fn every_gnubg_match_id_decodes_and_encodes_as_gnubg_does() {
    let (mut checked, mut wrong) = (0, Vec::new());
    let mut seen = [false; 5];
    for line in gnubg::golden_lines(GOLDENS) {
        let mut words = line.split(' ');
        let id = words.next().expect("an ID");
        let fields: Vec<i64> = words.map(|w| w.parse().expect("a number")).collect();
        let expected = state(&fields);
        seen[fields[4] as usize] = true;
        let decoded = match_id::decode(id);
        let encoded = match_id::encode(&expected);
        if decoded.as_ref() != Ok(&expected) || encoded != id {
            wrong.push(format!("{line}: decoded {decoded:?}, encoded {encoded}"));
        }
        checked += 1;
    }
    assert_eq!(seen, [false, true, true, true, true], "game states covered");
    gnubg::assert_all_agree(checked, 1000, &wrong);
}
