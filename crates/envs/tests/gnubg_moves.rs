//! Move notation against GNU Backgammon itself: 1,200 decisions from its
//! self-play, each with the play gnubg made and the others its hint list
//! ranks best, as gnubg writes them, and the Position ID gnubg reaches
//! when it is typed back in; written by `data/gnubg_moves.py`.

use minnow_envs::backgammon::{BackgammonConfig, Play, notation, position_id};
use minnow_envs::{Backgammon, Game, Turn};

mod gnubg;

const GOLDENS: &str = include_str!("data/gnubg_moves.txt");

struct Golden<'a> {
    line: &'a str,
    game: Backgammon,
    /// Position ID after the play, the opponent on roll.
    result: &'a str,
    played: bool,
    text: &'a str,
}

fn goldens() -> Vec<Golden<'static>> {
    gnubg::golden_lines(GOLDENS)
        .map(|line| {
            let mut fields = line.splitn(5, ' ');
            let mut next = || fields.next().unwrap_or_else(|| panic!("golden line '{line}': five fields"));
            let (id, dice, result, kind, text) = (next(), next(), next(), next(), next());
            let position = position_id::decode(id).unwrap_or_else(|e| panic!("{line}: {e}"));
            let d: Vec<u8> = dice.bytes().map(|b| b - b'0').collect();
            let game = Backgammon::from_position(BackgammonConfig::default(), position, 0, (d[0], d[1])).unwrap();
            assert!(game.dice().is_some(), "{line}: gnubg had a play, so the roll can be played");
            Golden { line, game, result, played: kind == "played", text }
        })
        .collect()
}

/// Reads every golden move at its position and asks `check` about the
/// play it gives (`Some(why)` if it disagrees with gnubg); a move that
/// does not read disagrees too.
fn every_move(check: impl Fn(&Golden, &Play) -> Option<String>) {
    let goldens = goldens();
    let decisions = goldens.iter().filter(|g| g.played).count();
    assert!(decisions >= 1000, "{decisions} decisions");
    let mut wrong = Vec::new();
    for g in &goldens {
        match notation::parse(&g.game, g.text) {
            Ok(play) => wrong.extend(check(g, &play).map(|why| format!("{}: {why}", g.line))),
            Err(e) => wrong.push(format!("{}: {e}", g.line)),
        }
    }
    gnubg::assert_all_agree(goldens.len(), 4000, &wrong);
}

#[test]
fn every_gnubg_move_reads_as_the_play_gnubg_made() {
    every_move(|g, play| {
        // gnubg turns the board round after the last checker is borne off
        // as after any other play.
        let after =
            if play.after.turn() == Turn::Over { play.after.position().flipped() } else { *play.after.position() };
        let reached = position_id::encode(&after);
        (reached != g.result).then(|| format!("reached {reached}"))
    });
}

#[test]
fn every_play_is_written_as_gnubg_writes_it() {
    every_move(|g, play| {
        let written = notation::write(&g.game, play);
        (written != g.text).then(|| format!("wrote '{written}'"))
    });
}
