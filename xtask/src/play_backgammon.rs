//! `cargo xtask play backgammon --checkpoint runs/td-backgammon`: a person
//! plays the TD(lambda) agent in the terminal. The dice come from `--seed`
//! (printed, so a game can be replayed); the person picks a play by its
//! number or types it in GNU Backgammon's notation (`13/7 8/7`, any order,
//! `*` for hits optional; see `minnow_envs::backgammon::notation`); `?`
//! shows the agent's view. `--analyse "ID DICE"` prints the agent's view of
//! a GNU Backgammon Position ID with a roll (or of gnubg's full ID,
//! `POSITION:MATCH`); the board shows both IDs, to paste into gnubg.
//!
//! Points are numbered as players read them: each side's own 1-point is
//! its last before bearing off; `bar` and `off` name the rest.

use minnow_envs::backgammon::mat::{self, GameRecord, MatchRecord, TurnRecord};
use minnow_envs::backgammon::match_id::MatchState;
use minnow_envs::backgammon::{
    BackgammonConfig, POINTS, Play, ROLL_DICE, TurnPlays, match_id, notation, pasted, position_id, random_roll,
};
use minnow_envs::{Backgammon, Game, Turn};
use minnow_rl::afterstate::{Searcher, ValueNet};
use minnow_tasks::backgammon::{self, BackgammonTurns, Saved};
use rand::SeedableRng;
use std::io::{BufRead, Write};
use std::path::Path;

/// The trained network choosing plays: 1-ply, or a 2-ply search over its
/// `candidates` best (as `cargo xtask eval td-backgammon` plays).
pub struct TdAgent {
    net: ValueNet,
    searcher: Searcher<BackgammonTurns>,
    turns: BackgammonTurns,
    afters: Vec<Backgammon>,
    candidates: usize,
}

impl TdAgent {
    pub fn new(net: ValueNet, candidates: usize) -> Self {
        let searcher = Searcher::new(&net);
        Self { net, searcher, turns: BackgammonTurns::default(), afters: Vec::new(), candidates: candidates.max(1) }
    }

    /// Reads a td-backgammon run checkpoint.
    pub fn load(path: &Path, candidates: Option<u32>) -> Result<Self, String> {
        let Saved { net, config, .. } = backgammon::load(path).map_err(|e| {
            format!("--checkpoint: backgammon is played against a td-backgammon agent (cargo xtask train td-backgammon): {e}")
        })?;
        Ok(Self::new(net, candidates.map_or(config.eval.candidates, |c| c as usize)))
    }

    /// The index into `plays` of the play the agent makes at `game`.
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> usize {
        let Turn::Player(mover) = game.turn() else { unreachable!("plays exist only at a decision") };
        self.afters.clear();
        self.afters.extend(plays.iter().map(|p| p.after));
        self.searcher.two_ply(&mut self.turns, &self.net, mover, &self.afters, self.candidates)
    }

    /// The agent's view of the roll being played at `game`: its `shown`
    /// best plays at 1-ply with their equity and win / gammon chances,
    /// and the 2-ply value of its `candidates` best.
    fn analyse(&mut self, game: &Backgammon, plays: &[Play], shown: usize, out: &mut dyn Write) -> Result<(), String> {
        let Turn::Player(mover) = game.turn() else { return writeln!(out, "no play to choose here").map_err(io) };
        self.afters.clear();
        self.afters.extend(plays.iter().map(|p| p.after));
        let ranked: Vec<(f32, usize)> =
            self.searcher.rank(&self.turns, &self.net, mover, &self.afters).iter().take(shown).copied().collect();
        writeln!(out, "  play                       equity  win   gammon  2-ply").map_err(io)?;
        for (r, &(equity, i)) in ranked.iter().enumerate() {
            self.searcher.rate(&self.turns, &self.net, &self.afters[i], mover);
            let (win, gammon) = (self.searcher.outputs()[0], self.searcher.outputs()[1]);
            let deep = if r < self.candidates {
                let v = self.searcher.expected_equity(&mut self.turns, &self.net, mover, &self.afters[i]);
                format!("{v:+.3}")
            } else {
                "-".into()
            };
            let play = notation::write(game, &plays[i]);
            let (win, gammon) = (100.0 * win, 100.0 * gammon);
            writeln!(out, "  {play:<25}  {equity:+.3}  {win:4.1}%  {gammon:4.1}%  {deep}").map_err(io)?;
        }
        let choice = self.choose(game, plays);
        writeln!(
            out,
            "the agent plays {} ({})",
            notation::write(game, &plays[choice]),
            if self.candidates > 1 { format!("2-ply over its best {}", self.candidates) } else { "1-ply".into() }
        )
        .map_err(io)
    }
}

