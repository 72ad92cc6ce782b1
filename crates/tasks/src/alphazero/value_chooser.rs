//! az-backgammon's network alone: the play whose resulting position its
//! value head rates best, no search.

use crate::backgammon::{ChoosePlay, no_play};
use minnow_envs::backgammon::{Play, ROLL_PROBABILITIES, ROLLS};
use minnow_envs::{Backgammon, Game, Turn};
use minnow_rl::mcts::{Evaluator, NetEvaluator};
use minnow_rl::{Result, RlError};

/// The network alone: the play whose resulting position the value head
/// rates best for the mover. The value head was trained on positions
/// with the dice rolled, so a resulting position's value is its expected
/// value over the opponent's 21 rolls (a roll the opponent cannot play
/// leaves the mover to roll: valued as the network sees that position).
/// Winning at once rates above everything.
#[derive(Debug)]
pub struct ValueChooser {
    evaluator: NetEvaluator<Backgammon>,
    states: Vec<Backgammon>,
    /// Per state: the play it belongs to, its roll's probability, and +1
    /// if the mover is on roll there (else the opponent: -1).
    weights: Vec<(usize, f32, f32)>,
    logits: Vec<f32>,
    values: Vec<f32>,
    scores: Vec<f32>,
}

/// States evaluated per network call.
const VALUE_BATCH: usize = 1024;
/// Plays of one turn the scores hold before growing.
const RESERVED_PLAYS: usize = 4096;

impl ValueChooser {
    /// Rating with `evaluator`.
    pub fn new(evaluator: NetEvaluator<Backgammon>) -> Self {
        Self {
            evaluator,
            states: Vec::with_capacity(VALUE_BATCH),
            weights: Vec::with_capacity(VALUE_BATCH),
            logits: vec![0.0; VALUE_BATCH * Backgammon::ACTIONS],
            values: vec![0.0; VALUE_BATCH],
            scores: Vec::with_capacity(RESERVED_PLAYS),
        }
    }

    fn flush(&mut self) {
        let n = self.states.len();
        if n == 0 {
            return;
        }
        self.evaluator.evaluate(&self.states, &mut self.logits[..n * Backgammon::ACTIONS], &mut self.values[..n]);
        for (&(play, p, sign), &v) in self.weights.iter().zip(&self.values[..n]) {
            self.scores[play] += p * sign * v;
        }
        self.states.clear();
        self.weights.clear();
    }
}

impl ChoosePlay for ValueChooser {
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize> {
        let Turn::Player(mover) = game.turn() else { return Err(RlError::Env(no_play())) };
        if plays.is_empty() {
            return Err(RlError::Env(no_play()));
        }
        self.scores.clear();
        self.scores.resize(plays.len(), 0.0);
        for (i, play) in plays.iter().enumerate() {
            if play.after.turn() == Turn::Over {
                self.scores[i] = f32::INFINITY;
                continue;
            }
            for roll in 0..ROLLS {
                let mut next = play.after;
                next.apply_chance(roll)?;
                let sign = if next.player() == mover { 1.0 } else { -1.0 };
                self.states.push(next);
                self.weights.push((i, ROLL_PROBABILITIES[roll], sign));
                if self.states.len() == VALUE_BATCH {
                    self.flush();
                }
            }
        }
        self.flush();
        let best = (0..plays.len()).max_by(|&a, &b| self.scores[a].total_cmp(&self.scores[b]).then(b.cmp(&a)));
        Ok(best.expect("plays is not empty"))
    }
}
