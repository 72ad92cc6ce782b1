//! Backgammon as an afterstate game for TD(lambda) self-play
//! (`minnow_rl::afterstate`).
//!
//! An afterstate is the game after a whole turn: the opponent about to
//! roll, or the game over. A roll the mover cannot play is a turn with one
//! afterstate, the unchanged board (passed to the opponent).
//!
//! Inputs (198, the mover's view; points in the mover's numbering): per
//! point and side, Tesauro's four units for `n` checkers `[n >= 1, n >= 2,
//! n >= 3, (n - 3) / 2 if n > 3]` (192: the mover's 96, then the
//! opponent's), checkers on the bar / 2 and borne off / 15 (mover,
//! opponent), and the pip counts / 100 (mover, opponent).
//!
//! Outputs (5, the mover's view): the probabilities of winning, winning a
//! gammon or better, winning a backgammon, losing a gammon or worse,
//! losing a backgammon. Equity (points per game, no cube):
//! `2 win - 1 + gammon + backgammon - gammon lost - backgammon lost`.

use minnow_envs::backgammon::{Position, ROLL_PROBABILITIES, ROLLS, TurnPlays};
use minnow_envs::{Backgammon, Game, Turn};
use minnow_rl::afterstate::AfterstateGame;

/// Inputs of the value network.
pub const FEATURES: usize = 198;
/// Its outputs: the outcome probabilities.
pub const OUTPUTS: usize = 5;

/// Backgammon's whole turns, with the buffers that enumerate them.
#[derive(Debug, Default)]
pub struct BackgammonTurns {
    plays: TurnPlays,
}

/// Tesauro's units for `n` checkers of one side on a point.
fn units(n: i8) -> [f32; 4] {
    let n = n as f32;
    [(n >= 1.0) as u8 as f32, (n >= 2.0) as u8 as f32, (n >= 3.0) as u8 as f32, ((n - 3.0) / 2.0).max(0.0)]
}

/// The board seen by the player who made the afterstate `after`.
fn mover_view(after: &Backgammon, mover: usize) -> Position {
    if after.player() == mover { *after.position() } else { after.position().flipped() }
}

impl AfterstateGame for BackgammonTurns {
    type State = Backgammon;
    const FEATURES: usize = FEATURES;
    const OUTPUTS: usize = OUTPUTS;
    const MAX_CHANCES: usize = ROLLS;

    fn start(&self, seed: u64) -> Backgammon {
        let mut game = Backgammon::default();
        game.reset(seed);
        game
    }

    fn mover(&self, state: &Backgammon) -> usize {
        match state.turn() {
            Turn::Player(p) => p,
            // A passed roll: the player who could not move made the turn.
            Turn::Chance => 1 - state.player(),
            Turn::Over => state.player(),
        }
    }

    fn afterstates(&mut self, state: &Backgammon, out: &mut Vec<Backgammon>) {
        out.clear();
        if let Turn::Player(_) = state.turn() {
            out.extend(self.plays.generate(state).iter().map(|p| p.after));
        } else {
            out.push(*state);
        }
    }

    fn result(&self, after: &Backgammon, mover: usize, out: &mut [f32]) -> bool {
        let (Some(winner), Some(points)) = (after.winner(), after.points_won()) else { return false };
        let (gammon, backgammon) = ((points >= 2.0) as u8 as f32, (points >= 3.0) as u8 as f32);
        let won =
            if winner == mover { [1.0, gammon, backgammon, 0.0, 0.0] } else { [0.0, 0.0, 0.0, gammon, backgammon] };
        out.copy_from_slice(&won);
        true
    }

    fn encode(&self, after: &Backgammon, mover: usize, out: &mut [f32]) {
        let view = mover_view(after, mover);
        let mut pips = [0.0f32; 2];
        for (p, &n) in view.points().iter().enumerate() {
            out[4 * p..4 * p + 4].copy_from_slice(&units(n.max(0)));
            out[96 + 4 * p..96 + 4 * p + 4].copy_from_slice(&units((-n).max(0)));
            // The mover's checker on p is 24 - p pips from home; the
            // opponent's, p + 1.
            pips[0] += n.max(0) as f32 * (24 - p) as f32;
            pips[1] += (-n).max(0) as f32 * (p + 1) as f32;
        }
        let (bar, off) = (view.bar(), view.off());
        out[192] = bar[0] as f32 / 2.0;
        out[193] = bar[1] as f32 / 2.0;
        out[194] = off[0] as f32 / 15.0;
        out[195] = off[1] as f32 / 15.0;
        out[196] = (pips[0] + 25.0 * bar[0] as f32) / 100.0;
        out[197] = (pips[1] + 25.0 * bar[1] as f32) / 100.0;
    }

