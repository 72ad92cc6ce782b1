//! `cargo xtask play connect4|tictactoe|backgammon --checkpoint DIR`: a
//! person plays a trained agent in the terminal (the board, the legal
//! moves, `?` for the agent's view: value, policy and visit counts of its
//! top moves), and `--analyse POSITION` prints the agent's view of one
//! position. Backgammon is played against the TD(lambda) agent
//! (`play_backgammon.rs`).

use crate::play_backgammon::{self, TdAgent, analyse_position};
use clap::Args;
use minnow_envs::connect4::{COLUMNS, ROWS};
use minnow_envs::{ConnectFour, Game, TicTacToe, Turn};
use minnow_rl::alphazero::{AzAgent, Player, PolicyPlayer, net_player};
use minnow_rl::mcts::NetEvaluator;
use std::io::{BufRead, Write};

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game: connect4, tictactoe or backgammon.
    game: String,
    #[command(flatten)]
    agent: crate::agent_args::AgentArgs,
    /// Let the agent open (connect four, tic-tac-toe; in backgammon the
    /// opening roll decides).
    #[arg(long)]
    second: bool,
    /// Backgammon: the seed of the opening and the dice (default: from the
    /// clock; the game prints it).
    #[arg(long)]
    seed: Option<u64>,
    /// Print the agent's view of this position and exit: the moves so far,
    /// one digit each (connect four columns 1-7, tic-tac-toe cells 1-9), or
    /// for backgammon a GNU Backgammon Position ID and a roll
    /// ("4HPwATDgc/ABMA 31", the player on roll's view) or gnubg's full ID,
    /// Position ID and Match ID ("4HPwATDgc/ABMA:cIkFAAAAAAAE").
    #[arg(long)]
    analyse: Option<String>,
    /// Backgammon: how many plays `--analyse` and `?` list, the agent's
    /// best first: a number or `all`.
    #[arg(long, value_name = "N|all", default_value = "5", value_parser = play_count)]
    plays: usize,
    /// Backgammon: when the game ends (or is left), write it to FILE as a
    /// Jellyfish match file, which GNU Backgammon reads with `import mat
    /// FILE`.
    #[arg(long, value_name = "FILE")]
    save_mat: Option<std::path::PathBuf>,
}

/// `--plays`: a positive number, or `all` (every play).
fn play_count(text: &str) -> Result<usize, String> {
    match text {
        "all" => Ok(usize::MAX),
        _ => {
            text.parse().ok().filter(|&n| n > 0).ok_or_else(|| format!("'{text}': expected a number 1 or more, or all"))
        }
    }
}

/// What the terminal needs to know about a game beyond [`Game`].
pub trait Board: Game + Default {
    /// The board, one line per row.
    fn render(&self) -> String;
    /// The game after the moves in `text` (1-based digits).
    fn from_digits(text: &str) -> Result<Self, String> {
        let mut game = Self::default();
        game.reset(0);
        for (i, ch) in text.chars().enumerate() {
            let n = ch.to_digit(10).map(|d| d as usize).filter(|d| (1..=Self::ACTIONS).contains(d));
            let Some(n) = n else {
                return Err(format!("move {} is '{ch}', expected a digit 1 to {}", i + 1, Self::ACTIONS));
            };
            game.apply(n - 1).map_err(|e| format!("move {} ({n}): {e}", i + 1))?;
        }
        Ok(game)
    }
}

fn mark(stones: [u64; 2], bit: u32) -> char {
    match (stones[0] >> bit & 1, stones[1] >> bit & 1) {
        (1, _) => 'X',
        (_, 1) => 'O',
        _ => '.',
    }
}

impl Board for ConnectFour {
    fn render(&self) -> String {
        let stones = [self.stones(0), self.stones(1)];
        let mut s = String::new();
        for r in (0..ROWS).rev() {
            let row: Vec<String> = (0..COLUMNS).map(|c| mark(stones, (7 * c + r) as u32).to_string()).collect();
            s += &format!(" {}\n", row.join(" "));
        }
        s + " 1 2 3 4 5 6 7\n"
    }
}

impl Board for TicTacToe {
    fn render(&self) -> String {
        let stones = [self.marks(0) as u64, self.marks(1) as u64];
        let mut s = String::new();
        for r in 0..3 {
            let row: Vec<String> = (0..3)
                .map(|c| match mark(stones, (3 * r + c) as u32) {
                    '.' => (3 * r + c + 1).to_string(),
                    m => m.to_string(),
                })
                .collect();
            s += &format!(" {}\n", row.join(" "));
        }
        s
    }
}

pub fn run(args: PlayArgs) -> Result<(), String> {
    let task = match args.game.as_str() {
        "connect4" => "az-connect4",
        "backgammon" => "td-backgammon",
        game => &format!("az-{game}"),
    };
    let path = args.agent.checkpoint(task)?;
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let (mut input, mut out) = (stdin.lock(), stdout.lock());
    match args.game.as_str() {
        "connect4" => play::<ConnectFour>(&path, &args, &mut input, &mut out),
        "tictactoe" => play::<TicTacToe>(&path, &args, &mut input, &mut out),
        "backgammon" => backgammon(&path, &args, &mut input, &mut out),
        other => Err(format!("play: unknown game '{other}', expected connect4, tictactoe or backgammon")),
    }
}

