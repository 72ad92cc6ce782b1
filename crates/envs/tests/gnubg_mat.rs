//! `.mat` export against GNU Backgammon itself. Ten seeded games of
//! random legal plays (hits, the bar, rolls that cannot be played,
//! gammons) are written to `data/minnow_games.mat`; `data/gnubg_mat.py`
//! has gnubg import that file and write, turn by turn, what it read:
//! the position, the roll and the play in its own notation, and each
//! game's winner and points (`data/gnubg_mat.txt`). These tests hold the
//! writer to the committed file, read it back, and hold every turn to
//! what gnubg read.
//!
//! After a deliberate change to the writer, regenerate both files:
//! `MINNOW_WRITE_GOLDENS=1 cargo test -p minnow-envs --test gnubg_mat`,
//! then `gnubg -t -q -p gnubg_mat.py` in `tests/data`.

use minnow_envs::backgammon::mat::{self, GameRecord, MatchRecord, TurnRecord};
use minnow_envs::backgammon::{BackgammonConfig, Position, ROLL_DICE, ROLLS, TurnPlays, notation, position_id};
use minnow_envs::{Backgammon, Game, Turn};
use rand::{Rng, SeedableRng};

mod gnubg;

const EXPORTED: &str = include_str!("data/minnow_games.mat");
const IMPORTED: &str = include_str!("data/gnubg_mat.txt");
const GAMES: u64 = 10;

/// Game `seed`: the seeded opening, then uniform rolls and uniformly
/// chosen plays.
fn random_game(seed: u64) -> GameRecord {
    let mut game = Backgammon::new(BackgammonConfig { scored_wins: true });
    game.reset(seed);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut plays = TurnPlays::new();
    let mut record = GameRecord::default();
    let mut dice = game.dice().map(|(low, high)| (high, low));
    loop {
        match game.turn() {
            Turn::Over => return record,
            Turn::Chance => {
                let player = game.player();
                let (low, high) = ROLL_DICE[rng.random_range(0..ROLLS)];
                game.apply_chance(ROLL_DICE.iter().position(|&r| r == (low, high)).unwrap()).unwrap();
                if game.turn() == Turn::Chance {
                    record.turns.push(TurnRecord { player, dice: (high, low), play: None });
                } else {
                    dice = Some((high, low));
                }
            }
            Turn::Player(player) => {
                let listed = plays.generate(&game);
                let play = listed[rng.random_range(0..listed.len())];
                record.turns.push(TurnRecord { player, dice: dice.expect("rolled"), play: Some(play) });
                game = play.after;
            }
        }
    }
}

fn session() -> MatchRecord {
    MatchRecord { names: ["minnow".into(), "rival".into()], length: 0, games: (0..GAMES).map(random_game).collect() }
}

#[test]
fn the_written_session_is_the_file_gnubg_imported() {
    let written = mat::write(&session()).unwrap();
    if std::env::var_os("MINNOW_WRITE_GOLDENS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/minnow_games.mat");
        std::fs::write(path, &written).unwrap();
    }
    assert!(written == EXPORTED, "the writer's output changed; see this file's docs to regenerate the goldens");
}

#[test]
fn the_file_reads_back_as_the_session() {
    assert_eq!(mat::parse(EXPORTED).unwrap(), session());
}

/// gnubg's record of one turn: the Position ID before it (player on
/// roll's view), the roll, and the play as gnubg writes it (`-` in the
/// file, "" here, when the roll cannot be played).
struct ImportedTurn<'a> {
    id: &'a str,
    dice: (u8, u8),
    play: &'a str,
}

/// What gnubg read, by game: the turns, and the winner and points.
fn imported() -> Vec<(Vec<ImportedTurn<'static>>, (usize, u16))> {
    let mut games = Vec::new();
    let mut turns = Vec::new();
    for line in gnubg::golden_lines(IMPORTED) {
        let fields: Vec<&str> = line.splitn(4, ' ').collect();
        match fields[..] {
            ["turn", id, dice, play] => {
                let d = dice.as_bytes();
                let play = if play == "-" { "" } else { play };
                turns.push(ImportedTurn { id, dice: (d[0] - b'0', d[1] - b'0'), play });
            }
            ["wins", winner, points] => {
                games.push((std::mem::take(&mut turns), (winner.parse().unwrap(), points.parse().unwrap())))
            }
            _ => panic!("golden line '{line}': expected 'turn ID DICE PLAY' or 'wins PLAYER POINTS'"),
        }
    }
    games
}

#[test]
fn gnubg_imported_every_turn_and_result() {
    let session = session();
    let imported = imported();
    assert_eq!(imported.len(), session.games.len(), "games gnubg imported");
    let (mut checked, mut wrong) = (0, Vec::new());
    for (g, (game, (theirs, result))) in session.games.iter().zip(&imported).enumerate() {
        assert_eq!(game.turns.len(), theirs.len(), "game {}: turns gnubg imported", g + 1);
        let mut state: Option<Backgammon> = None;
        for (t, (turn, their)) in game.turns.iter().zip(theirs).enumerate() {
            let start = Backgammon::at_roll(BackgammonConfig { scored_wins: true }, Position::start(), turn.player);
            let mut before = state.unwrap_or_else(|| start.unwrap());
            let id = position_id::encode(before.position());
            let roll = ROLL_DICE.iter().position(|&r| r == (turn.dice.1, turn.dice.0)).unwrap();
            before.apply_chance(roll).unwrap();
            let ours = turn.play.map_or(String::new(), |p| notation::write(&before, &p));
            let dice = (their.dice.0.max(their.dice.1), their.dice.0.min(their.dice.1));
            if id != their.id || turn.dice != dice || ours != their.play {
                wrong.push(format!("game {} turn {}: ours {id} {:?} '{ours}'", g + 1, t + 1, turn.dice));
            }
            state = Some(turn.play.map_or(before, |p| p.after));
            checked += 1;
        }
        let end = state.unwrap();
        let ours = (end.winner().unwrap(), end.points_won().unwrap() as u16);
        if ours != *result {
            wrong.push(format!("game {}: ours {ours:?}, gnubg's {result:?}", g + 1));
        }
    }
    gnubg::assert_all_agree(checked, 500, &wrong);
}
