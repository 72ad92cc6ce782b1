//! Backgammon (no doubling cube), played one die at a time.
//!
//! # Rules
//!
//! Full rules: checkers on the bar must enter (onto the opponent's home
//! board) before any other checker moves; a lone opposing checker that is
//! landed on goes to the bar; a point held by two or more opposing checkers
//! is closed; a player bears off only with all 15 checkers in the home
//! board, with the exact die or, when no checker is on the die's point or
//! higher, with a larger die from the highest occupied point. A double is
//! played four times. A play must use as many dice as possible, and if only
//! one of two different dice can be used, the larger one when it can.
//! Bearing off the last checker ends the game at once, whatever dice are
//! left. There is no doubling cube.
//!
//! # Actions: pgx's 156 micro-actions
//!
//! Each action moves one checker by one die: `action = 6 * source + (die -
//! 1)` with `die` in 1..=6 and `source` 0..26: 0 is pgx's no-op (never legal
//! here, see passing below), 1 the bar, and `2 + p` point `p` in the
//! mover's view (see [`Position`]: the mover travels from point 0 to point
//! 23, home board 18..24, bearing off past 23). The target follows from the
//! source and the die. This is pgx's `micro-action = src * 6 + die` with the
//! same source numbering and board orientation, so action indices compare
//! one to one (pgx uses the no-op when no move exists; here that case never
//! reaches a player).
//!
//! A turn is up to four actions by the same player (a double), then the
//! turn ends by itself. After every action the legal actions are exactly the
//! single-die moves that continue some maximal play, so any sequence of legal
//! actions is a legal play and every legal play can be reached. Moving
//! different checkers in a different order can reach the same play: search
//! sees transpositions, as in pgx.
//!
//! # Chance, the opening and passing
//!
//! Every roll is a chance node ([`Turn::Chance`]) with the 21 distinct rolls
//! as outcomes, in the order (1,1), (1,2), .., (1,6), (2,2), .., (6,6)
//! ([`ROLL_DICE`]), each with probability 1/36 (a double) or 2/36.
//! [`Game::reset`] plays the opening from its seed: a fair coin picks who
//! opens, and the opening roll is one of the 15 non-doubles, uniformly (in
//! the real game each player rolls one die and the higher one moves with
//! both, which gives exactly this distribution). So a game starts at a
//! player's decision, never at a chance node. When a roll leaves the player
//! no legal move, the turn passes at once inside [`Game::apply_chance`]:
//! the result is again a chance node, the opponent's roll. At a chance
//! node, [`Backgammon::player`] is the player about to roll.
//!
//! # Outcome
//!
//! +1 to the winner and -1 to the loser; with
//! [`BackgammonConfig::scored_wins`], 2 for a gammon (the loser has borne
//! off nothing) and 3 for a backgammon (a gammon with a losing checker on
//! the bar or in the winner's home board).
//!
//! # Observation: 202 values from the view of the player on roll
//!
//! Points are in the mover's numbering (point 0 farthest from home).
//! For point `p`, `out[4 * p..4 * p + 4]` encodes the mover's checkers
//! there, TD-Gammon style: with `n` checkers, `[n >= 1, n >= 2, n >= 3,
//! (n - 3) / 2 if n > 3 else 0]`; `out[96 + 4 * p..96 + 4 * p + 4]` the
//! opponent's the same way. Then `out[192]` and `out[193]` are the
//! checkers on the bar (mover, opponent) divided by 2, `out[194]` and
//! `out[195]` the checkers borne off divided by 15, and `out[196 + d - 1]`
//! for `d` in 1..=6 is the number of unused dice showing `d`, divided by 2
//! (0.5 for each die of a fresh non-double, 2 for a fresh double; all zero
//! at a chance node, where the view is that of the player about to roll).

mod base64;
mod dice;
pub mod mat;
pub mod match_id;
mod moves_left;
pub mod notation;
pub mod pasted;
mod plays;
mod position;
pub mod position_id;
pub mod pubeval;

pub use dice::{OPENING_ROLLS, ROLL_DICE, ROLL_PROBABILITIES, ROLLS, random_roll, roll_index};
pub use plays::{Play, TurnPlays};
pub use position::{CHECKERS, POINTS, Position};

use crate::game::{check_player_turn, not_a_chance_node};
use crate::{EnvError, Game, Turn};
use moves_left::MovesLeft;
use position::BAR;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// Size of the action space: 26 sources x 6 dice.
pub const ACTIONS: usize = 156;
/// Length of an observation.
pub const OBSERVATION_SIZE: usize = 202;
/// Action source of the bar (`action = 6 * source + die - 1`); points
/// `p` are sources `POINT_SOURCE + p`.
pub const BAR_SOURCE: usize = 1;
/// Action source of point 0; point `p` is source `POINT_SOURCE + p`.
pub const POINT_SOURCE: usize = 2;

/// The action that moves a checker from point `point` (mover's view) by `die`.
pub const fn point_action(point: usize, die: u8) -> usize {
    6 * (POINT_SOURCE + point) + die as usize - 1
}

