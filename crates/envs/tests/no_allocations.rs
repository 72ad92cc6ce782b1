//! Stepping, observing and resetting allocate nothing once an environment
//! is built (the cube's distance oracle too, once its table exists).

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_envs::backgammon::{TurnPlays, pubeval::Pubeval};
use minnow_envs::{
    Backgammon, BoardEncoding, CartPole, CartPoleConfig, ConnectFour, Cube2, Cube2Config, CubeDistances, CubeState,
    Env, Game, Game2048, Game2048Config, TicTacToe, Turn,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Plays `steps` random legal steps, resetting finished episodes; returns
/// the episodes finished.
fn play<E: Env>(env: &mut E, rng: &mut Pcg64Mcg, observation: &mut [f32], mask: &mut [bool], steps: usize) -> u64 {
    let mut episodes = 0;
    for _ in 0..steps {
        env.legal_actions(mask);
        let mut bits = env.legal_mask();
        for _ in 0..rng.random_range(0..bits.count_ones()) {
            bits &= bits - 1;
        }
        let action = bits.trailing_zeros() as usize;
        assert!(mask[action]);
        if env.step(action).unwrap().is_over() {
            episodes += 1;
            env.reset(episodes);
        }
        env.observe(observation);
    }
    episodes
}

fn assert_play_allocates_nothing<E: Env>(mut env: E) {
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let mut observation = vec![0.0; env.observation_size()];
    let mut mask = vec![false; env.action_count()];
    play(&mut env, &mut rng, &mut observation, &mut mask, 100);
    // Per thread: the tests of this binary run concurrently.
    let (episodes, on_thread, _) = count_allocations(|| play(&mut env, &mut rng, &mut observation, &mut mask, 20_000));
    assert!(episodes > 0, "{}: no episode finished", E::NAME);
    assert_eq!(on_thread.allocations, 0, "{}: {} bytes allocated", E::NAME, on_thread.bytes);
    // Cloning an environment copies plain data.
    let (_, on_thread, _) = count_allocations(|| std::hint::black_box(env.clone()));
    assert_eq!(on_thread.allocations, 0, "{}: clone allocates", E::NAME);
}

#[test]
fn cube2_allocates_nothing() {
    assert_play_allocates_nothing(Cube2::new(Cube2Config::default()).unwrap());
}

#[test]
fn game2048_allocates_nothing() {
    assert_play_allocates_nothing(Game2048::new(Game2048Config::default()).unwrap());
    let config = Game2048Config { encoding: BoardEncoding::Exponents, ..Game2048Config::default() };
    assert_play_allocates_nothing(Game2048::new(config).unwrap());
}

#[test]
fn cartpole_allocates_nothing() {
    assert_play_allocates_nothing(CartPole::new(CartPoleConfig::default()).unwrap());
}

#[test]
fn the_cube_oracle_allocates_nothing() {
    let table = CubeDistances::get();
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    let (_, on_thread, _) = count_allocations(|| {
        for d in 1..=table.diameter() {
            let s: CubeState = table.sample_at_distance(d, &mut rng).unwrap();
            assert_eq!(table.distance(&s), d);
            assert_ne!(table.optimal_moves(&s), 0);
        }
    });
    assert_eq!(on_thread.allocations, 0);
}

/// Plays `steps` random actions and chance outcomes of a game, observing
/// before every decision and restarting finished games; returns the games
/// finished.
fn play_game<G: Game>(game: &mut G, rng: &mut Pcg64Mcg, observation: &mut [f32], steps: usize) -> u64 {
    let mut actions = [0u16; 512];
    let mut probabilities = [0f32; 64];
    let mut games = 0;
    for _ in 0..steps {
        match game.turn() {
            Turn::Player(_) => {
                game.observe(observation);
                let n = game.legal_actions(&mut actions);
                game.apply(actions[rng.random_range(0..n)] as usize).unwrap();
            }
            Turn::Chance => {
                let n = game.chance_outcomes(&mut probabilities);
                game.apply_chance(rng.random_range(0..n)).unwrap();
            }
            Turn::Over => {
                assert!(game.outcome(0).is_some());
                games += 1;
                game.reset(games);
            }
        }
    }
    games
}

fn assert_game_allocates_nothing<G: Game>(mut game: G) {
    assert!(G::MAX_LEGAL <= 512 && G::MAX_OUTCOMES <= 64);
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let mut observation = vec![0.0; G::OBSERVATION_SIZE];
    play_game(&mut game, &mut rng, &mut observation, 100);
    let (games, on_thread, _) = count_allocations(|| play_game(&mut game, &mut rng, &mut observation, 20_000));
    assert!(games > 0, "{}: no game finished", G::NAME);
    assert_eq!(on_thread.allocations, 0, "{}: {} bytes allocated", G::NAME, on_thread.bytes);
    let (_, on_thread, _) = count_allocations(|| std::hint::black_box(game.clone()));
    assert_eq!(on_thread.allocations, 0, "{}: clone allocates", G::NAME);
}

#[test]
fn tictactoe_allocates_nothing() {
    assert_game_allocates_nothing(TicTacToe::new());
}

#[test]
fn connect4_allocates_nothing() {
    assert_game_allocates_nothing(ConnectFour::new());
}

#[test]
fn backgammon_allocates_nothing() {
    assert_game_allocates_nothing(Backgammon::default());
}

#[test]
fn pubeval_games_allocate_nothing() {
    // Whole-turn plays enumerated and scored by pubeval for both sides.
    let pubeval = Pubeval::standard();
    let mut plays = TurnPlays::new();
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mut play = |games: u64, rng: &mut Pcg64Mcg| {
        let mut game = Backgammon::default();
        for seed in 0..games {
            game.reset(seed);
            while game.turn() != Turn::Over {
                if game.turn() == Turn::Chance {
                    game.apply_chance(rng.random_range(0..21)).unwrap();
                    continue;
                }
                let found = plays.generate(&game);
                game = found[pubeval.choose(&game, found).unwrap()].after;
            }
        }
    };
    play(2, &mut rng);
    let (_, on_thread, _) = count_allocations(|| play(20, &mut rng));
    assert_eq!(on_thread.allocations, 0, "{} bytes allocated", on_thread.bytes);
}
