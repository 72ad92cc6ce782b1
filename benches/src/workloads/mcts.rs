//! `mcts/backgammon`: self-play search throughput with docs/ANCHORS.md's
//! 283K-parameter policy/value network (input width 202, backgammon's
//! observation; the 676-wide policy head is kept and its first 156 logits
//! used). 64 games advance in lock step, 100 simulations per move, four
//! leaves per tree per round under virtual loss, so each network call
//! evaluates up to 256 leaves; dice are chance nodes inside the trees,
//! and the tree under the move played is kept. One `run` is one move of
//! every game: 6,400 simulations, the moves chosen with temperature 1, the
//! dice after them rolled, finished games restarted.
//!
//! - `mcts/backgammon`: one thread, simulations/s.
//! - `mcts/backgammon/games`: the same loop, finished games per second
//!   (x60 for games/min). A call is one move of 64 games, far less than a
//!   game, so the first call plays `GAME_SAMPLE_CALLS` calls' worth of
//!   moves and counts the games finished; the throughput is that long-run
//!   rate of games per call over the timed calls' duration.
//! - `mcts/backgammon/bf16`: `mcts/backgammon` with the evaluator's
//!   forward on bf16 weights (`mcts.inference = "bf16"`), simulations/s.
//! - `mcts/backgammon/2thr`: two threads of rayon's pool, each with its own
//!   64 games and evaluator, simulations/s in total; `/bf16/2thr` the same
//!   on bf16 leaves.
//!
//! Floors count the network's work alone: the leaves the searches
//! actually evaluated (counted as they run: a terminal leaf needs no
//! network, so the count is below the simulations) and one read of the
//! weights per network call. The tree walks, move generation and
//! observation encoding are branching work with no floor, so the
//! percentage says how far the whole loop is from running only its
//! network at the machine's limit.

use super::az::{self, NetworkWork};
use crate::roofline::{Cost, Precision, Roofline};
use crate::{Work, Workload};
use minnow_envs::{Backgammon, Game, Turn};
use minnow_nn::{Params, PolicyValueNetConfig};
use minnow_rl::mcts::{Evaluator, Inference, LeafBatch, MctsConfig, NetEvaluator, Search, search_batched};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;

/// Simulations per move.
pub const SIMULATIONS: u32 = 100;
/// Games in lock step.
pub const GAMES: usize = 64;
/// Leaves per tree per round.
pub const LEAVES: u32 = 4;
/// Calls (moves of every game) the games workload measures game length over.
pub const GAME_SAMPLE_CALLS: u64 = 600;

/// docs/ANCHORS.md's network with backgammon's input width.
pub const CONFIG: PolicyValueNetConfig = PolicyValueNetConfig { inputs: 202, ..az::CONFIG };

/// An evaluator that counts its calls and the leaves they evaluate.
struct Counted<E> {
    inner: E,
    calls: u64,
    leaves: u64,
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Counted<E> {
    fn evaluate(&mut self, states: &[G], logits: &mut [f32], values: &mut [f32]) {
        self.calls += 1;
        self.leaves += states.len() as u64;
        self.inner.evaluate(states, logits, values);
    }
}

/// One thread's self-play: games, trees, batch, evaluator.
#[allow(missing_debug_implementations)]
pub struct SelfPlay {
    searches: Vec<Search<Backgammon>>,
    batch: LeafBatch<Backgammon>,
    eval: Counted<NetEvaluator<Backgammon>>,
    network: NetworkWork,
    rng: Pcg64Mcg,
    outcomes: Vec<f32>,
    games_started: u64,
    /// Games finished so far.
    pub games_finished: u64,
    /// Moves played so far.
    pub moves: u64,
    /// Calls of [`SelfPlay::step`] so far.
    steps: u64,
}

impl SelfPlay {
    /// The games, their trees and the network, from `seed`.
    pub fn new(seed: u64) -> Self {
        Self::with_inference(seed, Inference::F32)
    }

    /// As [`SelfPlay::new`], the network's forward at `inference`'s
    /// precision.
    pub fn with_inference(seed: u64, inference: Inference) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let mut params = Params::new();
        let net = CONFIG.init(&mut params, "az", &mut rng).expect("valid network");
        let config =
            MctsConfig { simulations: SIMULATIONS, leaves_per_round: LEAVES, inference, ..MctsConfig::default() };
        let precision = match inference {
            Inference::F32 => Precision::F32,
            Inference::Bf16 => Precision::Bf16,
        };
        let network = NetworkWork::new(&params, &CONFIG, precision);
        let mut games_started = 0;
        let searches = (0..GAMES)
            .map(|i| {
                let mut g = Backgammon::default();
                g.reset(seed * 1_000_000 + i as u64);
                games_started += 1;
                Search::new(&config, &g).expect("valid search config")
            })
            .collect();
        Self {
            searches,
            batch: LeafBatch::new(GAMES * LEAVES as usize),
            eval: Counted {
                inner: NetEvaluator::with_inference(&net, Arc::new(params), inference)
                    .expect("the network fits backgammon"),
                calls: 0,
                leaves: 0,
            },
            network,
            rng: Pcg64Mcg::seed_from_u64(seed),
            outcomes: vec![0.0; Backgammon::MAX_OUTCOMES],
            games_started,
            games_finished: 0,
            moves: 0,
            steps: 0,
        }
    }

    /// The network's work in one step, averaged over the steps so far
    /// (none before the first).
    pub fn cost(&self) -> Option<Cost> {
        let steps = self.steps as f64;
        (self.steps > 0).then(|| self.network.cost(self.eval.leaves as f64 / steps, self.eval.calls as f64 / steps, 1))
    }

