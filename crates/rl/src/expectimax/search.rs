//! The search: max nodes over the player's moves, chance nodes averaging
//! over chance's outcomes, afterstates valued by the caller at the leaves.

use super::table::TranspositionTable;
use super::{ChanceGame, Move, Outcome};
use crate::{Check, Result};

/// The deepest search: depth 6 on 2048 is thousands of times depth 3's
/// work, far past play at any useful speed.
pub const MAX_DEPTH: usize = 6;

/// How far and how exactly the search looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpectimaxConfig {
    /// Moves looked ahead: 1 is greedy afterstate play, each further
    /// level a chance node and the player's reply (1..=[`MAX_DEPTH`]).
    pub depth: usize,
    /// A chance node reached with a probability below this (the product of
    /// the chance outcomes on its path) is valued as a leaf, by the value
    /// function, instead of being expanded; 0 expands every node.
    pub min_probability: f32,
    /// The transposition table holds `2^table_bits` chance nodes (0: no
    /// table, at most 26).
    pub table_bits: u32,
}

impl Default for ExpectimaxConfig {
    /// Greedy play (depth 1), every node expanded, a table of 2^16 nodes.
    fn default() -> Self {
        Self { depth: 1, min_probability: 0.0, table_bits: 16 }
    }
}

impl ExpectimaxConfig {
    /// Refuses a value out of range, naming its key in `config`.
    pub fn validate(&self, config: &'static str) -> Result<()> {
        let check = Check(config);
        check.count_in("depth", "1..=6", self.depth as u64, 1, MAX_DEPTH as u64)?;
        check.unit_open("min_probability", self.min_probability)?;
        check.count_in("table_bits", "0..=26", self.table_bits as u64, 0, 26)?;
        Ok(())
    }
}

/// What a search did, summed since the searcher was built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCounts {
    /// Afterstates valued by the value function.
    pub leaves: u64,
    /// Chance nodes expanded.
    pub chance_nodes: u64,
    /// Chance nodes answered by the transposition table.
    pub table_hits: u64,
    /// Chance nodes valued as leaves for their low probability.
    pub pruned: u64,
}

/// An expectimax searcher of one game's states, with its scratch: the
/// moves and outcomes of every level and the transposition table, all
/// allocated in [`Expectimax::new`].
pub struct Expectimax<S> {
    config: ExpectimaxConfig,
    /// `moves[level]`: the moves of the max node at `level` (the root is 0).
    moves: Vec<Vec<Move<S>>>,
    /// `outcomes[level]`: the outcomes of the chance node below level `level`'s move.
    outcomes: Vec<Vec<Outcome<S>>>,
    table: TranspositionTable<S>,
    counts: SearchCounts,
}

impl<S> std::fmt::Debug for Expectimax<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expectimax").field("config", &self.config).field("counts", &self.counts).finish()
    }
}

impl<S: Copy + Default + PartialEq + std::hash::Hash> Expectimax<S> {
    /// A searcher of `G`'s states, or the config's error
    /// (`ExpectimaxConfig.depth`).
    pub fn new<G: ChanceGame<State = S>>(config: &ExpectimaxConfig) -> Result<Self> {
        config.validate("ExpectimaxConfig")?;
        Ok(Self {
            config: *config,
            moves: vec![vec![Move::default(); G::MAX_MOVES]; config.depth],
            outcomes: vec![vec![Outcome::default(); G::MAX_OUTCOMES]; config.depth],
            table: TranspositionTable::new(if config.depth > 2 { config.table_bits } else { 0 }),
            counts: SearchCounts::default(),
        })
    }

    /// Its config.
    pub fn config(&self) -> &ExpectimaxConfig {
        &self.config
    }

    /// What its searches did so far.
    pub fn counts(&self) -> SearchCounts {
        self.counts
    }

    /// The move of `state` with the largest expected reward plus value
    /// `depth` moves ahead, where `value` values afterstates (0 past the
    /// end of the game); `None` when `state` has no legal move. Ties go to
    /// the first move in `game`'s order.
    pub fn best_move<G: ChanceGame<State = S>>(
        &mut self,
        game: &G,
        state: S,
        value: &impl Fn(S) -> f32,
    ) -> Option<Move<S>> {
        self.table.next_generation();
        self.best(game, state, 0, 1.0, value).map(|(m, _)| m)
    }

