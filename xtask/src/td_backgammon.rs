//! Backgammon as an afterstate game for TD(lambda) self-play
//! (`minnow_rl::afterstate`), and the whole-turn player that picks a play
//! with the learned network, alone (1-ply) or with a 2-ply search.
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

use crate::pubeval_match::ChoosePlay;
use minnow_envs::backgammon::{Play, Position, ROLL_PROBABILITIES, ROLLS, TurnPlays};
use minnow_envs::{Backgammon, Game, Turn};
use minnow_rl::Result;
use minnow_rl::afterstate::{AfterstateGame, Searcher, ValueNet};
use std::sync::Arc;

pub const FEATURES: usize = 198;
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

/// The learned network choosing a play: the best afterstate (`keep` =
/// 1), or the best of the `keep` best by a 2-ply search.
#[derive(Debug)]
pub struct TdChooser {
    net: Arc<ValueNet>,
    turns: BackgammonTurns,
    searcher: Searcher<BackgammonTurns>,
    candidates: Vec<Backgammon>,
    keep: usize,
}

impl TdChooser {
    pub fn new(net: Arc<ValueNet>, keep: usize) -> Self {
        let searcher = Searcher::new(&net);
        Self { net, turns: BackgammonTurns::default(), searcher, candidates: Vec::with_capacity(4096), keep }
    }
}

impl ChoosePlay for TdChooser {
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize> {
        let (Turn::Player(mover), false) = (game.turn(), plays.is_empty()) else {
            return Err(minnow_envs::EnvError::WrongTurn {
                game: Backgammon::NAME,
                expected: "a player with a legal play",
                found: "none",
            }
            .into());
        };
        self.candidates.clear();
        self.candidates.extend(plays.iter().map(|p| p.after));
        Ok(if self.keep <= 1 {
            self.searcher.one_ply(&self.turns, &self.net, mover, &self.candidates).0
        } else {
            self.searcher.two_ply(&mut self.turns, &self.net, mover, &self.candidates, self.keep)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pubeval_match::WholeTurnPlayer;
    use minnow_envs::backgammon::{BackgammonConfig, POINTS};
    use minnow_rl::afterstate::{TdLambda, TdLambdaConfig};
    use minnow_rl::alphazero::play_from;
    use rand::SeedableRng;

    fn small_net(seed: u64) -> ValueNet {
        ValueNet::new(FEATURES, 16, OUTPUTS, &mut rand_pcg::Pcg64Mcg::seed_from_u64(seed))
    }

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

    #[test]
    fn training_and_both_players_allocate_nothing_after_warm_up() {
        let mut net = small_net(1);
        let mut turns = BackgammonTurns::default();
        let mut td = TdLambda::new(&net);
        let config = TdLambdaConfig { lambda: 0.7, learning_rate: 0.1 };
        for k in 0..3 {
            td.train_game(&mut turns, &mut net, k, &config);
        }
        let (decisions, on_thread, _) = minnow_arena::count_allocations(|| {
            (3..8).map(|k| td.train_game(&mut turns, &mut net, k, &config).decisions).sum::<u64>()
        });
        assert!(decisions > 100, "{decisions} decisions");
        assert_eq!(on_thread.allocations, 0, "{} bytes over {decisions} decisions", on_thread.bytes);

        let net = Arc::new(net);
        let mut one = WholeTurnPlayer::new(TdChooser::new(net.clone(), 1));
        let mut two = WholeTurnPlayer::new(TdChooser::new(net, 4));
        let start = |seed| turns.start(seed);
        for seed in 0..2 {
            play_from::<Backgammon>([&mut one, &mut two], start(seed), seed, 3000).unwrap();
        }
        let (end, on_thread, _) = minnow_arena::count_allocations(|| {
            play_from::<Backgammon>([&mut one, &mut two], start(5), 5, 3000).unwrap()
        });
        assert_eq!(end.turn(), Turn::Over);
        // The one allocation is play_from's chance-outcome buffer.
        assert_eq!(on_thread.allocations, 1, "{} bytes", on_thread.bytes);
    }

    #[test]
    fn two_ply_takes_a_winning_play_and_agrees_with_one_ply_when_keeping_one() {
        let mut points = [0; POINTS];
        points[18] = 1;
        points[23] = 1;
        points[0] = -15;
        let position = Position::new(points, [0, 0], [13, 0]).unwrap();
        let game = Backgammon::from_position(BackgammonConfig::default(), position, 0, (6, 1)).unwrap();
        let plays = TurnPlays::new().generate(&game).to_vec();
        let net = Arc::new(small_net(2));
        for keep in [1, 3, 50] {
            let i = TdChooser::new(net.clone(), keep).choose(&game, &plays).unwrap();
            assert_eq!(plays[i].after.turn(), Turn::Over, "keep {keep}");
        }
        let start = BackgammonTurns::default().start(4);
        let plays = TurnPlays::new().generate(&start).to_vec();
        let one = TdChooser::new(net.clone(), 1).choose(&start, &plays).unwrap();
        let mut searcher = Searcher::<BackgammonTurns>::new(&net);
        let candidates: Vec<_> = plays.iter().map(|p| p.after).collect();
        let mut turns = BackgammonTurns::default();
        assert_eq!(searcher.two_ply(&mut turns, &net, start.player(), &candidates, 1), one);
    }
}