    /// One move of every game (a search of `SIMULATIONS` each); returns
    /// the simulations run.
    pub fn step(&mut self) -> u64 {
        self.steps += 1;
        for s in &mut self.searches {
            s.begin(true, &mut self.rng).expect("every root is a player's decision");
        }
        search_batched(&mut self.searches, &mut self.batch, &mut self.eval, &mut self.rng);
        let mut sims = 0;
        for s in &mut self.searches {
            sims += s.simulations_done() as u64;
            let a = s.choose_action(1.0, &mut self.rng).expect("a searched root");
            s.apply(a).expect("a legal move");
            self.moves += 1;
            loop {
                match s.root().turn() {
                    Turn::Player(_) => break,
                    Turn::Chance => {
                        let n = s.root().chance_outcomes(&mut self.outcomes);
                        let mut x = self.rng.random::<f32>();
                        let mut o = n - 1;
                        for (i, &p) in self.outcomes[..n].iter().enumerate() {
                            if x < p {
                                o = i;
                                break;
                            }
                            x -= p;
                        }
                        s.apply_chance(o).expect("a listed outcome");
                    }
                    Turn::Over => {
                        self.games_finished += 1;
                        let mut g = Backgammon::default();
                        g.reset(self.games_started);
                        self.games_started += 1;
                        s.reset(&g);
                    }
                }
            }
        }
        sims
    }
}

/// `mcts/backgammon` (simulations/s) or `mcts/backgammon/games` (games/s).
#[allow(missing_debug_implementations)]
pub struct MctsBackgammon {
    play: SelfPlay,
    games: bool,
    /// The `/bf16` variant (simulations/s).
    bf16: bool,
    /// Games finished per call over `GAME_SAMPLE_CALLS` calls (games
    /// workload, after its first call).
    games_per_call: f64,
}

impl MctsBackgammon {
    /// `mcts/backgammon`, or with `games` its games-per-second twin.
    pub fn new(games: bool) -> Self {
        Self { play: SelfPlay::new(1), games, bf16: false, games_per_call: 0.0 }
    }

    /// `mcts/backgammon/bf16`: simulations/s with bf16 inference.
    pub fn bf16() -> Self {
        Self { play: SelfPlay::with_inference(1, Inference::Bf16), games: false, bf16: true, games_per_call: 0.0 }
    }

    /// The self-play loop (for profiles).
    pub fn self_play(&mut self) -> &mut SelfPlay {
        &mut self.play
    }
}

impl Workload for MctsBackgammon {
    fn name(&self) -> String {
        match (self.games, self.bf16) {
            (true, _) => "mcts/backgammon/games".into(),
            (false, true) => "mcts/backgammon/bf16".into(),
            (false, false) => "mcts/backgammon".into(),
        }
    }
    fn work(&self) -> Work {
        if self.games {
            Work::Items(self.games_per_call, "games/s")
        } else {
            Work::Items((GAMES as u32 * SIMULATIONS) as f64, "sim/s")
        }
    }
    fn roofline(&self) -> Roofline {
        self.play.cost().map_or(Roofline::NoFloor("not run yet"), Roofline::Floor)
    }
    fn run(&mut self) {
        if self.games && self.games_per_call == 0.0 {
            let before = self.play.games_finished;
            for _ in 0..GAME_SAMPLE_CALLS {
                self.play.step();
            }
            self.games_per_call = (self.play.games_finished - before) as f64 / GAME_SAMPLE_CALLS as f64;
            return;
        }
        self.play.step();
    }
}

/// `mcts/backgammon/2thr`: two self-play loops, one per thread of
/// rayon's pool (`rayon::join`: no thread spawned, nothing allocated).
#[allow(missing_debug_implementations)]
pub struct MctsBackgammonThreads {
    plays: [SelfPlay; 2],
    inference: Inference,
}

impl MctsBackgammonThreads {
    /// Two loops (seeds 1 and 2) with leaves evaluated at `inference`.
    pub fn new(inference: Inference) -> Self {
        Self { plays: [1, 2].map(|seed| SelfPlay::with_inference(seed, inference)), inference }
    }

    /// Both loops, one move of every game each.
    pub fn step(&mut self) -> u64 {
        let [a, b] = &mut self.plays;
        let (x, y) = rayon::join(|| a.step(), || b.step());
        x + y
    }
}

impl Workload for MctsBackgammonThreads {
    fn name(&self) -> String {
        match self.inference {
            Inference::Bf16 => "mcts/backgammon/bf16/2thr".into(),
            Inference::F32 => "mcts/backgammon/2thr".into(),
        }
    }
    fn work(&self) -> Work {
        Work::Items((self.plays.len() * GAMES * SIMULATIONS as usize) as f64, "sim/s")
    }
    fn run(&mut self) {
        std::hint::black_box(self.step());
    }
    fn roofline(&self) -> Roofline {
        // Both loops' work, on two threads.
        match (self.plays[0].cost(), self.plays[1].cost()) {
            (Some(a), Some(b)) => {
                Roofline::Floor(Cost { flops: a.flops + b.flops, bytes: a.bytes + b.bytes, threads: 2, ..a })
            }
            _ => Roofline::NoFloor("not run yet"),
        }
    }
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(MctsBackgammon::new(false)));
    list.push(Box::new(MctsBackgammon::new(true)));
    list.push(Box::new(MctsBackgammon::bf16()));
    list.push(Box::new(MctsBackgammonThreads::new(Inference::F32)));
    list.push(Box::new(MctsBackgammonThreads::new(Inference::Bf16)));
}
