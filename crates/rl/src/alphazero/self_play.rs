//! A self-play worker: many games advanced in lock step, their leaves
//! evaluated in one batch, each finished game's positions labelled with
//! its result.

use super::{Positions, SelfPlayConfig};
use crate::Result;
use crate::mcts::{LeafBatch, MctsConfig, NetEvaluator, Search, final_value, sample_index, search_batched};
use minnow_autodiff::Params;
use minnow_envs::{Game, Turn, game_legal_actions_checked, game_observe_checked};
use minnow_nn::PolicyValueNet;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;

/// What a worker did in one call of [`SelfPlayWorker::play`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Moves played.
    pub moves: u64,
    /// Search simulations run.
    pub simulations: u64,
    /// Games won by player 0, drawn, won by player 1.
    pub results: [u64; 3],
}

impl SelfPlayStats {
    /// Adds another worker's counts.
    pub fn add(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.moves += o.moves;
        self.simulations += o.simulations;
        (0..3).for_each(|i| self.results[i] += o.results[i]);
    }
}

/// The record of one game in flight (its search, whose root is the
/// game, sits at the same index of `searches`).
#[derive(Debug, Default)]
struct Record {
    obs: Vec<f32>,
    policy: Vec<f32>,
    movers: Vec<u8>,
    /// The root's search value for the mover at each recorded position.
    search_values: Vec<f32>,
    /// The root's exact value for the mover where the solver proved it.
    proven: Vec<Option<f32>>,
    /// Whether each recorded position starts its mover's turn.
    turn_starts: Vec<bool>,
    /// A chance node (or the game's start) came since the last recorded
    /// position.
    after_chance: bool,
    moves: u32,
    running: bool,
    /// The current move's search is a full one (recorded).
    full: bool,
}

/// Plays self-play games with a network snapshot. The trees, the batch
/// and the evaluator's tape persist between calls, so after the first
/// games a simulation allocates nothing (recording a position appends to
/// the game's record, which keeps its capacity between games).
#[derive(Debug)]
pub struct SelfPlayWorker<G: Game> {
    config: SelfPlayConfig,
    searches: Vec<Search<G>>,
    slots: Vec<Record>,
    batch: LeafBatch<G>,
    eval: NetEvaluator<G>,
    outcomes: Vec<f32>,
    legal: Vec<u16>,
    policy_row: Vec<f32>,
}

impl<G: Game + Default> SelfPlayWorker<G> {
    /// A worker with `config.parallel_games` searches over snapshot `params` of
    /// `net`.
    pub fn new(net: &PolicyValueNet, params: Arc<Params>, mcts: &MctsConfig, config: &SelfPlayConfig) -> Result<Self> {
        let start = new_game::<G>(0);
        let searches = (0..config.parallel_games).map(|_| Search::new(mcts, &start)).collect::<Result<Vec<_>>>()?;
        Ok(Self {
            config: *config,
            searches,
            slots: (0..config.parallel_games).map(|_| Record::default()).collect(),
            batch: LeafBatch::new(config.parallel_games * mcts.leaves_per_round as usize),
            eval: NetEvaluator::with_inference(net, params, mcts.inference)?,
            outcomes: vec![0.0; G::MAX_OUTCOMES.max(1)],
            legal: vec![0; G::MAX_LEGAL.max(1)],
            policy_row: vec![0.0; G::ACTIONS],
        })
    }

    /// Swaps in a newer parameter snapshot.
    pub fn set_params(&mut self, params: Arc<Params>) -> Result<()> {
        self.eval.set_params(params)
    }

