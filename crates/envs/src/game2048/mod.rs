//! 2048 as an environment.

mod board;
mod symmetry;

pub use board::{Board, DOWN, LEFT, MAX_EXPONENT, MOVE_COUNT, MOVE_NAMES, RIGHT, UP};
pub use symmetry::{BOARD_SYMMETRY_COUNT, BoardSymmetry};

use crate::{Env, EnvError, Step, env::check_action};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// How the board is written into an observation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardEncoding {
    /// `out[16 * cell + exponent] = 1` (exponent 0 marks an empty cell): 256 values.
    #[default]
    OneHot,
    /// `out[cell] = exponent / 15`, so 32768 reads 1 and an empty cell 0: 16 values.
    Exponents,
}

impl BoardEncoding {
    /// Length of an observation in this encoding.
    pub fn observation_size(&self) -> usize {
        match self {
            BoardEncoding::OneHot => 16 * 16,
            BoardEncoding::Exponents => 16,
        }
    }

    /// Writes `board` in this encoding into `out` (of [`Self::observation_size`]).
    #[track_caller]
    pub fn write(&self, board: Board, out: &mut [f32]) {
        assert_eq!(out.len(), self.observation_size(), "2048 observation: buffer length");
        match self {
            BoardEncoding::OneHot => {
                out.fill(0.0);
                for cell in 0..16 {
                    out[16 * cell + board.exponent(cell) as usize] = 1.0;
                }
            }
            BoardEncoding::Exponents => {
                for (cell, v) in out.iter_mut().enumerate() {
                    *v = board.exponent(cell) as f32 / MAX_EXPONENT as f32;
                }
            }
        }
    }

    /// The board that `obs` shows; an error unless it is exactly what
    /// [`Self::write`] writes for some board.
    pub fn read(&self, obs: &[f32]) -> Result<Board, EnvError> {
        let bad = |problem| Err(EnvError::InvalidPosition { game: "2048", problem });
        if obs.len() != self.observation_size() {
            return bad("the observation's length does not match its encoding");
        }
        let mut board = Board::EMPTY;
        for cell in 0..16 {
            let exponent = match self {
                BoardEncoding::OneHot => obs[16 * cell..16 * (cell + 1)].iter().position(|&v| v == 1.0),
                BoardEncoding::Exponents => Some((obs[cell] * MAX_EXPONENT as f32).round() as usize),
            };
            match exponent {
                Some(0) => {}
                Some(e) if e <= MAX_EXPONENT as usize => board = board.with_tile(cell, e as u8),
                _ => return bad("a cell shows no tile exponent in 0..=15"),
            }
        }
        let mut check = [0.0; 256];
        let check = &mut check[..obs.len()];
        self.write(board, check);
        if check != obs {
            return bad("the observation is not a board in its encoding");
        }
        Ok(board)
    }
}

/// 2048's options.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Game2048Config {
    /// How observations encode the board.
    pub encoding: BoardEncoding,
    /// Chance that a spawned tile is a 4 rather than a 2 (0.1 in the original game).
    pub four_probability: f64,
}

impl Default for Game2048Config {
    fn default() -> Self {
        Self { encoding: BoardEncoding::OneHot, four_probability: 0.1 }
    }
}

impl Game2048Config {
    /// Checks every field, naming the one out of range.
    pub fn validate(&self) -> Result<(), EnvError> {
        if !(0.0..=1.0).contains(&self.four_probability) {
            let found = minnow_config::Found::Text(self.four_probability.to_string());
            return Err(minnow_config::Check("Game2048Config").error("four_probability", "in [0, 1]", found).into());
        }
        Ok(())
    }
}

/// 2048 on a 4x4 board. Actions are [`LEFT`], [`RIGHT`], [`UP`], [`DOWN`];
/// a move that changes nothing is illegal. After every move a 2 (or with
/// `four_probability` a 4) appears in a uniformly chosen empty cell. The
/// reward is the sum of the tiles the move's merges create (the game's
/// score); the episode is done when no move is legal. A game starts with
/// two spawned tiles.
#[derive(Clone, Debug)]
pub struct Game2048 {
    config: Game2048Config,
    board: Board,
    score: u64,
    moves: u64,
    /// The board after each move and its score, computed once per state:
    /// the legal mask needs them anyway, and a step then just picks one.
    next: [Board; MOVE_COUNT],
    gains: [u32; MOVE_COUNT],
    legal: u64,
    rng: Pcg64Mcg,
}

impl Game2048 {
    /// A 2048 game with `config`.
    pub fn new(config: Game2048Config) -> Result<Self, EnvError> {
        config.validate()?;
        board::prepare_tables();
        let mut env = Self {
            config,
            board: Board::EMPTY,
            score: 0,
            moves: 0,
            next: [Board::EMPTY; MOVE_COUNT],
            gains: [0; MOVE_COUNT],
            legal: 0,
            rng: Pcg64Mcg::seed_from_u64(0),
        };
        env.reset(0);
        Ok(env)
    }

    /// Its options.
    pub fn config(&self) -> &Game2048Config {
        &self.config
    }

