//! MCTS on tic-tac-toe against the exact solver, on a small dice game
//! whose expectations are known, and on bad input.

use minnow_envs::tictactoe::{best_moves, minimax_value};
use minnow_envs::{EnvError, Game, TicTacToe, Turn};
use minnow_rl::RlError;
use minnow_rl::mcts::{ChanceMode, MctsConfig, RolloutEvaluator, Search, UniformEvaluator};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn config(simulations: u32) -> MctsConfig {
    MctsConfig { simulations, dirichlet_fraction: 0.0, ..MctsConfig::default() }
}

/// A perfect player that picks uniformly among the moves keeping the
/// minimax value.
fn minimax_move(game: &TicTacToe, rng: &mut impl Rng) -> usize {
    let best = best_moves(game);
    let options: Vec<usize> = (0..9).filter(|c| best >> c & 1 == 1).collect();
    options[rng.random_range(0..options.len())]
}

#[test]
fn rollout_mcts_never_loses_to_minimax_in_either_colour() {
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let mut results = [0usize; 3];
    for game_index in 0..100 {
        let mcts_player = game_index % 2;
        let mut game = TicTacToe::new();
        let mut search = Search::new(&config(4000), &game).unwrap();
        let mut eval = RolloutEvaluator::new::<TicTacToe>(1, game_index as u64);
        while let Turn::Player(p) = game.turn() {
            let action = if p == mcts_player {
                search.run(&mut eval, false, &mut rng).unwrap();
                search.choose_action(0.0, &mut rng).unwrap()
            } else {
                minimax_move(&game, &mut rng)
            };
            game.apply(action).unwrap();
            search.apply(action).unwrap();
        }
        let r = game.outcome(mcts_player).unwrap();
        results[(r + 1.0) as usize] += 1;
    }
    assert_eq!(results[0], 0, "MCTS lost {} of 100 games to minimax (draws {})", results[0], results[1]);
}

#[test]
fn search_finds_the_winning_and_the_saving_move() {
    // X: 0, 1; O: 3, 4; X to move: 2 wins at once.
    let win = TicTacToe::from_moves(&[0, 3, 1, 4]).unwrap();
    // X: 0, 8; O: 4, 3; X to move must block 3-4-5 at 5.
    let block = TicTacToe::from_moves(&[0, 4, 8, 3]).unwrap();
    assert_eq!(minimax_value(&block), 0);
    for (game, expected) in [(win, 1u16 << 2), (block, 1u16 << 5)] {
        for leaves in [1, 8] {
            let cfg = MctsConfig { leaves_per_round: leaves, ..config(400) };
            let mut search = Search::new(&cfg, &game).unwrap();
            let mut rng = Pcg64Mcg::seed_from_u64(1);
            search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
            let a = search.choose_action(0.0, &mut rng).unwrap();
            assert_eq!(1 << a & expected, 1 << a, "leaves {leaves}: chose {a} in {game:?}");
            assert_eq!(search.simulations_done(), 400);
            assert_eq!(search.root_visits(), 400);
        }
    }
}