    /// Plays `games` whole games (game `i` seeded from `seed` and `i`),
    /// appending every position to `out` in the order games finish, which
    /// depends only on the seed: the run is deterministic.
    pub fn play(&mut self, games: usize, seed: u64, out: &mut Positions) -> Result<SelfPlayStats> {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut stats = SelfPlayStats::default();
        let mut started = 0;
        for i in 0..self.slots.len() {
            if started < games {
                self.start_game(i, seed.wrapping_add(started as u64), &mut rng)?;
                started += 1;
            } else {
                self.slots[i].running = false;
            }
        }
        while self.slots.iter().any(|s| s.running) {
            let (fraction, fast) = (self.config.full_search_fraction, self.config.fast_simulations);
            for (search, slot) in self.searches.iter_mut().zip(&mut self.slots) {
                if slot.running {
                    slot.full = fraction >= 1.0 || rng.random::<f32>() < fraction;
                    if slot.full {
                        search.begin(true, &mut rng)?;
                    } else {
                        search.begin_with(fast, false, &mut rng)?;
                    }
                }
            }
            // Searches of finished slots were not begun: they report done.
            search_batched(&mut self.searches, &mut self.batch, &mut self.eval, &mut rng);
            for i in 0..self.slots.len() {
                if !self.slots[i].running {
                    continue;
                }
                stats.simulations += self.searches[i].simulations_done() as u64;
                self.step(i, &mut rng)?;
                stats.moves += 1;
                if !self.slots[i].running {
                    self.finish_game(i, out, &mut stats);
                    if started < games {
                        self.start_game(i, seed.wrapping_add(started as u64), &mut rng)?;
                        started += 1;
                    }
                }
            }
        }
        Ok(stats)
    }

    fn start_game(&mut self, i: usize, seed: u64, rng: &mut impl Rng) -> Result<()> {
        let mut game = new_game::<G>(seed);
        let most = self.config.random_opening_moves;
        if most > 0 {
            let k = rng.random_range(0..=most);
            random_moves(&mut game, k, &mut self.legal, &mut self.outcomes, rng)?;
            if game.turn() == Turn::Over {
                // Rare (a random four in a row, say): play this game from the start.
                game = new_game::<G>(seed);
            }
        }
        let (slot, search) = (&mut self.slots[i], &mut self.searches[i]);
        search.reset(&game);
        slot.obs.clear();
        slot.policy.clear();
        slot.movers.clear();
        slot.search_values.clear();
        slot.proven.clear();
        slot.turn_starts.clear();
        slot.after_chance = true;
        slot.moves = 0;
        slot.running = true;
        roll_dice(search, &mut self.outcomes, rng)?;
        slot.running = matches!(search.root().turn(), Turn::Player(_));
        Ok(())
    }

    /// Records the searched position and plays the chosen move (and any
    /// dice after it).
    fn step(&mut self, i: usize, rng: &mut impl Rng) -> Result<()> {
        let (slot, search) = (&mut self.slots[i], &mut self.searches[i]);
        let Turn::Player(mover) = search.root().turn() else {
            slot.running = false;
            return Ok(());
        };
        if slot.full {
            let start = slot.obs.len();
            slot.obs.resize(start + G::OBSERVATION_SIZE, 0.0);
            game_observe_checked(search.root(), &mut slot.obs[start..])?;
            search.visit_policy(&mut self.policy_row);
            slot.policy.extend_from_slice(&self.policy_row);
            slot.turn_starts.push(slot.after_chance || slot.movers.last() != Some(&(mover as u8)));
            slot.after_chance = false;
            slot.movers.push(mover as u8);
            slot.search_values.push(search.root_value());
            slot.proven.push(if self.config.proven_value_target { search.proven_value() } else { None });
        }
        let t = if slot.moves < self.config.temperature_moves {
            self.config.temperature
        } else {
            self.config.final_temperature
        };
        let action = search.choose_action(t, rng)?;
        search.apply(action)?;
        slot.moves += 1;
        slot.after_chance |= search.root().turn() == Turn::Chance;
        roll_dice(search, &mut self.outcomes, rng)?;
        slot.running = matches!(search.root().turn(), Turn::Player(_)) && slot.moves < self.config.max_moves;
        Ok(())
    }

    fn finish_game(&mut self, i: usize, out: &mut Positions, stats: &mut SelfPlayStats) {
        let slot = &self.slots[i];
        let root = self.searches[i].root();
        let result0 = final_value(root, 0, self.searches[i].config().points);
        stats.games += 1;
        stats.results[if result0 > 0.0 {
            0
        } else if result0 < 0.0 {
            2
        } else {
            1
        }] += 1;
        out.obs.extend_from_slice(&slot.obs);
        out.policy.extend_from_slice(&slot.policy);
        let start = out.value.len();
        lambda_returns(
            &slot.movers,
            &slot.search_values,
            &slot.turn_starts,
            result0,
            self.config.value_lambda,
            &mut out.value,
        );
        let w = self.config.search_value_weight;
        let targets = out.value[start..].iter_mut().zip(&slot.search_values).zip(&slot.proven);
        for ((target, &q), &exact) in targets {
            *target = exact.unwrap_or((1.0 - w) * *target + w * q);
        }
    }
}