    fn chances(&self, _: &Backgammon, out: &mut [f32]) -> usize {
        out[..ROLLS].copy_from_slice(&ROLL_PROBABILITIES);
        ROLLS
    }

    fn decision(&self, after: &Backgammon, outcome: usize) -> Backgammon {
        let mut next = *after;
        next.apply_chance(outcome).expect("an afterstate that is not over waits for a roll");
        next
    }

    fn equity(v: &[f32]) -> f32 {
        2.0 * v[0] - 1.0 + v[1] + v[2] - v[3] - v[4]
    }

    fn flip(v: &mut [f32]) {
        let [w, gw, bw, gl, bl] = [v[0], v[1], v[2], v[3], v[4]];
        v.copy_from_slice(&[1.0 - w, gl, bl, gw, bw]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minnow_envs::backgammon::{BackgammonConfig, POINTS};

    #[test]
    fn the_start_encodes_both_sides_alike_and_equity_is_zero_sum() {
        let turns = BackgammonTurns::default();
        let start = Backgammon::at_roll(BackgammonConfig::default(), Position::start(), 1).unwrap();
        let mut x = [0.0; FEATURES];
        // Player 0 just moved (in spirit): player 1 is to roll.
        turns.encode(&start, 0, &mut x);
        // The start is symmetric: the opponent's point 23 - p is the
        // mover's p.
        for p in 0..POINTS {
            assert_eq!(x[4 * p..4 * p + 4], x[96 + 4 * (23 - p)..96 + 4 * (24 - p)], "point {p}");
        }
        assert_eq!(&x[192..], &[0.0, 0.0, 0.0, 0.0, 1.67, 1.67]);
        // Five checkers on the mover's 6-point (18): units 1, 1, 1, 1.
        assert_eq!(&x[72..76], &[1.0, 1.0, 1.0, 1.0]);
        let mut v = [0.7, 0.2, 0.05, 0.1, 0.01];
        let e = BackgammonTurns::equity(&v);
        BackgammonTurns::flip(&mut v);
        assert!((BackgammonTurns::equity(&v) + e).abs() < 1e-6);
        assert_eq!(v, [1.0 - 0.7, 0.1, 0.01, 0.2, 0.05]);
    }

    #[test]
    fn a_gammon_is_a_result_and_a_pass_is_one_afterstate() {
        let mut turns = BackgammonTurns::default();
        // The mover's last checker on its ace point, the opponent with
        // none off: bearing off wins a gammon (a backgammon if an
        // opposing checker is still in the mover's home board).
        let mut points = [0; POINTS];
        points[23] = 1;
        points[5] = -15;
        let position = Position::new(points, [0, 0], [14, 0]).unwrap();
        let game = Backgammon::from_position(BackgammonConfig::default(), position, 0, (6, 1)).unwrap();
        let mut out = Vec::new();
        turns.afterstates(&game, &mut out);
        let mut r = [0.0; OUTPUTS];
        assert!(out.iter().all(|a| turns.result(a, 0, &mut r)));
        assert_eq!(r, [1.0, 1.0, 0.0, 0.0, 0.0]);
        assert!(turns.result(&out[0], 1, &mut r));
        assert_eq!(r, [0.0, 0.0, 0.0, 1.0, 0.0]);
        // On the bar against a closed board: the roll passes.
        let mut points = [0; POINTS];
        for p in 0..6 {
            points[p] = -2;
        }
        points[23] = 14;
        let position = Position::new(points, [1, 3], [0, 0]).unwrap();
        let game = Backgammon::at_roll(BackgammonConfig::default(), position, 0).unwrap();
        let passed = turns.decision(&game, 20);
        assert_eq!(passed.turn(), Turn::Chance);
        assert_eq!(turns.mover(&passed), 0);
        turns.afterstates(&passed, &mut out);
        assert_eq!(out, vec![passed]);
        assert!(!turns.result(&passed, 0, &mut r));
    }
}