/// The action that enters a checker from the bar with `die`.
pub const fn bar_action(die: u8) -> usize {
    6 * BAR_SOURCE + die as usize - 1
}

/// Backgammon's rule options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BackgammonConfig {
    /// Score gammons 2 and backgammons 3 instead of every win 1.
    pub scored_wins: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    Chance,
    Moving,
    Over,
}

/// A game of backgammon; see the module docs for the encodings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backgammon {
    config: BackgammonConfig,
    /// The checkers from the view of `player`.
    position: Position,
    /// The player on roll: moving, or about to roll at a chance node.
    player: u8,
    phase: Phase,
    /// The current roll as (low, high); (0, 0) at a chance node.
    dice: (u8, u8),
    moves: MovesLeft,
    /// The winner's stake once the game is over.
    stake: f32,
}

impl Default for Backgammon {
    fn default() -> Self {
        Self::new(BackgammonConfig::default())
    }
}

impl Backgammon {
    /// A game reset with seed 0.
    pub fn new(config: BackgammonConfig) -> Self {
        let mut game = Self {
            config,
            position: Position::start(),
            player: 0,
            phase: Phase::Chance,
            dice: (0, 0),
            moves: MovesLeft::default(),
            stake: 0.0,
        };
        game.reset(0);
        game
    }

    /// A game at `position` (seen by `player`) with `player` to play the
    /// roll `dice` (either order). If the roll cannot be played, the turn
    /// has passed and the game waits at the opponent's roll.
    pub fn from_position(
        config: BackgammonConfig,
        position: Position,
        player: usize,
        dice: (u8, u8),
    ) -> Result<Self, EnvError> {
        let mut game = Self::at_roll(config, position, player)?;
        for die in [dice.0, dice.1] {
            if !(1..=6).contains(&die) {
                return Err(EnvError::InvalidDie { game: Self::NAME, die });
            }
        }
        game.apply_chance(roll_index(dice.0, dice.1).expect("dice checked"))?;
        Ok(game)
    }

    /// A game at `position` (seen by `player`) waiting for `player`'s roll.
    pub fn at_roll(config: BackgammonConfig, position: Position, player: usize) -> Result<Self, EnvError> {
        if player > 1 {
            return Err(EnvError::InvalidPosition { game: Self::NAME, problem: "the player must be 0 or 1" });
        }
        if position.off().contains(&CHECKERS) {
            return Err(EnvError::InvalidPosition {
                game: Self::NAME,
                problem: "a player has already borne off all 15 checkers",
            });
        }
        Ok(Self {
            config,
            position,
            player: player as u8,
            phase: Phase::Chance,
            dice: (0, 0),
            moves: MovesLeft::default(),
            stake: 0.0,
        })
    }

    /// The rule options.
    pub fn config(&self) -> &BackgammonConfig {
        &self.config
    }

    /// The checkers from the view of [`Backgammon::player`].
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The player on roll: the one moving, or about to roll at a chance
    /// node; once the game is over, the winner.
    pub fn player(&self) -> usize {
        self.player as usize
    }

    /// The roll being played as (low, high), or `None` at a chance node or
    /// once the game is over.
    pub fn dice(&self) -> Option<(u8, u8)> {
        (self.phase == Phase::Moving).then_some(self.dice)
    }

    /// Unused dice by value (index `die - 1`).
    pub fn dice_left(&self) -> [u8; 6] {
        self.moves.left
    }

    /// Single-die moves still to come in this turn (the length of the
    /// longest play of the rest of the roll).
    pub fn moves_to_play(&self) -> usize {
        self.moves.need as usize
    }

    /// The winner, once the game is over.
    pub fn winner(&self) -> Option<usize> {
        (self.phase == Phase::Over).then_some(self.player as usize)
    }

    /// The points the winner scores once the game is over, whatever the
    /// config: 1 for a single game, 2 for a gammon, 3 for a backgammon.
    pub fn points_won(&self) -> Option<f32> {
        (self.phase == Phase::Over).then(|| self.position.win_value())
    }

    /// Hands the dice to the opponent: the board turns round.
    fn pass_turn(&mut self) {
        self.position = self.position.flipped();
        self.player ^= 1;
        self.phase = Phase::Chance;
        self.dice = (0, 0);
        self.moves = MovesLeft::default();
    }
}

impl Game for Backgammon {
    const NAME: &'static str = "backgammon";
    const ACTIONS: usize = ACTIONS;
    /// Two die values times at most 15 occupied points.
    const MAX_LEGAL: usize = 30;
    const MAX_OUTCOMES: usize = ROLLS;
    const OBSERVATION_SIZE: usize = OBSERVATION_SIZE;

    /// The starting position; the seed picks the opener (a fair coin) and
    /// the opening roll (one of the 15 non-doubles, uniformly).
    fn reset(&mut self, seed: u64) {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let opener = rng.random_range(0..2);
        let roll = OPENING_ROLLS[rng.random_range(0..OPENING_ROLLS.len())];
        *self = Self::at_roll(self.config, Position::start(), opener).expect("the start position is valid");
        self.apply_chance(roll).expect("the start is a chance node");
    }