    /// Starts a new game (score 0) from `board`; later spawns draw from `seed`.
    pub fn reset_to(&mut self, board: Board, seed: u64) {
        self.rng = Pcg64Mcg::seed_from_u64(seed);
        self.board = board;
        self.score = 0;
        self.moves = 0;
        self.refresh();
    }

    /// The current board.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The game's score: the sum of all merged tiles so far.
    pub fn score(&self) -> u64 {
        self.score
    }

    /// Moves taken in this game.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    fn refresh(&mut self) {
        (self.next, self.gains) = self.board.slides();
        self.legal = 0;
        for (m, next) in self.next.iter().enumerate() {
            self.legal |= ((*next != self.board) as u64) << m;
        }
    }

    /// Places a 2 or a 4 in a uniformly chosen empty cell.
    fn spawn(&mut self) {
        let mut empty = self.board.empty_cells();
        debug_assert!(empty != 0, "2048 spawn: a legal move always leaves an empty cell");
        for _ in 0..self.rng.random_range(0..empty.count_ones()) {
            empty &= empty - 1;
        }
        let exponent = if self.rng.random::<f64>() < self.config.four_probability { 2 } else { 1 };
        self.board = self.board.with_tile(empty.trailing_zeros() as usize, exponent);
    }
}

impl Env for Game2048 {
    const NAME: &'static str = "2048";

    fn observation_size(&self) -> usize {
        self.config.encoding.observation_size()
    }

    fn action_count(&self) -> usize {
        MOVE_COUNT
    }

    fn reset(&mut self, seed: u64) {
        self.reset_to(Board::EMPTY, seed);
        self.spawn();
        self.spawn();
        self.refresh();
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        let gain = self.gains[action];
        self.board = self.next[action];
        self.score += gain as u64;
        self.moves += 1;
        self.spawn();
        self.refresh();
        Ok(Step { reward: gain as f32, done: self.legal == 0, truncated: false })
    }

    fn legal_mask(&self) -> u64 {
        self.legal
    }

    #[track_caller]
    fn observe(&self, out: &mut [f32]) {
        self.config.encoding.write(self.board, out);
    }

    /// The game is over exactly when no move is legal.
    fn is_over(&self) -> bool {
        self.legal == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game_at(rows: [[u32; 4]; 4]) -> Game2048 {
        let mut g = Game2048::new(Game2048Config::default()).unwrap();
        g.reset_to(Board::from_rows(rows).unwrap(), 1);
        g
    }

    #[test]
    fn a_move_that_changes_nothing_is_illegal() {
        let mut g = game_at([[2, 4, 0, 0], [4, 2, 0, 0], [0; 4], [0; 4]]);
        assert_eq!(g.legal_mask(), (1 << RIGHT) | (1 << DOWN));
        let mut mask = [true; 4];
        g.legal_actions(&mut mask);
        assert_eq!(mask, [false, true, false, true]);
        let err = g.step(LEFT).unwrap_err();
        assert_eq!(err, EnvError::IllegalAction { env: "2048", action: LEFT, legal: 0b1010 });
        assert!(err.to_string().contains("action 0 is illegal"), "{err}");
        assert_eq!(g.step(4), Err(EnvError::ActionOutOfRange { env: "2048", action: 4, action_count: 4 }));
        assert_eq!(g.board(), Board::from_rows([[2, 4, 0, 0], [4, 2, 0, 0], [0; 4], [0; 4]]).unwrap());
        assert_eq!(g.moves(), 0);
    }

    #[test]
    fn a_full_board_without_merges_is_game_over() {
        let g = game_at([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]);
        assert!(g.is_over());
        assert_eq!(g.legal_mask(), 0);
        let mut g = g;
        assert_eq!(g.step(UP), Err(EnvError::EpisodeOver { env: "2048" }));
    }

    #[test]
    fn the_last_move_scores_and_ends_the_game() {
        // Left merges the two 16s; the spawn fills the only empty cell,
        // next to an 8 and a 32, and no merge is left whichever tile comes.
        for seed in 0..20 {
            let mut g = game_at([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 8], [4, 8, 16, 16]]);
            g.reset_to(g.board(), seed);
            assert_eq!(g.legal_mask(), (1 << LEFT) | (1 << RIGHT));
            let step = g.step(LEFT).unwrap();
            assert_eq!(step, Step { reward: 32.0, done: true, truncated: false });
            assert_eq!(g.score(), 32);
            let rows = g.board().rows();
            assert_eq!(rows[3][..3], [4, 8, 32]);
            assert!(rows[3][3] == 2 || rows[3][3] == 4);
            assert!(g.is_over());
        }
    }

    #[test]
    fn each_move_spawns_one_tile_in_an_empty_cell() {
        let start = [[2, 0, 2, 4], [2, 2, 0, 4], [0, 4, 4, 0], [8, 8, 8, 8]];
        let mut g = game_at(start);
        let step = g.step(UP).unwrap();
        assert_eq!(step.reward, 12.0);
        let expected = Board::from_rows([[4, 2, 2, 8], [8, 4, 4, 8], [0, 8, 8, 0], [0, 0, 0, 0]]).unwrap();
        let after = g.board();
        let changed: Vec<usize> = (0..16).filter(|&c| after.exponent(c) != expected.exponent(c)).collect();
        assert_eq!(changed.len(), 1);
        assert_eq!(expected.exponent(changed[0]), 0);
        assert!([1, 2].contains(&after.exponent(changed[0])));
        assert_eq!(g.score(), 12);
    }

