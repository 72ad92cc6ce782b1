//! Evaluation: players, seeded matches over both colours, and win rates
//! with 95% confidence intervals.

use crate::mcts::{Evaluator, MctsConfig, NetEvaluator, RolloutEvaluator, Search, final_value, sample_index};
use crate::{Result, RlError};
use minnow_envs::{EnvError, Game, Turn, game_legal_actions_checked};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// Something that picks moves. It hears every move and dice roll, so a
/// searching player can keep its tree.
pub trait Player<G: Game> {
    /// A new game starts at `game`.
    fn start(&mut self, game: &G);
    /// The move for the player to move at `game`: any position, whether or
    /// not the player heard how it came about (a searching player then
    /// searches it afresh).
    fn act(&mut self, game: &G) -> Result<usize>;
    /// `game` is the position after a move (`chance` false) or a dice
    /// outcome (`chance` true) with index `index`.
    fn played(&mut self, game: &G, index: usize, chance: bool);
}

/// Uniformly random legal moves.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: Pcg64Mcg,
    legal: Vec<u16>,
}

impl RandomPlayer {
    /// A player for game `G` whose draws are seeded by `seed`.
    pub fn new<G: Game>(seed: u64) -> Self {
        Self { rng: Pcg64Mcg::seed_from_u64(seed), legal: vec![0; G::MAX_LEGAL.max(1)] }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn start(&mut self, _: &G) {}

    fn act(&mut self, game: &G) -> Result<usize> {
        let n = legal_actions(game, &mut self.legal)?;
        Ok(self.legal[self.rng.random_range(0..n)] as usize)
    }

    fn played(&mut self, _: &G, _: usize, _: bool) {}
}

/// Moves from a closure (an oracle such as tic-tac-toe's solver).
pub struct FnPlayer<F>(pub F);

impl<F> std::fmt::Debug for FnPlayer<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnPlayer")
    }
}

impl<G: Game, F: FnMut(&G) -> usize> Player<G> for FnPlayer<F> {
    fn start(&mut self, _: &G) {}
    fn act(&mut self, game: &G) -> Result<usize> {
        Ok((self.0)(game))
    }
    fn played(&mut self, _: &G, _: usize, _: bool) {}
}

/// The network alone: the legal move with the largest policy logit, no
/// search. After the first move it allocates nothing.
#[derive(Debug)]
pub struct PolicyPlayer<G: Game> {
    evaluator: NetEvaluator<G>,
    logits: Vec<f32>,
    value: [f32; 1],
    legal: Vec<u16>,
}

impl<G: Game> PolicyPlayer<G> {
    /// A player over the network `evaluator` holds.
    pub fn new(evaluator: NetEvaluator<G>) -> Self {
        Self { evaluator, logits: vec![0.0; G::ACTIONS], value: [0.0], legal: vec![0; G::MAX_LEGAL.max(1)] }
    }

    /// The logits and the value of the last position [`Player::act`] saw.
    pub fn last_output(&self) -> (&[f32], f32) {
        (&self.logits, self.value[0])
    }
}

impl<G: Game> Player<G> for PolicyPlayer<G> {
    fn start(&mut self, _: &G) {}

    fn act(&mut self, game: &G) -> Result<usize> {
        let n = legal_actions(game, &mut self.legal)?;
        self.evaluator.evaluate(std::slice::from_ref(game), &mut self.logits, &mut self.value);
        let best = self.legal[..n]
            .iter()
            .copied()
            .max_by(|&a, &b| self.logits[a as usize].total_cmp(&self.logits[b as usize]))
            .expect("n > 0");
        Ok(best as usize)
    }

    fn played(&mut self, _: &G, _: usize, _: bool) {}
}

/// MCTS without noise, playing the most visited move, with any leaf
/// evaluator: the trained network, or random rollouts for the baseline.
/// It keeps its tree between moves it is told of; `act` may be given any
/// position, and one it was not told of is searched on its own
/// ([`Search::set_root`]).
#[derive(Debug)]
pub struct MctsPlayer<G: Game, E> {
    search: Search<G>,
    evaluator: E,
    rng: Pcg64Mcg,
}