/// Appends each recorded position's lambda-return for its mover
/// ([`SelfPlayConfig::value_lambda`]): backwards from `result0` (player
/// 0's), every position of a turn takes its turn's return, and a turn's
/// start mixes its search value into the return of the turn before it.
fn lambda_returns(movers: &[u8], values: &[f32], turn_starts: &[bool], result0: f32, lambda: f32, out: &mut Vec<f32>) {
    let start = out.len();
    out.resize(start + movers.len(), 0.0);
    let mut g0 = result0;
    for i in (0..movers.len()).rev() {
        let sign = if movers[i] == 0 { 1.0 } else { -1.0 };
        out[start + i] = sign * g0;
        if turn_starts[i] && lambda < 1.0 {
            g0 = (1.0 - lambda) * sign * values[i] + lambda * g0;
        }
    }
}

/// A game in its start position.
pub(crate) fn new_game<G: Game + Default>(seed: u64) -> G {
    let mut g = G::default();
    g.reset(seed);
    g
}

/// Plays `k` uniformly random moves from `game` (dice drawn with their
/// probabilities), fewer if the game ends first.
fn random_moves<G: Game>(
    game: &mut G,
    k: u32,
    legal: &mut [u16],
    outcomes: &mut [f32],
    rng: &mut impl Rng,
) -> Result<()> {
    let mut played = 0;
    while played < k {
        match game.turn() {
            Turn::Player(_) => {
                let n = game_legal_actions_checked(game, legal)?;
                game.apply(legal[rng.random_range(0..n)] as usize)?;
                played += 1;
            }
            Turn::Chance => {
                let n = game.chance_outcomes(outcomes);
                game.apply_chance(sample_index(&outcomes[..n], rng))?;
            }
            Turn::Over => break,
        }
    }
    Ok(())
}

/// Resolves chance nodes at the root with draws from their probabilities.
pub(crate) fn roll_dice<G: Game>(search: &mut Search<G>, outcomes: &mut [f32], rng: &mut impl Rng) -> Result<()> {
    while search.root().turn() == Turn::Chance {
        let n = search.root().chance_outcomes(outcomes);
        let o = sample_index(&outcomes[..n], rng);
        search.apply_chance(o)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::lambda_returns;

    /// Player 0 moves twice (one turn), player 1 once, player 0 once; the
    /// search values are each mover's own.
    const MOVERS: [u8; 4] = [0, 0, 1, 0];
    const VALUES: [f32; 4] = [0.2, 0.3, -0.4, 0.6];
    const STARTS: [bool; 4] = [true, false, true, true];

    fn returns(lambda: f32, result0: f32) -> Vec<f32> {
        let mut out = vec![9.0];
        lambda_returns(&MOVERS, &VALUES, &STARTS, result0, lambda, &mut out);
        assert_eq!(out[0], 9.0, "appends");
        out.split_off(1)
    }

    #[test]
    fn lambda_one_is_the_result_for_each_mover() {
        assert_eq!(returns(1.0, 1.0), [1.0, 1.0, -1.0, 1.0]);
        assert_eq!(returns(1.0, -1.0), [-1.0, -1.0, 1.0, -1.0]);
    }

    #[test]
    fn lambda_zero_is_the_value_where_the_next_turn_starts() {
        // Player 0's first turn takes player 1's value at the next turn
        // (-0.4 for player 1: 0.4 for player 0); player 1 takes player 0's
        // 0.6 (-0.6 for itself); the last turn takes the result.
        let r = returns(0.0, -1.0);
        let expected = [0.4, 0.4, -0.6, -1.0];
        for (a, b) in r.iter().zip(expected) {
            assert!((a - b).abs() < 1e-6, "{r:?}");
        }
    }

    #[test]
    fn a_turn_shares_one_return_mixed_back_from_the_result() {
        let l = 0.5;
        let r = returns(l, 1.0);
        let last = 1.0;
        let before_last = (1.0 - l) * 0.6 + l * last; // player 0's view
        let first = (1.0 - l) * 0.4 + l * before_last;
        let expected = [first, first, -before_last, last];
        for (a, b) in r.iter().zip(expected) {
            assert!((a - b).abs() < 1e-6, "{r:?} against {expected:?}");
        }
    }
}