    /// The best move at `level` and its value: reward + the value of the
    /// chance node below it with `depth - 1 - level` levels left.
    fn best<G: ChanceGame<State = S>>(
        &mut self,
        game: &G,
        state: S,
        level: usize,
        probability: f32,
        value: &impl Fn(S) -> f32,
    ) -> Option<(Move<S>, f32)> {
        let count = game.moves(state, &mut self.moves[level]);
        assert!(count <= G::MAX_MOVES, "expectimax: {count} moves, MAX_MOVES is {}", G::MAX_MOVES);
        let mut best: Option<(Move<S>, f32)> = None;
        for k in 0..count {
            let m = self.moves[level][k];
            let q = m.reward + self.chance(game, m.after, level, probability, value);
            if best.is_none_or(|(_, best_q)| q > best_q) {
                best = Some((m, q));
            }
        }
        best
    }

    /// The value of afterstate `after` below max node `level`: a leaf at
    /// the last level, else the outcomes' probability-weighted best replies.
    fn chance<G: ChanceGame<State = S>>(
        &mut self,
        game: &G,
        after: S,
        level: usize,
        probability: f32,
        value: &impl Fn(S) -> f32,
    ) -> f32 {
        let left = (self.config.depth - 1 - level) as u8;
        if left == 0 || probability < self.config.min_probability {
            self.counts.leaves += 1;
            self.counts.pruned += (left > 0) as u64;
            return value(after);
        }
        if let Some(v) = self.table.get(&after, left) {
            self.counts.table_hits += 1;
            return v;
        }
        self.counts.chance_nodes += 1;
        let count = game.outcomes(after, &mut self.outcomes[level]);
        assert!(
            (1..=G::MAX_OUTCOMES).contains(&count),
            "expectimax: {count} outcomes, expected 1..={}",
            G::MAX_OUTCOMES
        );
        let mut expected = 0.0;
        for k in 0..count {
            let o = self.outcomes[level][k];
            let reply = self.best(game, o.state, level + 1, probability * o.probability, value);
            expected += o.probability * reply.map_or(0.0, |(_, q)| q);
        }
        self.table.put(after, left, expected);
        expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitmix;

    /// A small made-up game: states 0..40, up to 3 moves and up to 3
    /// outcomes each, drawn from hashes of the state; multiples of 7 are
    /// over. Afterstates and positions share the numbering.
    struct Toy;

    impl ChanceGame for Toy {
        type State = u32;
        const MAX_MOVES: usize = 3;
        const MAX_OUTCOMES: usize = 3;

        fn moves(&self, s: u32, out: &mut [Move<u32>]) -> usize {
            if s.is_multiple_of(7) {
                return 0;
            }
            let count = 1 + splitmix(s as u64) as usize % 3;
            for (a, m) in out[..count].iter_mut().enumerate() {
                let h = splitmix((s as u64) << 8 | a as u64);
                *m = Move { action: a, after: (h % 40) as u32, reward: (h >> 40) as f32 % 5.0 };
            }
            count
        }

        fn outcomes(&self, after: u32, out: &mut [Outcome<u32>]) -> usize {
            let count = 1 + splitmix(after as u64 ^ 0xabc) as usize % 3;
            let weights: Vec<f32> =
                (0..count).map(|k| 1.0 + (splitmix(after as u64 * 3 + k as u64) % 4) as f32).collect();
            let total: f32 = weights.iter().sum();
            for k in 0..count {
                let state = (splitmix(after as u64 * 31 + k as u64) % 40) as u32;
                out[k] = Outcome { probability: weights[k] / total, state };
            }
            count
        }
    }

    fn toy_value(after: u32) -> f32 {
        (after as f32 * 0.37).sin() * 3.0
    }

    /// Expectimax by its definition, allocating as it goes.
    fn reference(s: u32, depth: usize) -> Option<(usize, f32)> {
        let mut moves = vec![Move::default(); 3];
        let n = Toy.moves(s, &mut moves);
        let mut best: Option<(usize, f32)> = None;
        for m in &moves[..n] {
            let q = m.reward + reference_chance(m.after, depth - 1);
            if best.is_none_or(|(_, b)| q > b) {
                best = Some((m.action, q));
            }
        }
        best
    }

    fn reference_chance(after: u32, left: usize) -> f32 {
        if left == 0 {
            return toy_value(after);
        }
        let mut outcomes = vec![Outcome::default(); 3];
        let n = Toy.outcomes(after, &mut outcomes);
        outcomes[..n].iter().map(|o| o.probability * reference(o.state, left).map_or(0.0, |(_, q)| q)).sum()
    }

    fn search(depth: usize, table_bits: u32) -> Expectimax<u32> {
        Expectimax::new::<Toy>(&ExpectimaxConfig { depth, table_bits, ..ExpectimaxConfig::default() }).unwrap()
    }

    #[test]
    fn every_depth_agrees_with_the_definition_with_or_without_the_table() {
        for depth in 1..=4 {
            for bits in [0, 4, 12] {
                let mut searcher = search(depth, bits);
                for s in 0..40 {
                    let got = searcher.best(&Toy, s, 0, 1.0, &toy_value).map(|(m, q)| (m.action, q));
                    let want = reference(s, depth);
                    match (got, want) {
                        (Some((a, q)), Some((b, r))) => {
                            assert!((q - r).abs() < 1e-4, "state {s}, depth {depth}: {q} vs {r}");
                            assert_eq!(a, b, "state {s}, depth {depth}");
                        }
                        (got, want) => assert_eq!(got.is_none(), want.is_none(), "state {s}"),
                    }
                    searcher.table.next_generation();
                }
                let hits = searcher.counts().table_hits;
                assert_eq!(hits > 0, depth > 2 && bits > 0, "depth {depth}, {bits} bits: {hits} table hits");
            }
        }
    }

    #[test]
    fn each_toy_afterstate_has_outcomes_summing_to_one() {
        let mut out = [Outcome::default(); 3];
        for after in 0..40 {
            let n = Toy.outcomes(after, &mut out);
            let total: f32 = out[..n].iter().map(|o| o.probability).sum();
            assert!((total - 1.0).abs() < 1e-6, "{after}: {total}");
        }
    }

    #[test]
    fn depth_one_is_greedy_afterstate_play() {
        let mut searcher = search(1, 16);
        let mut moves = [Move::default(); 3];
        for s in 0..40 {
            let n = Toy.moves(s, &mut moves);
            let greedy = moves[..n]
                .iter()
                .copied()
                .reduce(|a, b| if b.reward + toy_value(b.after) > a.reward + toy_value(a.after) { b } else { a });
            assert_eq!(searcher.best_move(&Toy, s, &toy_value), greedy, "state {s}");
        }
        assert_eq!(searcher.counts().chance_nodes, 0);
    }

    #[test]
    fn an_unlikely_chance_node_is_valued_as_a_leaf() {
        let pruned = ExpectimaxConfig { depth: 3, min_probability: 0.99, table_bits: 0 };
        let mut searcher = Expectimax::new::<Toy>(&pruned).unwrap();
        let (mut exact, mut shallow) = (search(3, 0), search(2, 0));
        for s in 0..40 {
            // Every node below a real chance event is below 0.99: depth 3
            // prunes down to depth 2 wherever chance had a choice.
            searcher.best_move(&Toy, s, &toy_value);
            exact.best_move(&Toy, s, &toy_value);
            shallow.best_move(&Toy, s, &toy_value);
        }
        let (p, e, d) = (searcher.counts(), exact.counts(), shallow.counts());
        assert!(p.pruned > 0 && p.leaves < e.leaves && p.leaves >= d.leaves, "{p:?} {e:?} {d:?}");
    }

    #[test]
    fn bad_configs_name_their_key() {
        let err = |c: ExpectimaxConfig| Expectimax::<u32>::new::<Toy>(&c).err().unwrap().to_string();
        let base = ExpectimaxConfig::default();
        assert_eq!(err(ExpectimaxConfig { depth: 0, ..base }), "ExpectimaxConfig.depth: expected 1..=6, found 0");
        assert!(err(ExpectimaxConfig { min_probability: 1.0, ..base }).starts_with("ExpectimaxConfig.min_probability"));
        assert!(err(ExpectimaxConfig { table_bits: 27, ..base }).starts_with("ExpectimaxConfig.table_bits"));
    }
}