impl<G: Game, E: Evaluator<G>> MctsPlayer<G, E> {
    /// A player searching with `config` from `start`, its draws seeded by
    /// `seed`.
    pub fn new(config: &MctsConfig, evaluator: E, start: &G, seed: u64) -> Result<Self> {
        Ok(Self { search: Search::new(config, start)?, evaluator, rng: Pcg64Mcg::seed_from_u64(seed) })
    }

    /// The player's search tree, for its root statistics.
    pub fn search(&self) -> &Search<G> {
        &self.search
    }
}

/// The rollout baseline: `simulations` per move, one random playout per
/// leaf, one leaf per round, tree kept between moves.
pub fn rollout_player<G: Game>(simulations: u32, start: &G, seed: u64) -> Result<MctsPlayer<G, RolloutEvaluator>> {
    let config = MctsConfig { simulations, dirichlet_fraction: 0.0, leaves_per_round: 1, ..MctsConfig::default() };
    MctsPlayer::new(&config, RolloutEvaluator::new::<G>(1, seed ^ 0x0f0f), start, seed)
}

impl<G: Game, E: Evaluator<G>> Player<G> for MctsPlayer<G, E> {
    fn start(&mut self, game: &G) {
        self.search.reset(game);
    }

    /// Searches `game`, on the tree kept from the moves this player was
    /// told of ([`Player::played`]) or the one found below its last root
    /// ([`Search::set_root`]); on a new tree for any other position.
    fn act(&mut self, game: &G) -> Result<usize> {
        self.search.set_root(game)?;
        self.search.run(&mut self.evaluator, false, &mut self.rng)?;
        self.search.choose_action(0.0, &mut self.rng)
    }

    fn played(&mut self, game: &G, index: usize, chance: bool) {
        let followed = if chance { self.search.apply_chance(index) } else { self.search.apply(index) };
        if followed.is_err() {
            self.search.reset(game);
        }
    }
}

/// A player that calls `tick` as each of its games starts (a progress
/// count; the moves are the wrapped player's).
pub struct Ticking<'a, P> {
    /// The player that moves.
    pub player: P,
    /// Called once per game, from the thread that plays it.
    pub tick: &'a (dyn Fn() + Sync),
}

impl<P: std::fmt::Debug> std::fmt::Debug for Ticking<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Ticking").field(&self.player).finish()
    }
}

impl<G: Game, P: Player<G>> Player<G> for Ticking<'_, P> {
    fn start(&mut self, game: &G) {
        (self.tick)();
        self.player.start(game);
    }

    fn act(&mut self, game: &G) -> Result<usize> {
        self.player.act(game)
    }

    fn played(&mut self, game: &G, index: usize, chance: bool) {
        self.player.played(game, index, chance);
    }
}

/// Results of a match, from the first player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Games played.
    pub games: u64,
    /// Games the first player won.
    pub wins: u64,
    /// Games drawn (including those cut off at the move limit).
    pub draws: u64,
    /// Games the first player lost.
    pub losses: u64,
}

impl MatchResult {
    /// Wins per game (0 with no games).
    pub fn win_rate(&self) -> f64 {
        self.wins as f64 / self.games.max(1) as f64
    }

    /// Wins plus half the draws, per game.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }

    /// The 95% Wilson score interval of the win rate.
    pub fn win_rate_ci(&self) -> (f64, f64) {
        wilson(self.wins, self.games, 1.959_964)
    }

    /// Counts one game by its result for the first player (positive a
    /// win, negative a loss, 0 a draw).
    pub fn record(&mut self, result: f32) {
        self.games += 1;
        if result > 0.0 {
            self.wins += 1;
        } else if result < 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Adds another match's counts.
    pub fn add(&mut self, o: &MatchResult) {
        self.games += o.games;
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
    }
}

impl std::fmt::Display for MatchResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (lo, hi) = self.win_rate_ci();
        write!(
            f,
            "{:.1}% wins [95% CI {:.1}-{:.1}%] ({} W / {} D / {} L of {})",
            100.0 * self.win_rate(),
            100.0 * lo,
            100.0 * hi,
            self.wins,
            self.draws,
            self.losses,
            self.games
        )
    }
}

