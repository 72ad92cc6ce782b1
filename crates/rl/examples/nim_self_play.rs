//! MCTS and AlphaZero-style self-play on a game you write: Nim with one
//! pile of 10 stones, where each player takes 1, 2 or 3 and whoever takes
//! the last stone wins. The winning move leaves a multiple of 4 (none
//! exists from a multiple of 4). Implementing `Game` is all the search
//! and the self-play trainer need; a game without dice leaves the chance
//! methods to their defaults.
//!
//! `cargo run -p minnow-rl --example nim_self_play`

use minnow_envs::{EnvError, Game, Turn, check_player_turn};
use minnow_rl::RlError;
use minnow_rl::alphazero::{AzConfig, AzRun, NetworkConfig, Player, SelfPlayConfig, TrainingConfig};
use minnow_rl::mcts::{MctsConfig, RolloutEvaluator, Search};
use rand::SeedableRng;

const START: usize = 10;

#[derive(Clone, Copy, Debug)]
struct Nim {
    stones: usize,
    to_move: usize,
}

impl Default for Nim {
    fn default() -> Self {
        Nim { stones: START, to_move: 0 }
    }
}

impl Game for Nim {
    const NAME: &'static str = "nim";
    /// Action `a` takes `a + 1` stones.
    const ACTIONS: usize = 3;
    /// The pile, one-hot (0 to `START` stones).
    const OBSERVATION_SIZE: usize = START + 1;

    fn reset(&mut self, _seed: u64) {
        *self = Nim::default();
    }

    fn turn(&self) -> Turn {
        if self.stones == 0 { Turn::Over } else { Turn::Player(self.to_move) }
    }

    fn legal_actions(&self, out: &mut [u16]) -> usize {
        let n = self.stones.min(3);
        for (a, slot) in out[..n].iter_mut().enumerate() {
            *slot = a as u16;
        }
        n
    }

    fn apply(&mut self, action: usize) -> Result<(), EnvError> {
        check_player_turn(self, action)?;
        if action >= self.stones {
            return Err(EnvError::IllegalMove { game: Self::NAME, action });
        }
        self.stones -= action + 1;
        self.to_move ^= 1;
        Ok(())
    }

    /// Whoever took the last stone (the player not to move) won.
    fn outcome(&self, player: usize) -> Option<f32> {
        (self.stones == 0).then(|| if player == self.to_move { -1.0 } else { 1.0 })
    }

    fn observe(&self, out: &mut [f32]) {
        out.fill(0.0);
        out[self.stones] = 1.0;
    }
}

/// The winning number of stones to take, if there is one.
fn perfect(stones: usize) -> Option<usize> {
    (!stones.is_multiple_of(4)).then_some(stones % 4)
}

fn main() -> Result<(), RlError> {
    // 1. Plain MCTS: uniform priors, random playouts to the end.
    let config = MctsConfig { simulations: 400, dirichlet_fraction: 0.0, ..MctsConfig::default() };
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
    let mut evaluator = RolloutEvaluator::new::<Nim>(1, 0);
    println!("MCTS, 400 simulations of random playouts:");
    for stones in (1..=START).filter(|&s| perfect(s).is_some()) {
        let game = Nim { stones, to_move: 0 };
        let mut search = Search::new(&config, &game)?;
        search.run(&mut evaluator, false, &mut rng)?;
        let take = search.choose_action(0.0, &mut rng)? + 1;
        println!("  {stones:2} stones: takes {take} (winning: {})", perfect(stones).unwrap_or(0));
    }

    // 2. AlphaZero: a policy-value network learns from its own games.
    let config = AzConfig {
        iterations: 8,
        network: NetworkConfig { width: 32, blocks: 1 },
        mcts: MctsConfig { simulations: 32, dirichlet_alpha: 1.0, leaves_per_round: 4, ..MctsConfig::default() },
        self_play: SelfPlayConfig { parallel_games: 16, games_per_iteration: 32, ..SelfPlayConfig::default() },
        training: TrainingConfig {
            lr: 3e-3,
            batch: 64,
            steps_per_iteration: 20,
            min_replay: 64,
            ..TrainingConfig::default()
        },
        ..AzConfig::default()
    };
    let mut run = AzRun::<Nim>::new(config)?;
    let untrained = moves(&run)?;
    for _ in 0..run.config().iterations {
        let report = run.iterate()?;
        let loss = report.loss;
        let losses = if report.updates > 0 {
            format!("loss policy {:.3} value {:.3}", loss.policy, loss.value)
        } else {
            "no updates yet".into()
        };
        println!("iteration {}: {} self-play games, {losses}", report.iteration, report.totals.games);
    }
    let positions: Vec<usize> = (1..=START).filter(|&s| perfect(s).is_some()).collect();
    println!("stones taken with the network and 8 simulations, from {positions:?} stones:");
    println!("  untrained {untrained:?}");
    println!("  trained   {:?}", moves(&run)?);
    println!("  winning   {:?}", positions.iter().filter_map(|&s| perfect(s)).collect::<Vec<_>>());
    let report = run.play_matches(200, 0, 7)?;
    println!("against random play: {}", report.vs_random);
    Ok(())
}

/// The stones the run's player takes from every position with a winning move.
fn moves(run: &AzRun<Nim>) -> Result<Vec<usize>, RlError> {
    let mut player = run.player(8, 1)?;
    let mut taken = Vec::new();
    for stones in (1..=START).filter(|&s| perfect(s).is_some()) {
        let game = Nim { stones, to_move: 0 };
        player.start(&game);
        taken.push(player.act(&game)? + 1);
    }
    Ok(taken)
}
