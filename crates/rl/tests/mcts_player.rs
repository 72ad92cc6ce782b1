//! `MctsPlayer::act` on any sequence of positions: a position it was not
//! told of (no `start`, no `played`) gets a search of its own, never the
//! tree of an earlier position, so the move is legal and the same a fresh
//! player would choose; a position a move or two below the last one
//! searched reuses that subtree, as if the moves had been told.

use minnow_envs::{ConnectFour, Game, TicTacToe, Turn};
use minnow_rl::alphazero::{MctsPlayer, Player, random_opening, rollout_player};
use minnow_rl::mcts::{MctsConfig, UniformEvaluator};

const POSITIONS: usize = 300;
const SEED: u64 = 11;

fn config() -> MctsConfig {
    MctsConfig { simulations: 48, dirichlet_fraction: 0.0, leaves_per_round: 4, ..MctsConfig::default() }
}

fn legal<G: Game>(game: &G) -> Vec<u16> {
    let mut legal = vec![0; G::MAX_LEGAL];
    let n = game.legal_actions(&mut legal);
    legal.truncate(n);
    legal
}

/// Whether `b` is `a` or at most `moves` moves after it.
fn within<G: Game + PartialEq>(a: &G, b: &G, moves: u32) -> bool {
    a == b
        || moves > 0
            && legal(a).iter().any(|&m| {
                let mut next = a.clone();
                next.apply(m as usize).unwrap();
                within(&next, b, moves - 1)
            })
}

/// `POSITIONS` random openings where a player is to move, none the
/// previous one or up to two moves after it (those may reuse the previous
/// tree).
fn positions<G: Game + Default + PartialEq>(longest: u32) -> Vec<G> {
    let mut out: Vec<G> = Vec::new();
    let mut seed = 0;
    while out.len() < POSITIONS {
        seed += 1;
        let game: G = random_opening((seed % (longest as u64 + 1)) as u32, seed).unwrap();
        if matches!(game.turn(), Turn::Player(_)) && out.last().is_none_or(|last| !within(last, &game, 2)) {
            out.push(game);
        }
    }
    out
}

/// One player acting on every position without being told of any:
/// every move legal and the move of a fresh player built at the position.
fn acts_like_a_fresh_player<G: Game + Default + PartialEq>(longest: u32) {
    let positions = positions::<G>(longest);
    let mut player = MctsPlayer::new(&config(), UniformEvaluator, &G::default(), SEED).unwrap();
    let (mut illegal, mut differing) = (0, 0);
    for game in &positions {
        let action = player.act(game).unwrap();
        illegal += !legal(game).contains(&(action as u16)) as usize;
        let mut fresh = MctsPlayer::new(&config(), UniformEvaluator, game, SEED).unwrap();
        differing += (fresh.act(game).unwrap() != action) as usize;
    }
    assert_eq!((illegal, differing), (0, 0), "{}: illegal moves, moves unlike a fresh player's", G::NAME);
}

#[test]
fn act_on_unrelated_positions_is_a_fresh_search_tictactoe() {
    acts_like_a_fresh_player::<TicTacToe>(6);
}

#[test]
fn act_on_unrelated_positions_is_a_fresh_search_connect4() {
    acts_like_a_fresh_player::<ConnectFour>(20);
}

/// With random playouts (an evaluator with its own draws), a player that
/// is never told equals one told of every position by `start`.
#[test]
fn act_alone_equals_start_then_act_with_rollouts() {
    let positions = positions::<ConnectFour>(20);
    let start = ConnectFour::default();
    let mut untold = rollout_player(40, &start, SEED).unwrap();
    let mut told = rollout_player(40, &start, SEED).unwrap();
    for (i, game) in positions.iter().enumerate() {
        told.start(game);
        let expected = told.act(game).unwrap();
        assert_eq!(untold.act(game).unwrap(), expected, "position {i}");
    }
}

/// A position one or two moves below the last one searched keeps that
/// subtree, exactly as if the moves had been told with `played`.
#[test]
fn act_below_the_last_root_reuses_its_subtree() {
    let game = TicTacToe::from_moves(&[4]).unwrap();
    let player = || MctsPlayer::new(&config(), UniformEvaluator, &game, SEED).unwrap();
    let mut paths: Vec<Vec<u16>> = legal(&game).into_iter().map(|m| vec![m]).collect();
    for first in legal(&game) {
        let mut next = game;
        next.apply(first as usize).unwrap();
        paths.extend(legal(&next).into_iter().map(|m| vec![first, m]));
    }
    let mut reused = [0; 2];
    for path in &paths {
        let (mut untold, mut told) = (player(), player());
        untold.act(&game).unwrap();
        told.act(&game).unwrap();
        let mut next = game;
        for &m in path {
            next.apply(m as usize).unwrap();
            told.played(&next, m as usize, false);
        }
        // What the told player kept: the root's visits before its search.
        let kept = told.search().root_visits();
        assert_eq!(untold.act(&next).unwrap(), told.act(&next).unwrap(), "after {path:?}");
        assert_eq!(untold.search().root_visits(), kept + config().simulations, "after {path:?}: the subtree kept");
        reused[path.len() - 1] += (kept > 0) as usize;
    }
    assert!(reused[0] > 0 && reused[1] > 0, "subtrees one and two moves down were kept: {reused:?}");
}