fn play<G: Board>(
    path: &std::path::Path,
    args: &PlayArgs,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), String> {
    let agent = AzAgent::load::<G>(path).map_err(|e| format!("--checkpoint: {e}"))?;
    let sims = args.agent.simulations.unwrap_or(agent.config.eval.simulations);
    match &args.analyse {
        Some(text) => {
            let game = G::from_digits(text).map_err(|e| format!("--analyse '{text}': {e}"))?;
            analyse(&agent, sims, &game, out)
        }
        None => session::<G>(&agent, sims, if args.second { 1 } else { 0 }, input, out).map(|_| ()),
    }
}

fn backgammon(
    path: &std::path::Path,
    args: &PlayArgs,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), String> {
    let mut agent = TdAgent::load(path, args.agent.candidates)?;
    if let Some(text) = &args.analyse {
        return analyse_position(&mut agent, text, args.plays, out);
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
    });
    let (_, record) = play_backgammon::session(&mut agent, 0, seed, args.plays, input, out)?;
    match &args.save_mat {
        Some(path) => {
            play_backgammon::save_mat(path, record)?;
            writeln!(out, "game saved to {} (GNU Backgammon: import mat {0})", path.display()).map_err(io)
        }
        None => Ok(()),
    }
}

fn io(e: std::io::Error) -> String {
    format!("terminal: {e}")
}

/// The agent's view of `game`: the search's value for the side to move,
/// and per move its prior and visits, most visited first.
fn analyse<G: Board>(agent: &AzAgent, sims: u32, game: &G, out: &mut dyn Write) -> Result<(), String> {
    write!(out, "{}", game.render()).map_err(io)?;
    let Turn::Player(p) = game.turn() else {
        return writeln!(out, "the game is over").map_err(io);
    };
    let text = |e: minnow_rl::RlError| e.to_string();
    let evaluator = NetEvaluator::<G>::with_inference(&agent.net, agent.params.clone(), agent.config.mcts.inference);
    let mut policy = PolicyPlayer::new(evaluator.map_err(text)?);
    policy.act(game).map_err(text)?;
    let (logits, value) = policy.last_output();
    let mut mcts = net_player::<G>(&agent.net, &agent.params, &agent.config.mcts, sims, 0).map_err(text)?;
    mcts.start(game);
    mcts.act(game).map_err(text)?;
    let search = mcts.search();
    let mut legal = vec![0u16; G::MAX_LEGAL];
    let n = game.legal_actions(&mut legal);
    let legal = &legal[..n];
    let top = legal.iter().map(|&a| logits[a as usize]).fold(f32::NEG_INFINITY, f32::max);
    let total: f32 = legal.iter().map(|&a| (logits[a as usize] - top).exp()).sum();
    let mut rows: Vec<(usize, f32, u32)> = legal
        .iter()
        .map(|&a| (a as usize, (logits[a as usize] - top).exp() / total, search.visits(a as usize)))
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.total_cmp(&a.1)));
    writeln!(
        out,
        "player {} to move ({}); value for them: network {value:+.3}, search {:+.3} ({sims} simulations)",
        p + 1,
        if p == 0 { 'X' } else { 'O' },
        search.root_value()
    )
    .map_err(io)?;
    writeln!(out, "  move  policy  visits").map_err(io)?;
    for (a, prior, visits) in rows.iter().take(5) {
        writeln!(out, "  {:>4}  {:>5.1}%  {visits:>6}", a + 1, 100.0 * prior).map_err(io)?;
    }
    Ok(())
}

