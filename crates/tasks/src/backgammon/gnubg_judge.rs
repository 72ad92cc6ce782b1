//! A backgammon player judged by GNU Backgammon: on positions from gnubg's
//! own self-play, how much equity its plays give away against gnubg's
//! 0-ply best, in mEMG (thousandths of a point of cubeless money equity,
//! per decision: 0 plays as gnubg 0-ply does).
//!
//! [`gnubg_decisions`] runs `gnubg -t -q -p gnubg_judge.py` as a
//! subprocess: gnubg plays itself (money, no cube, gammons counting, as
//! minnow's agents are trained) and writes, at every decision, every
//! distinct play of the roll in its notation with its 0-ply equity. Each
//! play is read into minnow's plays of the roll ([`notation::parse`]), so
//! [`judge`] can ask any [`ChoosePlay`] for its choice and look up what
//! gnubg thinks of it. Only [`gnubg_decisions`] needs gnubg installed.

use super::ChoosePlay;
use minnow_envs::Backgammon;
use minnow_envs::backgammon::{BackgammonConfig, TurnPlays, notation, position_id};
use std::path::{Path, PathBuf};
use std::process::Command;
use thiserror::Error;

/// The script gnubg runs; see its header.
const SCRIPT: &str = include_str!("gnubg_judge.py");
/// The first field of the script's output lines.
const MARKER: &str = "minnow-judge";
/// gnubg's own threshold for a "bad" play (`show analysis`, 1.07).
pub const BAD_PLAY: f32 = 0.06;

/// One decision from gnubg's self-play.
#[derive(Clone, Debug, PartialEq)]
pub struct GnubgDecision {
    /// The player on roll, to play the roll (gammons count).
    pub game: Backgammon,
    /// gnubg's 0-ply equity of each play, for the player on roll, in the
    /// order [`TurnPlays::generate`] lists the plays.
    pub equities: Vec<f32>,
    /// The best of them.
    pub best: f32,
}

/// What can go wrong running gnubg or reading what it wrote.
#[derive(Debug, Error)]
pub enum GnubgError {
    /// gnubg could not be started.
    #[error(
        "could not run '{program}' (GNU Backgammon; on Debian `apt-get install gnubg`, the binary is /usr/games/gnubg): {source}"
    )]
    Spawn {
        /// The program as given.
        program: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The script could not be written where gnubg reads it.
    #[error("could not write gnubg's script to {path}: {source}")]
    Script {
        /// Where.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// gnubg exited with an error or wrote fewer decisions than asked.
    #[error("gnubg {status}, {found} of {expected} decisions written; its error output ends: {stderr}")]
    Failed {
        /// How it exited.
        status: std::process::ExitStatus,
        /// Decisions written.
        found: usize,
        /// Decisions asked for.
        expected: usize,
        /// The end of its error output.
        stderr: String,
    },
    /// A line that does not read as a decision.
    #[error("gnubg decision {decision} '{line}': {problem}")]
    Line {
        /// The decision (1-based).
        decision: usize,
        /// The line, shortened.
        line: String,
        /// What is wrong.
        problem: String,
    },
}

/// Runs gnubg (`program`, e.g. `gnubg` or `/usr/games/gnubg`) for
/// `positions` decisions of its self-play with the dice from `seed`.
pub fn gnubg_decisions(program: &Path, positions: usize, seed: u64) -> Result<Vec<GnubgDecision>, GnubgError> {
    let dir = std::env::temp_dir().join(format!("minnow-gnubg-judge-{}", std::process::id()));
    let script = dir.join("gnubg_judge.py");
    std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&script, SCRIPT))
        .map_err(|source| GnubgError::Script { path: script.clone(), source })?;
    let output = Command::new(program)
        .args(["-t", "-q", "-p"])
        .arg(&script)
        .env("MINNOW_JUDGE_POSITIONS", positions.to_string())
        .env("MINNOW_JUDGE_SEED", seed.to_string())
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| GnubgError::Spawn { program: program.into(), source });
    // The script is ours to remove whatever gnubg did.
    let _ = std::fs::remove_dir_all(&dir);
    let output = output?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let decisions = read_decisions(&stdout)?;
    if !output.status.success() || decisions.len() < positions {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail = stderr.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | ");
        return Err(GnubgError::Failed {
            status: output.status,
            found: decisions.len(),
            expected: positions,
            stderr: tail,
        });
    }
    Ok(decisions)
}