/// Wilson's interval for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, p) = (n as f64, k as f64 / n as f64);
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Plays one game from `G::default()` reset with `seed`; `players[p]`
/// moves for player `p`. Returns player 0's result (clamped to [-1, 1]);
/// a game longer than `max_moves` is a draw. A player's illegal move is an
/// error.
pub fn play_game<G: Game + Default>(players: [&mut dyn Player<G>; 2], seed: u64, max_moves: u32) -> Result<f32> {
    let mut game = G::default();
    game.reset(seed);
    let end = play_from(players, game, seed, max_moves)?;
    Ok(final_value(&end, 0, false))
}

/// Plays `game` on to its end, or until `max_moves` moves have been
/// made, with dice drawn from `seed`; `players[p]` moves for player `p`.
/// Returns the last state (over unless the move limit was reached), so the
/// caller can score it as it likes. A player's illegal move is an error.
pub fn play_from<G: Game>(players: [&mut dyn Player<G>; 2], mut game: G, seed: u64, max_moves: u32) -> Result<G> {
    let mut dice = Pcg64Mcg::seed_from_u64(seed ^ 0xd1ce);
    let mut outcomes = vec![0.0; G::MAX_OUTCOMES.max(1)];
    let [a, b] = players;
    a.start(&game);
    b.start(&game);
    let mut moves = 0;
    loop {
        match game.turn() {
            Turn::Over => return Ok(game),
            Turn::Chance => {
                let n = game.chance_outcomes(&mut outcomes);
                let o = sample_index(&outcomes[..n], &mut dice);
                game.apply_chance(o)?;
                a.played(&game, o, true);
                b.played(&game, o, true);
            }
            Turn::Player(p) => {
                if moves >= max_moves {
                    return Ok(game);
                }
                let action = if p == 0 { a.act(&game)? } else { b.act(&game)? };
                game.apply(action)?;
                a.played(&game, action, false);
                b.played(&game, action, false);
                moves += 1;
            }
        }
    }
}

/// Plays `games` games between a player built by `first` and one built by
/// `second` (each gets the worker index and a seed), the first player
/// taking player 0 in even games and player 1 in odd ones; game `i` is
/// seeded with `seed + i`. Games are spread over `threads` threads in
/// fixed shares, so the result depends only on the seed.
pub fn play_match<G, A, B>(
    first: &(dyn Fn(u64) -> Result<A> + Sync),
    second: &(dyn Fn(u64) -> Result<B> + Sync),
    games: usize,
    seed: u64,
    threads: usize,
    max_moves: u32,
) -> Result<MatchResult>
where
    G: Game + Default,
    A: Player<G>,
    B: Player<G>,
{
    Ok(play_match_from(first, second, games, seed, threads, max_moves, &reset_start)?.total())
}

/// The start of an ordinary match: the reset position of the game's
/// seed (the game's index plays no part).
pub fn reset_start<G: Game + Default>(_game: usize, seed: u64) -> Result<G> {
    let mut game = G::default();
    game.reset(seed);
    Ok(game)
}

/// A match's results split by the first player's seat: games where it
/// was player 0 (the side that moves first, in games that do not draw
/// the opener) and games where it was player 1. A colour can hide a
/// weakness the total does not show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BySeat {
    /// The games where the first player was player 0.
    pub moving_first: MatchResult,
    /// The games where the first player was player 1.
    pub moving_second: MatchResult,
}

impl BySeat {
    /// Both seats together.
    pub fn total(&self) -> MatchResult {
        let mut t = self.moving_first;
        t.add(&self.moving_second);
        t
    }

    fn add(&mut self, o: &BySeat) {
        self.moving_first.add(&o.moving_first);
        self.moving_second.add(&o.moving_second);
    }
}

