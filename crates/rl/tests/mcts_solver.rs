//! The MCTS-solver against tic-tac-toe's exact values: proven roots carry
//! the minimax value, and the move chosen keeps it.

use minnow_envs::tictactoe::{best_moves, minimax_value};
use minnow_envs::{Game, TicTacToe, Turn};
use minnow_rl::mcts::{MctsConfig, Search, UniformEvaluator};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn solver(simulations: u32) -> MctsConfig {
    MctsConfig { simulations, dirichlet_fraction: 0.0, solver: true, ..MctsConfig::default() }
}

/// A position after `stones` random moves that is still running.
fn random_position(stones: usize, rng: &mut impl Rng) -> Option<TicTacToe> {
    let mut game = TicTacToe::new();
    let mut legal = [0u16; 9];
    for _ in 0..stones {
        let n = game.legal_actions(&mut legal);
        if n == 0 {
            return None;
        }
        game.apply(legal[rng.random_range(0..n)] as usize).unwrap();
    }
    matches!(game.turn(), Turn::Player(_)).then_some(game)
}

#[test]
fn proven_roots_hold_the_minimax_value_and_the_move_keeps_it() {
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let mut proven = 0;
    for i in 0..60 {
        let Some(game) = random_position(4 + i % 3, &mut rng) else { continue };
        for leaves in [1, 4] {
            let mut search = Search::new(&MctsConfig { leaves_per_round: leaves, ..solver(3000) }, &game).unwrap();
            search.run(&mut UniformEvaluator, false, &mut rng).unwrap();
            let exact = minimax_value(&game) as f32;
            let value = search.proven_value().expect("3000 simulations prove a tic-tac-toe position of 4+ stones");
            assert_eq!(value, exact, "position {i}: proven {value}, minimax {exact}");
            let action = search.choose_action(0.0, &mut rng).unwrap();
            assert!(best_moves(&game) >> action & 1 == 1, "position {i}: move {action} loses value {exact}");
            proven += 1;
        }
    }
    assert!(proven >= 60, "only {proven} positions searched");
}

#[test]
fn without_the_solver_nothing_is_proven() {
    let game = TicTacToe::from_moves(&[0, 3, 1, 4]).unwrap();
    let config = MctsConfig { solver: false, ..solver(400) };
    let mut search = Search::new(&config, &game).unwrap();
    search.run(&mut UniformEvaluator, false, &mut Pcg64Mcg::seed_from_u64(1)).unwrap();
    assert_eq!(search.proven_value(), None);
    let mut search = Search::new(&solver(400), &game).unwrap();
    search.run(&mut UniformEvaluator, false, &mut Pcg64Mcg::seed_from_u64(1)).unwrap();
    assert_eq!(search.proven_value(), Some(1.0));
}