/// The decisions in the script's output (its marked lines; gnubg's own
/// messages are passed over). Each play gnubg lists must read as one of
/// minnow's plays of the roll, and the two lists must be the same plays.
pub fn read_decisions(output: &str) -> Result<Vec<GnubgDecision>, GnubgError> {
    let config = BackgammonConfig { scored_wins: true };
    let mut plays = TurnPlays::new();
    let mut decisions = Vec::new();
    for line in output.lines().filter(|l| l.starts_with(MARKER)) {
        let fail = |problem: String| GnubgError::Line {
            decision: decisions.len() + 1,
            line: line.chars().take(80).collect(),
            problem,
        };
        let fields: Vec<&str> = line.split('\t').collect();
        let [_, id, dice, rated @ ..] = &fields[..] else {
            return Err(fail("expected the marker, a Position ID, the dice and the rated plays".into()));
        };
        if rated.is_empty() || rated.len() % 2 != 0 {
            return Err(fail(format!(
                "{} fields after the dice, expected pairs of a play and its equity",
                rated.len()
            )));
        }
        let position = position_id::decode(id).map_err(|e| fail(e.to_string()))?;
        let d: Vec<u8> = dice.bytes().map(|b| b.wrapping_sub(b'0')).collect();
        let [a, b] = d[..] else { return Err(fail(format!("dice '{dice}', expected two digits"))) };
        let game = Backgammon::from_position(config, position, 0, (a, b)).map_err(|e| fail(e.to_string()))?;
        let listed = plays.generate(&game);
        let mut equities = vec![f32::NAN; listed.len()];
        for pair in rated.chunks(2) {
            let play = notation::parse(&game, pair[0]).map_err(|e| fail(e.to_string()))?;
            let equity: f32 = pair[1].parse().map_err(|_| fail(format!("equity '{}', expected a number", pair[1])))?;
            let i = listed.iter().position(|p| p.after == play.after).expect("parse returns a listed play");
            equities[i] = equity;
        }
        if equities.iter().any(|e| e.is_nan()) || rated.len() / 2 != listed.len() {
            return Err(fail(format!("gnubg rates {} plays, minnow lists {}", rated.len() / 2, listed.len())));
        }
        let best = equities.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        decisions.push(GnubgDecision { game, equities, best });
    }
    Ok(decisions)
}

/// How a player did on gnubg's decisions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judgement {
    /// Decisions judged.
    pub decisions: usize,
    /// Mean equity given away per decision against gnubg 0-ply's best, in
    /// thousandths of a point.
    pub memg: f64,
    /// Decisions where the player chose gnubg's best play.
    pub agreed: usize,
    /// Decisions giving away [`BAD_PLAY`] or more.
    pub bad: usize,
}

impl std::fmt::Display for Judgement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let share = |n: usize| 100.0 * n as f64 / self.decisions.max(1) as f64;
        write!(
            f,
            "{:5.1} mEMG, gnubg's play {:4.1}%, bad plays (>= {BAD_PLAY}) {:4.1}%",
            self.memg,
            share(self.agreed),
            share(self.bad)
        )
    }
}

/// Asks `chooser` for its play at every decision and scores it by gnubg's
/// equities.
pub fn judge(decisions: &[GnubgDecision], chooser: &mut impl ChoosePlay) -> minnow_rl::Result<Judgement> {
    let mut plays = TurnPlays::new();
    let (mut total, mut agreed, mut bad) = (0.0f64, 0, 0);
    for decision in decisions {
        let listed = plays.generate(&decision.game);
        let i = chooser.choose(&decision.game, listed)?;
        let lost = decision.best - decision.equities[i];
        total += lost as f64;
        agreed += (lost == 0.0) as usize;
        bad += (lost >= BAD_PLAY) as usize;
    }
    let memg = if decisions.is_empty() { 0.0 } else { 1000.0 * total / decisions.len() as f64 };
    Ok(Judgement { decisions: decisions.len(), memg, agreed, bad })
}