fn io(e: std::io::Error) -> String {
    format!("terminal: {e}")
}

/// The rules the agent was trained and judged under: gammons count.
fn config() -> BackgammonConfig {
    BackgammonConfig { scored_wins: true }
}

/// The board from `viewer`'s side (X: `viewer`, O: the other), the
/// pip counts, and GNU Backgammon's Position ID (of the player on roll)
/// and Match ID.
pub fn render(game: &Backgammon, viewer: usize) -> String {
    let position = if game.player() == viewer { *game.position() } else { game.position().flipped() };
    let points = position.points();
    let cell = |n: usize| {
        let c = points[POINTS - n];
        match c {
            0 => "  .".to_string(),
            c if c > 0 => format!(" X{c}"),
            c => format!(" O{}", -c),
        }
    };
    let row = |range: &mut dyn Iterator<Item = usize>| {
        let cells: Vec<String> =
            range.map(|n| format!("{}{}", cell(n), if n == 18 || n == 7 { " |" } else { "" })).collect();
        cells.concat()
    };
    let numbers = |range: &mut dyn Iterator<Item = usize>| {
        let cells: Vec<String> =
            range.map(|n| format!("{n:>3}{}", if n == 18 || n == 7 { " |" } else { "" })).collect();
        cells.concat()
    };
    let mut pips = [0u32; 2];
    for (p, &c) in points.iter().enumerate() {
        pips[0] += c.max(0) as u32 * (POINTS - p) as u32;
        pips[1] += (-c).max(0) as u32 * (p + 1) as u32;
    }
    let (bar, off) = (position.bar(), position.off());
    for side in 0..2 {
        pips[side] += 25 * bar[side] as u32;
    }
    format!(
        "{}\n{}\n{}\n{}\n bar X{} O{}   off X{} O{}   pips X{} O{}   position ID {}   match ID {}\n",
        numbers(&mut (13..=24)),
        row(&mut (13..=24)),
        row(&mut (1..=12).rev()),
        numbers(&mut (1..=12).rev()),
        bar[0],
        bar[1],
        off[0],
        off[1],
        pips[0],
        pips[1],
        position_id::encode(game.position()),
        match_id::encode(&MatchState::of(game)),
    )
}

/// The game at a Position ID (the player on roll's view, as GNU
/// Backgammon writes it) with that player to play a roll, and that
/// player. The roll is dice ("31", "3-1") or a Match ID, as in gnubg's
/// full ID `4HPwATDgc/ABMA:cIkFAAAAAAAE`, which says who is on roll and
/// with what (the cube and the score play no part: minnow has no cube).
pub fn parse_position(text: &str) -> Result<(Backgammon, usize), String> {
    let pasted = pasted::parse(text).map_err(|e| e.to_string())?;
    if pasted.dice.is_none() {
        return Err(match pasted.on_roll {
            Some(_) => format!("'{text}': the match ID has no dice rolled, expected a roll to play"),
            None => format!(
                "'{text}': expected a Position ID and a roll or a Match ID, e.g. '4HPwATDgc/ABMA 31' or \
                 '4HPwATDgc/ABMA:cIkFAAAAAAAE'"
            ),
        });
    }
    let player = pasted.on_roll.unwrap_or(0);
    let game = pasted.game(config(), player).map_err(|e| format!("'{text}': {e}"))?;
    Ok((game, player))
}

/// Prints the agent's view of one position with a roll: its `shown` best
/// plays.
pub fn analyse_position(agent: &mut TdAgent, text: &str, shown: usize, out: &mut dyn Write) -> Result<(), String> {
    let (game, player) = parse_position(text).map_err(|e| format!("--analyse {e}"))?;
    write!(out, "{}", render(&game, player)).map_err(io)?;
    let Some((a, b)) = game.dice() else {
        return writeln!(out, "the roll cannot be played: the turn passes").map_err(io);
    };
    writeln!(out, "X to play {b}-{a}").map_err(io)?;
    let mut plays = TurnPlays::new();
    agent.analyse(&game, plays.generate(&game), shown, out)
}

/// Writes the game played (the person player 0, `you`; the agent player
/// 1, `td-backgammon`) to `path` as a Jellyfish match file, which GNU
/// Backgammon reads with `import mat FILE`.
pub fn save_mat(path: &Path, game: GameRecord) -> Result<(), String> {
    let record = MatchRecord { names: ["you".into(), "td-backgammon".into()], length: 0, games: vec![game] };
    let text = mat::write(&record).map_err(|e| format!("--save-mat: {e}"))?;
    std::fs::write(path, text).map_err(|e| format!("--save-mat {}: {e}", path.display()))
}

