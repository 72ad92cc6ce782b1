//! After warm-up, searching (batched leaves, network evaluation, tree
//! reuse, root noise) allocates nothing.

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_autodiff::Params;
use minnow_envs::{Game, TicTacToe, Turn};
use minnow_nn::PolicyValueNetConfig;
use minnow_rl::mcts::{Inference, LeafBatch, MctsConfig, NetEvaluator, RolloutEvaluator, Search, search_batched};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Plays `games` tic-tac-toe games at once to the end, every move a
/// batched search; returns the simulations run.
fn play_games(
    searches: &mut [Search<TicTacToe>],
    batch: &mut LeafBatch<TicTacToe>,
    eval: &mut NetEvaluator<TicTacToe>,
    rng: &mut Pcg64Mcg,
) -> u64 {
    for s in searches.iter_mut() {
        s.reset(&TicTacToe::new());
    }
    let mut sims = 0;
    loop {
        let mut any = false;
        for s in searches.iter_mut() {
            if matches!(s.root().turn(), Turn::Player(_)) {
                s.begin(true, rng).unwrap();
                any = true;
            }
        }
        if !any {
            return sims;
        }
        search_batched(searches, batch, eval, rng);
        for s in searches.iter_mut() {
            if matches!(s.root().turn(), Turn::Player(_)) {
                sims += s.simulations_done() as u64;
                let a = s.choose_action(1.0, rng).unwrap();
                s.apply(a).unwrap();
            }
        }
    }
}

#[test]
fn batched_search_with_a_network_allocates_nothing_per_simulation() {
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let mut params = Params::new();
    let net = PolicyValueNetConfig { inputs: 18, width: 32, blocks: 1, policy: 9 }
        .init(&mut params, "net", &mut rng)
        .unwrap();
    let params = Arc::new(params);
    for (inference, solver) in [(Inference::F32, false), (Inference::F32, true), (Inference::Bf16, false)] {
        let mut eval = NetEvaluator::<TicTacToe>::with_inference(&net, params.clone(), inference).unwrap();
        let config = MctsConfig { simulations: 64, leaves_per_round: 4, solver, ..MctsConfig::default() };
        let mut searches: Vec<_> = (0..8).map(|_| Search::new(&config, &TicTacToe::new()).unwrap()).collect();
        let mut batch = LeafBatch::new(8 * 4);
        play_games(&mut searches, &mut batch, &mut eval, &mut rng);
        let (sims, on_thread, _) = count_allocations(|| {
            // A new snapshot between rounds, as self-play gets one per
            // iteration (under bf16 it is converted in place).
            (0..3)
                .map(|_| {
                    eval.set_params(params.clone()).unwrap();
                    play_games(&mut searches, &mut batch, &mut eval, &mut rng)
                })
                .sum::<u64>()
        });
        let what = format!("{inference:?}, solver {solver}");
        assert!(sims > 3 * 8 * 5 * 64, "{what}: {sims} simulations");
        assert_eq!(on_thread.allocations, 0, "{what}: {} bytes over {sims} simulations", on_thread.bytes);
    }
}

#[test]
fn rollout_search_allocates_nothing_with_a_puct_or_a_gumbel_root() {
    for gumbel_considered in [0, 4] {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let config = MctsConfig { simulations: 200, gumbel_considered, ..MctsConfig::default() };
        let mut search = Search::new(&config, &TicTacToe::new()).unwrap();
        let mut eval = RolloutEvaluator::new::<TicTacToe>(1, 0);
        let mut game_loop = |search: &mut Search<TicTacToe>| {
            search.reset(&TicTacToe::new());
            while matches!(search.root().turn(), Turn::Player(_)) {
                search.run(&mut eval, true, &mut rng).unwrap();
                let a = search.choose_action(0.5, &mut rng).unwrap();
                search.apply(a).unwrap();
            }
        };
        game_loop(&mut search);
        let (_, on_thread, _) = count_allocations(|| (0..5).for_each(|_| game_loop(&mut search)));
        assert_eq!(on_thread.allocations, 0, "gumbel {gumbel_considered}: {} bytes", on_thread.bytes);
    }
}

/// A player handed positions it was not told of (set afresh, or found a
/// move or two below its last root) allocates nothing either.
#[test]
fn acting_on_untold_positions_allocates_nothing() {
    use minnow_rl::alphazero::{MctsPlayer, Player, random_opening};
    use minnow_rl::mcts::UniformEvaluator;
    let config = MctsConfig { simulations: 64, dirichlet_fraction: 0.0, ..MctsConfig::default() };
    let mut player = MctsPlayer::new(&config, UniformEvaluator, &TicTacToe::new(), 0).unwrap();
    // Openings, each followed by the position two moves on.
    let mut positions = Vec::new();
    for seed in 0..40 {
        let game: TicTacToe = random_opening((seed % 5) as u32, seed).unwrap();
        positions.push(game);
        let later: TicTacToe = random_opening((seed % 5) as u32 + 2, seed).unwrap();
        positions.push(later);
    }
    positions.retain(|g| matches!(g.turn(), Turn::Player(_)));
    let act_all = |player: &mut MctsPlayer<TicTacToe, UniformEvaluator>| {
        positions.iter().map(|g| player.act(g).unwrap()).sum::<usize>()
    };
    act_all(&mut player);
    let (_, on_thread, _) = count_allocations(|| act_all(&mut player));
    assert_eq!(on_thread.allocations, 0, "{} bytes", on_thread.bytes);
}
