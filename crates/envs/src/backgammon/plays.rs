//! Whole-turn plays: every distinct position a roll can lead to, with one
//! sequence of micro-actions reaching each. Players that judge the
//! position after the whole turn (pubeval, an afterstate value) choose
//! among these.

use super::{Backgammon, Position};
use crate::{Game, Turn};
use std::collections::HashSet;

/// One way to play the roll: the micro-actions and the game after them
/// (the opponent about to roll, or the game over).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    actions: [u8; 4],
    len: u8,
    /// The game after the play.
    pub after: Backgammon,
}

impl Play {
    /// The micro-actions, in the order to play them.
    pub fn actions(&self) -> &[u8] {
        &self.actions[..self.len as usize]
    }
}

/// Distinct results seen before the buffers grow (a double rarely has
/// more than a few hundred).
const RESERVED_PLAYS: usize = 4096;
const RESERVED_MIDWAY: usize = 16_384;

/// Reusable buffers for [`TurnPlays::generate`]: after construction,
/// enumerating a turn allocates nothing unless a turn has more distinct
/// results than any before (and more than thousands).
#[derive(Debug)]
pub struct TurnPlays {
    plays: Vec<Play>,
    results: HashSet<Position>,
    /// Mid-turn states already expanded: the position and the unused dice.
    midway: HashSet<(Position, [u8; 6])>,
}

impl Default for TurnPlays {
    fn default() -> Self {
        Self::new()
    }
}

impl TurnPlays {
    /// An empty list with room for every play of a roll.
    pub fn new() -> Self {
        Self {
            plays: Vec::with_capacity(RESERVED_PLAYS),
            results: HashSet::with_capacity(RESERVED_PLAYS),
            midway: HashSet::with_capacity(RESERVED_MIDWAY),
        }
    }

    /// Every distinct result of finishing the turn being played at `game`,
    /// in a fixed order (depth first, actions ascending); empty unless a
    /// player is to move.
    pub fn generate(&mut self, game: &Backgammon) -> &[Play] {
        self.plays.clear();
        self.results.clear();
        self.midway.clear();
        if let Turn::Player(mover) = game.turn() {
            self.extend(game, mover, [0; 4], 0);
        }
        &self.plays
    }

    fn extend(&mut self, game: &Backgammon, mover: usize, actions: [u8; 4], len: u8) {
        let mut legal = [0u16; Backgammon::MAX_LEGAL];
        let n = game.legal_actions(&mut legal);
        for &a in &legal[..n] {
            let mut next = *game;
            next.apply(a as usize).expect("TurnPlays: a legal action was refused");
            let mut actions = actions;
            actions[len as usize] = a as u8;
            if next.turn() == Turn::Player(mover) {
                if self.midway.insert((*next.position(), next.dice_left())) {
                    self.extend(&next, mover, actions, len + 1);
                }
            } else if self.results.insert(*next.position()) {
                self.plays.push(Play { actions, len: len + 1, after: next });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::{BackgammonConfig, ROLLS};
    use rand::{Rng, SeedableRng};

    /// Every result of every micro-action sequence, without pruning.
    fn exhaustive(game: &Backgammon, mover: usize, out: &mut Vec<Position>) {
        let mut legal = [0u16; Backgammon::MAX_LEGAL];
        let n = game.legal_actions(&mut legal);
        for &a in &legal[..n] {
            let mut next = *game;
            next.apply(a as usize).unwrap();
            if next.turn() == Turn::Player(mover) {
                exhaustive(&next, mover, out);
            } else if !out.contains(next.position()) {
                out.push(*next.position());
            }
        }
    }

    #[test]
    fn plays_match_an_exhaustive_search_along_random_games() {
        let mut plays = TurnPlays::new();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        let mut checked = 0;
        for seed in 0..12 {
            let mut game = Backgammon::default();
            game.reset(seed);
            while game.turn() != Turn::Over {
                match game.turn() {
                    Turn::Chance => game.apply_chance(rng.random_range(0..ROLLS)).unwrap(),
                    Turn::Player(mover) => {
                        let found = plays.generate(&game).to_vec();
                        let mut reference = Vec::new();
                        exhaustive(&game, mover, &mut reference);
                        assert_eq!(found.len(), reference.len());
                        for p in &found {
                            assert!(reference.contains(p.after.position()));
                            let mut g = game;
                            for &a in p.actions() {
                                g.apply(a as usize).unwrap();
                            }
                            assert_eq!(g, p.after);
                            assert_ne!(g.turn(), Turn::Player(mover));
                        }
                        checked += 1;
                        game = found[rng.random_range(0..found.len())].after;
                    }
                    Turn::Over => unreachable!(),
                }
            }
        }
        assert!(checked > 300, "{checked} turns");
    }

    #[test]
    fn every_play_moves_the_whole_roll_and_a_chance_node_has_none() {
        let mut plays = TurnPlays::new();
        let game = Backgammon::from_position(BackgammonConfig::default(), Position::start(), 0, (6, 5)).unwrap();
        let found = plays.generate(&game);
        assert!(!found.is_empty());
        for p in found {
            let before: i32 = pips(game.position());
            let after: i32 = pips(&p.after.position().flipped());
            assert_eq!(before - after, 11);
        }
        let at_roll = Backgammon::at_roll(BackgammonConfig::default(), Position::start(), 0).unwrap();
        assert!(plays.generate(&at_roll).is_empty());
    }

    /// The mover's pip count.
    fn pips(p: &Position) -> i32 {
        let on_points: i32 = p.points().iter().enumerate().map(|(i, &n)| (n.max(0) as i32) * (24 - i as i32)).sum();
        on_points + 25 * p.bar()[0] as i32
    }
}