/// One game: the person plays `human` (0 opens), the agent the other side
/// with `sims` simulations per move. Malformed or illegal input is asked
/// again; `?` shows the agent's view; end of input ends the session.
/// Returns the last position.
pub fn session<G: Board>(
    agent: &AzAgent,
    sims: u32,
    human: usize,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<G, String> {
    let text = |e: minnow_rl::RlError| e.to_string();
    let mut mcts = net_player::<G>(&agent.net, &agent.params, &agent.config.mcts, sims, 1).map_err(text)?;
    let mut game = G::default();
    game.reset(0);
    let mut legal = vec![0u16; G::MAX_LEGAL];
    let mut line = String::new();
    writeln!(out, "you play {}; type a move number, ? for the agent's view, q to quit", ['X', 'O'][human])
        .map_err(io)?;
    loop {
        match game.turn() {
            Turn::Over => {
                write!(out, "{}", game.render()).map_err(io)?;
                let result = match game.outcome(human) {
                    Some(r) if r > 0.0 => "you win",
                    Some(r) if r < 0.0 => "the agent wins",
                    _ => "a draw",
                };
                writeln!(out, "game over: {result}").map_err(io)?;
                return Ok(game);
            }
            Turn::Chance => return Err(format!("play: {} has dice, which this terminal does not roll", G::NAME)),
            Turn::Player(p) if p == human => {
                write!(out, "{}", game.render()).map_err(io)?;
                let n = game.legal_actions(&mut legal);
                let moves: Vec<String> = legal[..n].iter().map(|&a| (a + 1).to_string()).collect();
                write!(out, "legal moves: {}\nyour move: ", moves.join(" ")).map_err(io)?;
                out.flush().map_err(io)?;
                if !crate::prompt::read_answer(input, &mut line).map_err(io)? {
                    writeln!(out, "\nend of input: goodbye").map_err(io)?;
                    return Ok(game);
                }
                match line.trim() {
                    "q" | "quit" => return Ok(game),
                    "?" => analyse(agent, sims, &game, out)?,
                    typed => match typed.parse::<usize>() {
                        // Checked in usize: a number past u16 must not wrap onto a legal move.
                        Ok(m) if m >= 1 && legal[..n].iter().any(|&a| a as usize == m - 1) => {
                            game.apply(m - 1).map_err(|e| e.to_string())?
                        }
                        Ok(m) => writeln!(out, "{m} is not a legal move here; choose one of {}", moves.join(" "))
                            .map_err(io)?,
                        Err(_) => writeln!(out, "'{typed}' is not a move; type one of {} (or ? or q)", moves.join(" "))
                            .map_err(io)?,
                    },
                }
            }
            Turn::Player(_) => {
                mcts.start(&game);
                let a = mcts.act(&game).map_err(text)?;
                game.apply(a).map_err(|e| e.to_string())?;
                writeln!(out, "the agent plays {}", a + 1).map_err(io)?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minnow_rl::alphazero::{AzConfig, AzRun};

    fn agent<G: Board + Send>() -> AzAgent {
        let mut config = AzConfig::default();
        config.network.width = 16;
        AzRun::<G>::new(config).unwrap().agent()
    }

    fn scripted<G: Board + Send>(script: &str, human: usize) -> (G, String) {
        let mut out = Vec::new();
        let game = session::<G>(&agent::<G>(), 8, human, &mut script.as_bytes(), &mut out).unwrap();
        (game, String::from_utf8(out).unwrap())
    }

    #[test]
    fn bad_input_is_asked_again_and_a_game_can_be_played_out() {
        // Malformed, out of range, then a full column, then real moves.
        let script =
            "hello\n0\n9\n?\n1\n1\n1\n1\n1\n1\n1\n2\n2\n2\n2\n3\n3\n3\n4\n4\n4\n4\n5\n5\n5\n6\n6\n6\n7\n7\n7\n";
        let (game, out) = scripted::<ConnectFour>(script, 0);
        assert!(out.contains("'hello' is not a move"), "{out}");
        assert!(out.contains("0 is not a legal move") && out.contains("9 is not a legal move"), "{out}");
        assert!(out.contains("move  policy  visits"), "{out}");
        assert!(game.moves() >= 2);
        assert!(out.contains("the agent plays"));
    }

    #[test]
    fn a_number_past_the_moves_or_a_stray_byte_is_asked_again() {
        // 65537 - 1 would wrap to column 0 in 16 bits.
        let mut out = Vec::new();
        let script: &[u8] = b"65537\n\xff\nq\n";
        session::<ConnectFour>(&agent::<ConnectFour>(), 8, 0, &mut &script[..], &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("65537 is not a legal move"), "{out}");
        assert!(out.contains("'\u{fffd}' is not a move"), "{out}");
        assert!(!out.contains("the agent plays"), "{out}");
    }

    #[test]
    fn the_play_count_is_a_number_or_all() {
        assert_eq!(play_count("3"), Ok(3));
        assert_eq!(play_count("all"), Ok(usize::MAX));
        assert!(play_count("0").unwrap_err().contains("expected a number 1 or more, or all"));
        assert!(play_count("five").is_err());
    }

    #[test]
    fn the_end_of_input_ends_the_session_cleanly() {
        let (game, out) = scripted::<TicTacToe>("5\n", 1);
        assert!(out.contains("end of input"), "{out}");
        assert_eq!(game.turn(), Turn::Player(1));
        let (_, out) = scripted::<TicTacToe>("q\n", 0);
        assert!(!out.contains("game over"));
    }

    #[test]
    fn tictactoe_against_the_agent_reaches_a_result() {
        let (game, out) = scripted::<TicTacToe>("1\n2\n3\n4\n5\n6\n7\n8\n9\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", 0);
        assert_eq!(game.turn(), Turn::Over, "{out}");
        assert!(out.contains("game over"));
    }

    #[test]
    fn positions_parse_from_digits_with_clear_errors() {
        assert_eq!(ConnectFour::from_digits("44").unwrap(), ConnectFour::from_moves(&[3, 3]).unwrap());
        assert!(ConnectFour::from_digits("48").unwrap_err().contains("move 2 is '8'"));
        assert!(ConnectFour::from_digits("4444444").unwrap_err().contains("move 7 (4)"));
        assert!(TicTacToe::from_digits("55").unwrap_err().contains("move 2 (5)"));
        let mut out = Vec::new();
        analyse(&agent::<ConnectFour>(), 8, &ConnectFour::from_digits("4").unwrap(), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("player 2 to move") && out.contains("visits"), "{out}");
    }
}