/// One game: the person plays side `human`, the agent the other; `seed`
/// picks the opening and the dice. Malformed or illegal input is asked
/// again; `?` shows the agent's view (its `shown` best plays); `q` or the
/// end of input ends the session. Returns the last position and the game
/// so far as a record (for a `.mat` file).
pub fn session(
    agent: &mut TdAgent,
    human: usize,
    seed: u64,
    shown: usize,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(Backgammon, GameRecord), String> {
    let mut game = Backgammon::new(config());
    game.reset(seed);
    let mut record = GameRecord::default();
    let mut dice = rand_pcg::Pcg64Mcg::seed_from_u64(seed ^ 0x5eed);
    let mut generator = TurnPlays::new();
    let mut line = String::new();
    let who = |p: usize| if p == human { "you" } else { "the agent" };
    writeln!(
        out,
        "you play X, moving from your 24-point to your 1-point; type a play's number or the play itself \
         (13/7 8/7), ? for the agent's view, q to quit (dice seed {seed})"
    )
    .map_err(io)?;
    loop {
        match game.turn() {
            Turn::Over => {
                write!(out, "{}", render(&game, human)).map_err(io)?;
                let points = game.points_won().unwrap_or(1.0);
                let kind = ["", "", " (a gammon)", " (a backgammon)"][points as usize];
                let winner = if game.winner() == Some(human) { "you win" } else { "the agent wins" };
                writeln!(out, "game over: {winner} {points} point(s){kind}").map_err(io)?;
                return Ok((game, record));
            }
            Turn::Chance => {
                let player = game.player();
                let k = random_roll(&mut dice);
                let (a, b) = ROLL_DICE[k];
                game.apply_chance(k).map_err(|e| e.to_string())?;
                // A roll that cannot be played passes the turn at once.
                if game.turn() == Turn::Chance {
                    writeln!(out, "{} roll {b}-{a} and cannot move", who(player)).map_err(io)?;
                    record.turns.push(TurnRecord { player, dice: (b, a), play: None });
                }
            }
            Turn::Player(p) if p == human => {
                let (a, b) = game.dice().expect("a decision has dice");
                write!(out, "{}", render(&game, human)).map_err(io)?;
                let plays = generator.generate(&game).to_vec();
                let names: Vec<String> = plays.iter().map(|play| notation::write(&game, play)).collect();
                writeln!(out, "you rolled {b}-{a}; your plays:").map_err(io)?;
                for (i, name) in names.iter().enumerate() {
                    write!(out, "{:>4}) {name:<22}{}", i + 1, if i % 3 == 2 { "\n" } else { "" }).map_err(io)?;
                }
                write!(out, "{}your play: ", if names.len().is_multiple_of(3) { "" } else { "\n" }).map_err(io)?;
                out.flush().map_err(io)?;
                if !crate::prompt::read_answer(input, &mut line).map_err(io)? {
                    writeln!(out, "\nend of input: goodbye").map_err(io)?;
                    return Ok((game, record));
                }
                let typed = line.trim();
                let chosen = match typed {
                    "q" | "quit" => return Ok((game, record)),
                    "?" => {
                        agent.analyse(&game, &plays, shown, out)?;
                        continue;
                    }
                    _ => match typed.parse::<usize>() {
                        Ok(n) if (1..=plays.len()).contains(&n) => Ok(plays[n - 1]),
                        Ok(n) => Err(format!("there is no play {n}")),
                        Err(_) => notation::parse(&game, typed).map_err(|e| e.to_string()),
                    },
                };
                match chosen {
                    Ok(play) => {
                        record.turns.push(TurnRecord { player: p, dice: (b, a), play: Some(play) });
                        game = play.after;
                    }
                    Err(why) => writeln!(
                        out,
                        "{why}: type a number 1 to {} or a play as listed, in any order (or ? or q)",
                        plays.len()
                    )
                    .map_err(io)?,
                }
            }
            Turn::Player(p) => {
                let (a, b) = game.dice().expect("a decision has dice");
                let plays = generator.generate(&game);
                let play = plays[agent.choose(&game, plays)];
                writeln!(out, "the agent rolled {b}-{a} and plays {}", notation::write(&game, &play)).map_err(io)?;
                record.turns.push(TurnRecord { player: p, dice: (b, a), play: Some(play) });
                game = play.after;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minnow_envs::backgammon::Position;
    use minnow_rl::afterstate::AfterstateGame;

    fn agent() -> TdAgent {
        let net = ValueNet::new(
            BackgammonTurns::FEATURES,
            8,
            BackgammonTurns::OUTPUTS,
            &mut rand_pcg::Pcg64Mcg::seed_from_u64(1),
        );
        TdAgent::new(net, 2)
    }

    #[test]
    fn a_position_id_and_roll_give_the_game() {
        let game = Backgammon::from_position(config(), Position::start(), 0, (3, 1)).unwrap();
        let id = position_id::encode(&Position::start());
        assert_eq!(parse_position(&format!("{id} 3-1")).unwrap(), (game, 0));
        assert_eq!(parse_position(&format!("{id} 13")).unwrap(), (game, 0));
        // gnubg's full ID: player 1 on roll with 3-1.
        let game = Backgammon::from_position(config(), Position::start(), 1, (3, 1)).unwrap();
        assert_eq!(parse_position(&format!("{id}:cIkFAAAAAAAE")).unwrap(), (game, 1));
        assert!(render(&game, 1).contains("position ID 4HPwATDgc/ABMA   match ID cIkFAAAAAAAE"));
    }

    #[test]
    fn the_board_shows_the_start_from_either_side() {
        let game = Backgammon::from_position(config(), Position::start(), 0, (3, 1)).unwrap();
        let board = render(&game, 0);
        assert!(board.contains("pips X167 O167"), "{board}");
        assert!(board.contains("position ID 4HPwATDgc/ABMA"), "{board}");
        // Yours: five on the 13- and 6-points, three on the 8, two on the 24.
        let rows: Vec<&str> = board.lines().collect();
        assert_eq!(rows[1], " X5  .  .  . O3  . | O5  .  .  .  . X2", "{board}");
        assert_eq!(rows[2], " O5  .  .  . X3  . | X5  .  .  .  . O2", "{board}");
        // The start is the same from the other side.
        assert_eq!(render(&game, 1), board);
    }

    #[test]
    fn a_position_id_is_read_for_the_side_to_play() {
        // gnubg's ID after an opening 31 played 8/5 6/5: X, to play 21,
        // still has the start; O has made its 5-point (X's 20-point).
        let (game, _) = parse_position("sGfwATDgc/ABMA 21").unwrap();
        let board = render(&game, 0);
        assert!(board.contains("pips X167 O163"), "{board}");
        assert!(board.contains("position ID sGfwATDgc/ABMA"), "{board}");
        let rows: Vec<&str> = board.lines().collect();
        assert_eq!(rows[1], " X5  .  .  . O2  . | O4 O2  .  .  . X2", "{board}");
        assert_eq!(rows[2], " O5  .  .  . X3  . | X5  .  .  .  . O2", "{board}");
    }

    #[test]
    fn bad_positions_and_rolls_are_clear_errors() {
        assert!(parse_position("4HPwATDgc/ABMA").unwrap_err().contains("expected a Position ID and a roll"));
        assert!(parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAA").unwrap_err().contains("no dice rolled"));
        assert!(parse_position("4HPwATDgc/ABMA:cIkFAAAAAA!E").unwrap_err().contains("character 10"));
        assert!(parse_position("4HPwATDgc/ABMA 71").unwrap_err().contains("roll '71'"));
        assert!(parse_position("4HPwATDgc/ABMA 3").unwrap_err().contains("two dice"));
        assert!(parse_position("4HPwATDgc/AB!A 31").unwrap_err().contains("character"));
    }

    #[test]
    fn a_scripted_person_plays_through_bad_input_to_the_end() {
        // Nonsense, an out-of-range number, a play that is not legal, the
        // agent's view, then always the first listed play.
        let mut script = String::from("hello\n0\n24/1\n?\n");
        script.push_str(&"1\n".repeat(400));
        let mut out = Vec::new();
        let (game, record) = session(&mut agent(), 0, 7, 3, &mut script.as_bytes(), &mut out).unwrap();
        // The game saved as a .mat file reads back turn for turn.
        let path = std::env::temp_dir().join(format!("minnow-session-{}.mat", std::process::id()));
        save_mat(&path, record.clone()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let read = mat::parse(&text).unwrap();
        assert_eq!(read.games, [record]);
        assert!(text.contains("Wins"), "{text}");
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("'hello' is not a move"), "{out}");
        assert!(out.contains("there is no play 0"), "{out}");
        assert!(out.contains("play '24/1': not a legal play"), "{out}");
        assert!(out.contains("equity") && out.contains("the agent plays"), "{out}");
        assert!(out.contains("the agent rolled"), "{out}");
        assert_eq!(game.turn(), Turn::Over, "{out}");
        assert!(out.contains("game over"), "{out}");
    }
}