    fn turn(&self) -> Turn {
        match self.phase {
            Phase::Chance => Turn::Chance,
            Phase::Moving => Turn::Player(self.player as usize),
            Phase::Over => Turn::Over,
        }
    }

    #[track_caller]
    fn legal_actions(&self, out: &mut [u16]) -> usize {
        if self.phase != Phase::Moving {
            return 0;
        }
        let legal = &self.moves.legal;
        let all = legal[0] | legal[1] | legal[2] | legal[3] | legal[4] | legal[5];
        // Sources in action order: the bar (source 1), then the points.
        let mut sources = (all >> BAR & 1) | (all & !(1 << BAR)) << 1;
        let mut n = 0;
        while sources != 0 {
            let slot = sources.trailing_zeros();
            sources &= sources - 1;
            let bit = if slot == 0 { BAR } else { slot - 1 };
            let first = 6 * (BAR_SOURCE + slot as usize);
            for d in 0..6 {
                if legal[d] >> bit & 1 == 1 {
                    out[n] = (first + d) as u16;
                    n += 1;
                }
            }
        }
        n
    }

    fn apply(&mut self, action: usize) -> Result<(), EnvError> {
        check_player_turn(self, action)?;
        let die = (action % 6) as u32 + 1;
        let source = match action / 6 {
            0 => return Err(EnvError::IllegalMove { game: Self::NAME, action }),
            BAR_SOURCE => BAR,
            s => (s - POINT_SOURCE) as u32,
        };
        if self.moves.legal[die as usize - 1] >> source & 1 == 0 {
            return Err(EnvError::IllegalMove { game: Self::NAME, action });
        }
        self.position.play(source, die);
        if self.position.mover_is_home() {
            self.phase = Phase::Over;
            self.stake = if self.config.scored_wins { self.position.win_value() } else { 1.0 };
            self.moves = MovesLeft::default();
            return Ok(());
        }
        self.moves.played(&self.position, die);
        if self.moves.need == 0 {
            self.pass_turn();
        }
        Ok(())
    }

    fn chance_outcomes(&self, out: &mut [f32]) -> usize {
        if self.phase != Phase::Chance {
            return 0;
        }
        out[..ROLLS].copy_from_slice(&ROLL_PROBABILITIES);
        ROLLS
    }

    fn apply_chance(&mut self, outcome: usize) -> Result<(), EnvError> {
        if self.phase != Phase::Chance {
            return Err(not_a_chance_node(self));
        }
        if outcome >= ROLLS {
            return Err(EnvError::OutcomeOutOfRange { game: Self::NAME, outcome, outcomes: ROLLS });
        }
        let (low, high) = ROLL_DICE[outcome];
        self.moves = MovesLeft::start(&self.position, low, high);
        if self.moves.need == 0 {
            self.pass_turn();
        } else {
            self.dice = (low, high);
            self.phase = Phase::Moving;
        }
        Ok(())
    }

    fn outcome(&self, player: usize) -> Option<f32> {
        (self.phase == Phase::Over).then(|| if player == self.player as usize { self.stake } else { -self.stake })
    }

    const MAX_POINTS: f32 = 3.0;

    fn points(&self, player: usize) -> Option<f32> {
        let won = self.points_won()?;
        Some(if player == self.player as usize { won } else { -won })
    }

    #[track_caller]
    fn observe(&self, out: &mut [f32]) {
        assert_eq!(out.len(), OBSERVATION_SIZE, "backgammon observe: buffer length");
        for (p, &n) in self.position.points().iter().enumerate() {
            let [mine, theirs] = &SIGNED_UNITS[(n + 15) as usize];
            out[4 * p..4 * p + 4].copy_from_slice(mine);
            out[96 + 4 * p..96 + 4 * p + 4].copy_from_slice(theirs);
        }
        let (bar, off) = (self.position.bar(), self.position.off());
        out[192] = bar[0] as f32 / 2.0;
        out[193] = bar[1] as f32 / 2.0;
        out[194] = off[0] as f32 / 15.0;
        out[195] = off[1] as f32 / 15.0;
        for (o, &n) in out[196..].iter_mut().zip(&self.moves.left) {
            *o = n as f32 / 2.0;
        }
    }
}

/// TD-Gammon's four units for `n` checkers of one side on one point,
/// `n` in 0..=15.
const POINT_UNITS: [[f32; 4]; 16] = {
    let mut units = [[0.0; 4]; 16];
    let mut n = 1;
    while n < 16 {
        units[n] = [1.0, (n >= 2) as u8 as f32, (n >= 3) as u8 as f32, if n > 3 { (n - 3) as f32 / 2.0 } else { 0.0 }];
        n += 1;
    }
    units
};

/// The units of both sides for a signed point count `n` (positive the
/// mover's), at index `n + 15`.
const SIGNED_UNITS: [[[f32; 4]; 2]; 31] = {
    let mut units = [[[0.0; 4]; 2]; 31];
    let mut n = 1;
    while n < 16 {
        units[15 + n][0] = POINT_UNITS[n];
        units[15 - n][1] = POINT_UNITS[n];
        n += 1;
    }
    units
};

#[cfg(test)]
mod tests;