    #[test]
    fn spawns_are_four_one_time_in_ten_and_seeded() {
        let mut g = Game2048::new(Game2048Config::default()).unwrap();
        let (mut twos, mut fours) = (0, 0);
        for seed in 0..10_000 {
            g.reset(seed);
            let b = g.board();
            assert_eq!(b.empty_cells().count_ones(), 14);
            for c in 0..16 {
                match b.exponent(c) {
                    0 => {}
                    1 => twos += 1,
                    2 => fours += 1,
                    e => panic!("spawned exponent {e}"),
                }
            }
        }
        assert_eq!(twos + fours, 20_000);
        assert!((1800..2200).contains(&fours), "{fours} fours in 20000 spawns (expected 2000 +- 42)");
        let mut a = g.clone();
        a.reset(77);
        g.reset(77);
        assert_eq!(a.board(), g.board());
    }

    #[test]
    fn random_play_scores_like_the_reference_random_player() {
        // A uniformly random legal player averages about 1,089.
        let mut g = Game2048::new(Game2048Config::default()).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let games = 300;
        let (mut total_score, mut total_moves) = (0u64, 0u64);
        for seed in 0..games {
            g.reset(seed);
            let mut rewards = 0.0f64;
            loop {
                let mut legal = g.legal_mask();
                for _ in 0..rng.random_range(0..legal.count_ones()) {
                    legal &= legal - 1;
                }
                let step = g.step(legal.trailing_zeros() as usize).unwrap();
                rewards += step.reward as f64;
                if step.done {
                    break;
                }
            }
            assert_eq!(rewards as u64, g.score());
            total_score += g.score();
            total_moves += g.moves();
        }
        let mean = total_score as f64 / games as f64;
        let length = total_moves as f64 / games as f64;
        assert!((900.0..1300.0).contains(&mean), "mean random score {mean}");
        assert!((90.0..150.0).contains(&length), "mean random game length {length}");
    }

    #[test]
    fn observations_in_both_encodings() {
        let rows = [[2, 0, 0, 0], [0, 32768, 0, 0], [0; 4], [0, 0, 0, 1024]];
        let mut g = game_at(rows);
        let mut one_hot = [0.5f32; 256];
        g.observe(&mut one_hot);
        for cell in 0..16 {
            let e = g.board().exponent(cell) as usize;
            assert_eq!(one_hot[16 * cell..16 * cell + 16].iter().sum::<f32>(), 1.0);
            assert_eq!(one_hot[16 * cell + e], 1.0);
        }
        assert_eq!(one_hot[16 * 5 + 15], 1.0);
        g = Game2048::new(Game2048Config { encoding: BoardEncoding::Exponents, ..Game2048Config::default() }).unwrap();
        g.reset_to(Board::from_rows(rows).unwrap(), 0);
        assert_eq!(g.observation_size(), 16);
        let mut scaled = [0.5f32; 16];
        g.observe(&mut scaled);
        assert_eq!(scaled[0], 1.0 / 15.0);
        assert_eq!(scaled[5], 1.0);
        assert_eq!(scaled[15], 10.0 / 15.0);
        assert_eq!(scaled[1], 0.0);
    }

    #[test]
    fn both_encodings_read_back_what_they_write() {
        let board = Board::from_rows([[2, 0, 0, 0], [0, 32768, 0, 0], [0; 4], [4, 0, 0, 1024]]).unwrap();
        for encoding in [BoardEncoding::OneHot, BoardEncoding::Exponents] {
            let mut obs = vec![0.0; encoding.observation_size()];
            encoding.write(board, &mut obs);
            assert_eq!(encoding.read(&obs), Ok(board));
            assert!(encoding.read(&obs[1..]).is_err(), "{encoding:?}: short");
            obs[1] += 0.5;
            assert!(encoding.read(&obs).is_err(), "{encoding:?}: not an encoding");
        }
        let mut two_hot = vec![0.0; 256];
        BoardEncoding::OneHot.write(board, &mut two_hot);
        two_hot[16 * 2 + 3] = 1.0;
        assert!(BoardEncoding::OneHot.read(&two_hot).is_err(), "two exponents in one cell");
        assert!(BoardEncoding::Exponents.read(&[2.0; 16]).is_err(), "exponent 30");
    }

    #[test]
    fn bad_config_is_an_error() {
        let err = Game2048::new(Game2048Config { four_probability: 1.5, ..Game2048Config::default() }).unwrap_err();
        assert_eq!(err.to_string(), "Game2048Config.four_probability: expected in [0, 1], found 1.5");
        let c: Game2048Config = serde_json::from_str(r#"{"encoding": "exponents"}"#).unwrap();
        assert_eq!(c.encoding, BoardEncoding::Exponents);
    }
}