#[test]
fn root_values_converge_to_minimax() {
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    // Random reachable positions; with enough simulations the root value
    // has the sign of the exact value.
    let mut checked = 0;
    for trial in 0..30 {
        let mut game = TicTacToe::new();
        let plies = 2 + trial % 5;
        let mut legal = [0u16; 9];
        for _ in 0..plies {
            let n = game.legal_actions(&mut legal);
            if n == 0 {
                break;
            }
            game.apply(legal[rng.random_range(0..n)] as usize).unwrap();
        }
        if game.turn() == Turn::Over {
            continue;
        }
        let mut search = Search::new(&config(6000), &game).unwrap();
        search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
        let exact = minimax_value(&game) as f32;
        let v = search.root_value();
        if exact != 0.0 {
            assert!(v * exact > 0.3, "{game:?}: exact {exact}, search {v}");
        } else {
            assert!(v.abs() < 0.5, "{game:?}: exact draw, search {v}");
        }
        let a = search.choose_action(0.0, &mut rng).unwrap();
        assert!(best_moves(&game) >> a & 1 == 1, "{game:?}: move {a} loses value");
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn subtree_is_kept_across_moves() {
    let game = TicTacToe::new();
    let mut search = Search::new(&config(800), &game).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
    let a = search.choose_action(0.0, &mut rng).unwrap();
    let kept = search.visits(a);
    assert!(kept > 50);
    let size = search.tree_size();
    search.apply(a).unwrap();
    assert_eq!(search.root_visits(), kept);
    assert!(search.tree_size() < size);
    search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
    assert_eq!(search.root_visits(), kept + 800);

    let no_reuse = MctsConfig { reuse_tree: false, ..config(800) };
    let mut fresh = Search::new(&no_reuse, &game).unwrap();
    fresh.run(&mut UniformEvaluator, false, &mut rng).unwrap();
    fresh.apply(a).unwrap();
    assert_eq!(fresh.root_visits(), 0);
    assert_eq!(fresh.tree_size(), 1);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let zero = MctsConfig { simulations: 0, ..MctsConfig::default() };
    let err = Search::new(&zero, &TicTacToe::new()).unwrap_err();
    assert!(err.to_string().contains("simulations"), "{err}");
    let bad_c = MctsConfig { c_puct: -1.0, ..MctsConfig::default() };
    assert!(matches!(
        Search::new(&bad_c, &TicTacToe::new()),
        Err(RlError::Config(minnow_optim::ConfigError { key: "c_puct", .. }))
    ));

    let mut search = Search::new(&config(50), &TicTacToe::new()).unwrap();
    search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
    let err = search.choose_action(-1.0, &mut rng).unwrap_err();
    assert!(err.to_string().contains("temperature"), "{err}");
    // An illegal move (cell 9 does not exist; a taken cell is illegal):
    let size = search.tree_size();
    assert!(matches!(search.apply(9), Err(RlError::Env(EnvError::ActionOutOfRange { .. }))));
    search.apply(4).unwrap();
    assert!(matches!(search.apply(4), Err(RlError::Env(EnvError::IllegalMove { .. }))));
    assert!(search.tree_size() <= size);
    // A finished game asked to move:
    let over = TicTacToe::from_moves(&[0, 3, 1, 4, 2]).unwrap();
    let mut search = Search::new(&config(50), &over).unwrap();
    let err = search.run(&mut UniformEvaluator, false, &mut rng).unwrap_err();
    assert!(err.to_string().contains("game over"), "{err}");
    assert!(search.choose_action(0.0, &mut rng).is_err());
}

/// A one-move dice game: player 0 picks a die, nature rolls it, and after
/// a winning roll player 1 moves (it can save a draw after roll 2 of die
/// 1). Expected values for player 0: die 0 -> 0.0, die 1 -> 0.4.
#[derive(Clone, Copy, Debug, Default)]
struct Dice {
    stage: u8,
    die: u8,
    roll: u8,
    result: Option<f32>,
}

impl Game for Dice {
    const NAME: &'static str = "dice";
    const ACTIONS: usize = 2;
    const MAX_LEGAL: usize = 2;
    const MAX_OUTCOMES: usize = 3;
    const OBSERVATION_SIZE: usize = 1;

    fn reset(&mut self, _seed: u64) {
        *self = Self::default();
    }
    fn turn(&self) -> Turn {
        match (self.result, self.stage) {
            (Some(_), _) => Turn::Over,
            (None, 0) => Turn::Player(0),
            (None, 1) => Turn::Chance,
            _ => Turn::Player(1),
        }
    }
    fn legal_actions(&self, out: &mut [u16]) -> usize {
        if matches!(self.turn(), Turn::Player(_)) {
            out[..2].copy_from_slice(&[0, 1]);
            2
        } else {
            0
        }
    }
    fn apply(&mut self, action: usize) -> Result<(), EnvError> {
        if action >= 2 {
            return Err(EnvError::ActionOutOfRange { env: "dice", action, action_count: 2 });
        }
        match self.turn() {
            Turn::Player(0) => {
                self.die = action as u8;
                self.stage = 1;
            }
            Turn::Player(_) => {
                // Player 1 after a winning roll: action 1 makes it a draw
                // only after roll 2 of die 1 (worth knowing for the search:
                // the true value of that outcome is 0, not +1).
                let saved = self.die == 1 && self.roll == 2 && action == 1;
                self.result = Some(if saved { 0.0 } else { 1.0 });
            }
            _ => return Err(EnvError::WrongTurn { game: "dice", expected: "a player", found: "other" }),
        }
        Ok(())
    }
    fn chance_outcomes(&self, out: &mut [f32]) -> usize {
        match (self.turn(), self.die) {
            (Turn::Chance, 0) => {
                out[..2].copy_from_slice(&[0.5, 0.5]);
                2
            }
            (Turn::Chance, _) => {
                // Die 1: outcome 0 loses (0.1), 1 wins (0.5), 2 wins unless
                // player 1 saves a draw (0.4).
                out[..3].copy_from_slice(&[0.1, 0.5, 0.4]);
                3
            }
            _ => 0,
        }
    }
    fn apply_chance(&mut self, outcome: usize) -> Result<(), EnvError> {
        if self.turn() != Turn::Chance {
            return Err(EnvError::WrongTurn { game: "dice", expected: "a chance node", found: "a player" });
        }
        self.roll = outcome as u8;
        // Outcome 0 loses with either die.
        if outcome == 0 {
            self.result = Some(-1.0);
        } else {
            self.stage = 2;
        }
        Ok(())
    }
    fn outcome(&self, player: usize) -> Option<f32> {
        self.result.map(|r| if player == 0 { r } else { -r })
    }
    fn observe(&self, out: &mut [f32]) {
        out[0] = self.stage as f32;
    }
}

#[test]
fn chance_nodes_take_the_expectation_over_outcomes() {
    // Die 0: 0.5 * (+1) + 0.5 * (-1) = 0. Die 1: 0.1 * (-1) + 0.5 * (+1) +
    // 0.4 * 0 (player 1 saves the draw) = 0.4. Player 0 should pick die 1
    // and value the root near 0.4.
    for mode in [ChanceMode::Stratified, ChanceMode::Sample] {
        let cfg = MctsConfig { chance: mode, c_puct: 1.0, ..config(20_000) };
        let mut search = Search::new(&cfg, &Dice::default()).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
        assert_eq!(search.choose_action(0.0, &mut rng).unwrap(), 1, "{mode:?}");
        let v = search.root_value();
        assert!((v - 0.4).abs() < 0.06, "{mode:?}: root value {v}, expected about 0.4");
        // Follow the move and a roll: the tree below is kept.
        search.apply(1).unwrap();
        let before = search.root_visits();
        search.apply_chance(2).unwrap();
        assert!(search.root_visits() > 0 && search.root_visits() < before);
        search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
        assert_eq!(search.choose_action(0.0, &mut rng).unwrap(), 1, "{mode:?}: player 1 saves the draw");
        assert!(search.apply_chance(0).is_err());
    }
    // The root at a chance node cannot be searched.
    let mut at_roll = Dice::default();
    at_roll.apply(0).unwrap();
    let mut search = Search::new(&config(10), &at_roll).unwrap();
    let err = search.run(&mut UniformEvaluator, false, &mut Pcg64Mcg::seed_from_u64(0)).unwrap_err();
    assert!(err.to_string().contains("chance"), "{err}");
}

#[test]
fn gumbel_root_finds_the_best_move_on_small_budgets() {
    let mut rng = Pcg64Mcg::seed_from_u64(21);
    // A winning move with 16 simulations, with and without Gumbel noise,
    // one leaf or eight per round.
    let win = TicTacToe::from_moves(&[0, 3, 1, 4]).unwrap();
    for (noise, leaves) in [(false, 1), (true, 1), (true, 8)] {
        let cfg = MctsConfig { gumbel_considered: 16, leaves_per_round: leaves, ..config(16) };
        let mut search = Search::new(&cfg, &win).unwrap();
        search.run(&mut UniformEvaluator, noise, &mut rng).unwrap();
        assert_eq!(search.simulations_done(), 16);
        assert_eq!(search.choose_action(0.0, &mut rng).unwrap(), 2, "noise {noise}, leaves {leaves}");
        let mut policy = [0.0; 9];
        search.visit_policy(&mut policy);
        assert!((policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(policy[2] > 0.5, "policy target {policy:?}");
        assert_eq!(policy[0] + policy[1] + policy[3] + policy[4], 0.0, "occupied cells get mass");
    }
    // With a fair budget and every move considered, the Gumbel root keeps
    // the minimax value from random positions, as PUCT does.
    let mut legal = [0u16; 9];
    let mut checked = 0;
    for trial in 0..30 {
        let mut game = TicTacToe::new();
        for _ in 0..2 + trial % 5 {
            let n = game.legal_actions(&mut legal);
            if n == 0 {
                break;
            }
            game.apply(legal[rng.random_range(0..n)] as usize).unwrap();
        }
        if game.turn() == Turn::Over {
            continue;
        }
        let cfg = MctsConfig { gumbel_considered: 9, leaves_per_round: 4, ..config(3000) };
        let mut search = Search::new(&cfg, &game).unwrap();
        search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
        let a = search.choose_action(0.0, &mut rng).unwrap();
        assert!(best_moves(&game) >> a & 1 == 1, "{game:?}: Gumbel root chose {a}");
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn a_shorter_search_runs_its_own_budget_capped_by_the_config() {
    let mut rng = Pcg64Mcg::seed_from_u64(4);
    let mut search = Search::new(&MctsConfig { reuse_tree: false, ..config(64) }, &TicTacToe::new()).unwrap();
    let mut eval = UniformEvaluator;
    for (asked, runs) in [(10, 10), (64, 64), (500, 64), (0, 1)] {
        search.reset(&TicTacToe::new());
        search.begin_with(asked, false, &mut rng).unwrap();
        let mut batch = minnow_rl::mcts::LeafBatch::new(8);
        while !search.is_done() {
            batch.clear();
            search.collect(&mut batch, &mut rng);
            batch.evaluate(&mut eval);
            let (logits, values) = batch.outputs();
            search.absorb(logits, values, &mut rng);
        }
        assert_eq!(search.simulations_done(), runs, "asked for {asked}");
        assert_eq!(search.root_visits(), runs, "asked for {asked}");
    }
    // `begin` is the full budget again after a short search.
    search.reset(&TicTacToe::new());
    search.run(&mut eval, false, &mut rng).unwrap();
    assert_eq!(search.simulations_done(), 64);
}

#[test]
fn with_points_a_gammon_is_worth_two_thirds_of_a_backgammon() {
    use minnow_envs::Backgammon;
    use minnow_envs::backgammon::{BackgammonConfig, Position};
    // Player 0 bears off its last checker with any play; player 1 has
    // borne off none and has nothing in player 0's home board: a gammon.
    let mut points = [0; 24];
    (points[23], points[0]) = (1, -15);
    let position = Position::new(points, [0, 0], [14, 0]).unwrap();
    let game = Backgammon::from_position(BackgammonConfig::default(), position, 0, (6, 2)).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    let mut root_value = |points| {
        let mut search = Search::new(&MctsConfig { points, ..config(100) }, &game).unwrap();
        search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
        // The root's own evaluation (0) is one of the 100 values.
        search.root_value() * 100.0 / 99.0
    };
    assert!((root_value(false) - 1.0).abs() < 1e-5, "a win is a win");
    assert!((root_value(true) - 2.0 / 3.0).abs() < 1e-5, "2 points of at most 3");
}

#[test]
fn the_principal_variation_follows_the_most_visited_moves_to_the_win() {
    // X: 0, 1; O: 3, 4; X to move wins at 2: the line is that move alone,
    // as the game ends there.
    let win = TicTacToe::from_moves(&[0, 3, 1, 4]).unwrap();
    let mut search = Search::new(&config(400), &win).unwrap();
    assert!(search.principal_variation().is_empty(), "no search yet");
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    search.run(&mut RolloutEvaluator::new::<TicTacToe>(1, 3), false, &mut rng).unwrap();
    let line = search.principal_variation();
    assert_eq!(line, [2]);
    assert_eq!(line[0], search.choose_action(0.0, &mut rng).unwrap());
    // From the start the line is a playable sequence of several moves,
    // each the most visited at its node.
    let start = TicTacToe::new();
    let mut search = Search::new(&config(2000), &start).unwrap();
    search.run(&mut RolloutEvaluator::new::<TicTacToe>(1, 4), false, &mut rng).unwrap();
    let line = search.principal_variation();
    assert!(line.len() >= 3, "{line:?}");
    assert_eq!(line[0], search.choose_action(0.0, &mut rng).unwrap());
    let mut game = start;
    for &a in &line {
        game.apply(a).unwrap();
    }
}