/// [`play_match`] with game `i` starting from `start(i, seed + i)`
/// ([`reset_start`], openings, set-up positions), the games of each seat
/// kept apart.
pub fn play_match_from<G, A, B>(
    first: &(dyn Fn(u64) -> Result<A> + Sync),
    second: &(dyn Fn(u64) -> Result<B> + Sync),
    games: usize,
    seed: u64,
    threads: usize,
    max_moves: u32,
    start: &(dyn Fn(usize, u64) -> Result<G> + Sync),
) -> Result<BySeat>
where
    G: Game,
    A: Player<G>,
    B: Player<G>,
{
    let play = |a: &mut A, b: &mut B, i: usize, game_seed: u64, r: &mut BySeat| -> Result<()> {
        let game = start(i, game_seed)?;
        let first_moves_first = i.is_multiple_of(2);
        let players: [&mut dyn Player<G>; 2] = if first_moves_first { [a, b] } else { [b, a] };
        let end = play_from(players, game, game_seed, max_moves)?;
        let result = final_value(&end, 0, false);
        if first_moves_first {
            r.moving_first.record(result)
        } else {
            r.moving_second.record(-result)
        }
        Ok(())
    };
    spread_games(first, second, games, seed, threads, &play, BySeat::add)
}

/// The reset position of `seed` followed by `moves` uniformly random
/// moves (chance resolved by its odds), all drawn from `seed`: an opening
/// that two players can both play from each side. Stops early if the game
/// ends.
pub fn random_opening<G: Game + Default>(moves: u32, seed: u64) -> Result<G> {
    let mut game = G::default();
    game.reset(seed);
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x0be1);
    let mut legal = vec![0u16; G::MAX_LEGAL.max(1)];
    let mut odds = vec![0.0f32; G::MAX_OUTCOMES.max(1)];
    let mut played = 0;
    while played < moves {
        match game.turn() {
            Turn::Over => break,
            Turn::Chance => {
                let n = game.chance_outcomes(&mut odds);
                game.apply_chance(sample_index(&odds[..n], &mut rng))?;
            }
            Turn::Player(_) => {
                let n = legal_actions(&game, &mut legal)?;
                game.apply(legal[rng.random_range(0..n)] as usize)?;
                played += 1;
            }
        }
    }
    Ok(game)
}

/// Plays games `0..games` between a player built by `first` and one built
/// by `second`, spread over `threads` threads in fixed shares (each
/// thread's players seeded from the seed and its index; game `i` gets
/// seed `seed + i`), and merges each thread's tally in thread order: the
/// result depends only on the seed and the thread count. `play` plays game
/// `i` and records it.
pub fn spread_games<A, B, R, P>(
    first: &(dyn Fn(u64) -> Result<A> + Sync),
    second: &(dyn Fn(u64) -> Result<B> + Sync),
    games: usize,
    seed: u64,
    threads: usize,
    play: &P,
    merge: impl Fn(&mut R, &R),
) -> Result<R>
where
    R: Default + Send,
    P: Fn(&mut A, &mut B, usize, u64, &mut R) -> Result<()> + Sync,
{
    let threads = threads.clamp(1, games.max(1));
    let share = |t: usize| -> Result<R> {
        let mut a = first(seed.wrapping_mul(31).wrapping_add(t as u64))?;
        let mut b = second(seed.wrapping_mul(37).wrapping_add(t as u64 + 1000))?;
        let mut r = R::default();
        for i in (t..games).step_by(threads) {
            play(&mut a, &mut b, i, seed.wrapping_add(i as u64), &mut r)?;
        }
        Ok(r)
    };
    let shares: Vec<Result<R>> = if threads == 1 {
        vec![share(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || share(t))).collect();
            handles.into_iter().map(|h| h.join().expect("a match thread panicked")).collect()
        })
    };
    let mut total = R::default();
    for r in shares {
        merge(&mut total, &r?);
    }
    Ok(total)
}

/// The legal actions of `game` in `legal`, or an error when no player is
/// to move (a player was asked to act in a finished game or at a chance
/// node) or the game lists none (or one out of range) for the player to
/// move.
fn legal_actions<G: Game>(game: &G, legal: &mut [u16]) -> Result<usize> {
    let found = match game.turn() {
        Turn::Player(_) => return Ok(game_legal_actions_checked(game, legal)?),
        Turn::Over => "the game over",
        Turn::Chance => "a chance node",
    };
    Err(RlError::Env(EnvError::WrongTurn { game: G::NAME, expected: "a player to move", found }))
}
