//! Everything about an AlphaZero run, as a serde document that a config
//! file overrides key by key; validated before anything is built.

use crate::mcts::{MctsConfig, check_temperature};
use crate::{Check, Result};
use serde::{Deserialize, Serialize};

/// The policy/value network's trunk; its input and output widths come
/// from the game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Width of the stem and of every residual block (default 128).
    pub width: usize,
    /// Residual blocks after the stem (default 2; 0: stem and heads only).
    pub blocks: usize,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        Self { width: 128, blocks: 2 }
    }
}

/// How self-play games are generated.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Self-play threads (training runs on the calling thread beside them).
    pub workers: usize,
    /// Games each worker advances at once; their leaves share one batched
    /// evaluation (up to `parallel_games * leaves_per_round` states).
    pub parallel_games: usize,
    /// Games each worker finishes per iteration.
    pub games_per_iteration: usize,
    /// Moves are drawn with probability proportional to visits^(1/T) for
    /// the first `temperature_moves` moves of a game, then with
    /// `final_temperature` (0: the most visited move).
    pub temperature: f32,
    /// Moves played at `temperature` before `final_temperature` takes
    /// over (default 8).
    pub temperature_moves: u32,
    /// Temperature after the first `temperature_moves` moves (default 0:
    /// the most visited move).
    pub final_temperature: f32,
    /// A game still running after this many moves is scored a draw.
    pub max_moves: u32,
    /// The value target of a position is `(1 - w) z + w q`: `z` the game's
    /// result, `q` the root's search value there (both for the player to
    /// move). `q` carries what the search saw with far less noise than one
    /// game's result; `z` keeps the target anchored to real outcomes.
    pub search_value_weight: f32,
    /// `z` above is the lambda-return over the later turns (TD(lambda) per
    /// turn, as TD-Gammon learns): each turn's target is `(1 - lambda)`
    /// times the search value where the next turn starts plus `lambda`
    /// times that turn's target, the last turn's the result. A turn is
    /// the positions of one mover between chance nodes (a backgammon
    /// roll's micro-moves), so a dice game's result reaches its early
    /// positions through the values in between instead of as one noisy
    /// sample. 1 (the default): the game's result.
    pub value_lambda: f32,
    /// With the search's solver on, a position whose root the search
    /// proved takes its exact value as the target instead (neither `z`,
    /// which a later exploratory move may have spoiled, nor a mean `q`).
    pub proven_value_target: bool,
    /// Each game opens with `k` uniformly random moves, `k` drawn
    /// uniformly from `0..=random_opening_moves`, played without search
    /// and not recorded: self-play then meets far more varied positions
    /// than its own openings reach (0: off).
    pub random_opening_moves: u32,
    /// Playout cap randomisation (Wu 2019, as in KataGo): a move gets the
    /// full search (root noise, recorded for training) with this
    /// probability, else a fast one of `fast_simulations` (no noise, not
    /// recorded) that only moves the game on, so more games (and game
    /// results) come from the same simulations. 1: every move in full.
    pub full_search_fraction: f32,
    /// Simulations of a fast search (default 16; at most
    /// `mcts.simulations`).
    pub fast_simulations: u32,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        Self {
            workers: 1,
            parallel_games: 32,
            games_per_iteration: 64,
            temperature: 1.0,
            temperature_moves: 8,
            final_temperature: 0.0,
            max_moves: 1000,
            search_value_weight: 0.0,
            value_lambda: 1.0,
            proven_value_target: false,
            random_opening_moves: 0,
            full_search_fraction: 1.0,
            fast_simulations: 16,
        }
    }
}

/// The learner: Adam on policy cross-entropy plus value MSE.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainingConfig {
    /// Adam's learning rate (default 1e-3; the start of the decay if any).
    pub lr: f32,
    /// L2 penalty (Adam's `weight_decay`).
    pub weight_decay: f32,
    /// Positions per update (default 256).
    pub batch: usize,
    /// Updates per iteration, run while the workers play.
    pub steps_per_iteration: usize,
    /// Positions the replay buffer keeps (oldest dropped first).
    pub replay_capacity: usize,
    /// No update before the buffer holds this many positions.
    pub min_replay: usize,
    /// Weight of the value loss against the policy loss.
    pub value_weight: f32,
    /// Cosine decay of the learning rate from `lr` to `lr_final` over this
    /// many updates, constant after; 0 keeps `lr` throughout.
    pub lr_decay_updates: u64,
    /// Learning rate at the end of the decay (default 1e-4; at most `lr`).
    pub lr_final: f32,
    /// Train on each sample or its mirror image with equal odds, for
    /// games with a mirror symmetry (`Game::MIRRORED`); no effect on others.
    pub mirror: bool,
}

impl Default for TrainingConfig {
    fn default() -> Self {
        Self {
            lr: 1e-3,
            weight_decay: 1e-4,
            batch: 256,
            steps_per_iteration: 64,
            replay_capacity: 100_000,
            min_replay: 1000,
            value_weight: 1.0,
            lr_decay_updates: 0,
            lr_final: 1e-4,
            mirror: true,
        }
    }
}

/// Evaluation matches during and after the run (all seeded, both colours).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Iterations between evaluations (0: only at the end).
    pub every: u64,
    /// Games against the uniform-random player at each evaluation.
    pub games_vs_random: usize,
    /// Games against MCTS with random rollouts at each evaluation.
    pub games_vs_rollout: usize,
    /// The rollout player's simulations per move.
    pub rollout_simulations: u32,
    /// Games against the task's own fixed opponent at each evaluation,
    /// where the task gives one (`AzRun::set_yardstick`; az-backgammon:
    /// pubeval against the network alone).
    pub yardstick_games: usize,
    /// The trained player's simulations per move (no noise, greedy).
    pub simulations: u32,
    /// Threads the matches are spread over.
    pub threads: usize,
    /// Games of the final evaluation against each opponent.
    pub final_games: usize,
    /// Ratings: at each evaluation the current snapshot also plays the
    /// best-rated snapshot and the `elo_pool` most recent earlier ones
    /// (0: no ratings and no best snapshot kept).
    pub elo_pool: usize,
    /// Games against each of those snapshots per evaluation, both colours.
    pub elo_games: usize,
    /// Random moves that open each game between snapshots (two games per
    /// opening, one from each side), so that two searches without noise do
    /// not replay one game.
    pub elo_opening_moves: u32,
}

impl Default for EvalConfig {
    fn default() -> Self {
        Self {
            every: 10,
            games_vs_random: 100,
            games_vs_rollout: 20,
            rollout_simulations: 1000,
            yardstick_games: 0,
            simulations: 200,
            threads: 2,
            final_games: 400,
            elo_pool: 3,
            elo_games: 4,
            elo_opening_moves: 2,
        }
    }
}

/// A whole run. `Default` is a small generic setting; the tuned presets
/// of the shipped games live with their tasks (`minnow-tasks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AzConfig {
    /// Seeds every generator of the run (default 0).
    pub seed: u64,
    /// Iterations of self-play plus training (default 100).
    pub iterations: u64,
    /// Stop (after a whole iteration) once self-play and training have run
    /// this long; 0 for no limit.
    pub time_limit_minutes: f64,
    /// The policy/value network's shape.
    pub network: NetworkConfig,
    /// The search of self-play; evaluation games use it with
    /// `eval.simulations` and no root noise.
    pub mcts: MctsConfig,
    /// How self-play games are generated.
    pub self_play: SelfPlayConfig,
    /// The learner (Adam on policy cross-entropy plus value MSE).
    pub training: TrainingConfig,
    /// Evaluation matches and ratings.
    pub eval: EvalConfig,
    /// Iterations between checkpoints (and at the end).
    pub checkpoint_every: u64,
}

impl Default for AzConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            iterations: 100,
            time_limit_minutes: 0.0,
            network: NetworkConfig::default(),
            mcts: MctsConfig::default(),
            self_play: SelfPlayConfig::default(),
            training: TrainingConfig::default(),
            eval: EvalConfig::default(),
            checkpoint_every: 10,
        }
    }
}

impl AzConfig {
    /// The memory a run of this config needs, roughly, in bytes, for a
    /// game of `obs_size` observation values and `actions` actions: the
    /// network with gradients, Adam's moments and the snapshots the
    /// self-play workers and the Elo league hold; the replay; the
    /// activations of a training batch and of a self-play round; the
    /// search trees in flight.
    pub fn memory_bytes(&self, obs_size: usize, actions: usize) -> f64 {
        let (o, a) = (obs_size as f64, actions as f64);
        let (w, blocks) = (self.network.width as f64, self.network.blocks as f64);
        let params = (o + 1.0) * w + blocks * 2.0 * (w + 1.0) * w + (w + 1.0) * (a + 1.0);
        let snapshots = 2.0 + self.eval.elo_pool as f64;
        let replay = self.training.replay_capacity as f64 * (o + a + 2.0);
        let per_row = o + a + w * (2.0 * blocks + 2.0);
        let leaves =
            (self.self_play.workers * self.self_play.parallel_games) as f64 * self.mcts.leaves_per_round as f64;
        let activations = (self.training.batch as f64 * 4.0 + leaves) * per_row;
        let games = (self.self_play.workers * self.self_play.parallel_games) as f64;
        let trees = games * (self.mcts.simulations as f64 + 1.0) * (a + 4.0) * 4.0;
        4.0 * ((4.0 + snapshots) * params + replay + activations + trees)
    }

    /// An error naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        self.mcts.validate()?;
        let n = &self.network;
        let network = Check("network");
        network.count_in("width", "a value in 1..=4096", n.width as u64, 1, 4096)?;
        network.count_in("blocks", "a value in 0..=64", n.blocks as u64, 0, 64)?;
        let s = &self.self_play;
        let self_play = Check("self_play");
        for (field, v, hi) in [
            ("workers", s.workers, 64),
            ("parallel_games", s.parallel_games, 4096),
            ("games_per_iteration", s.games_per_iteration, 1 << 20),
        ] {
            self_play.count_in(field, "a value >= 1 (and not absurdly large)", v as u64, 1, hi)?;
        }
        self_play.at_least_one("max_moves", s.max_moves as u64)?;
        let below_max_moves = s.max_moves as u64 - 1;
        let opening = s.random_opening_moves as u64;
        self_play.count_in("random_opening_moves", "a value below max_moves", opening, 0, below_max_moves)?;
        self_play.fraction("full_search_fraction", s.full_search_fraction)?;
        // The fast search's budget matters only when some moves get one.
        let fast_most = if s.full_search_fraction < 1.0 { self.mcts.simulations as u64 } else { u64::MAX };
        let fast = s.fast_simulations as u64;
        self_play.count_in("fast_simulations", "a value in 1..=mcts.simulations", fast, 1, fast_most)?;
        check_temperature("self_play", "temperature", s.temperature)?;
        check_temperature("self_play", "final_temperature", s.final_temperature)?;
        self_play.unit_closed("search_value_weight", s.search_value_weight)?;
        self_play.unit_closed("value_lambda", s.value_lambda)?;
        let t = &self.training;
        let training = Check("training");
        training.positive("lr", t.lr)?;
        if !(t.lr_final.is_finite() && t.lr_final >= 0.0 && t.lr_final <= t.lr) {
            return Err(training.value("lr_final", "a finite value in [0, lr]", t.lr_final).into());
        }
        training.non_negative("weight_decay", t.weight_decay)?;
        training.non_negative("value_weight", t.value_weight)?;
        training.count_in("batch", "a value in 1..=65536", t.batch as u64, 1, 65_536)?;
        let (capacity, most) = (t.replay_capacity as u64, 1 << 24);
        training.count_in(
            "replay_capacity",
            "at least the batch and at most 16777216",
            capacity,
            t.batch as u64,
            most,
        )?;
        training.count_in("min_replay", "at most replay_capacity", t.min_replay as u64, 0, capacity)?;
        let e = &self.eval;
        let eval = Check("eval");
        eval.at_least_one("simulations", e.simulations as u64)?;
        eval.at_least_one("rollout_simulations", e.rollout_simulations as u64)?;
        eval.at_least_one("threads", e.threads as u64)?;
        eval.count_in("elo_pool", "a value in 0..=64", e.elo_pool as u64, 0, 64)?;
        let elo_opening = e.elo_opening_moves as u64;
        eval.count_in("elo_opening_moves", "a value below self_play.max_moves", elo_opening, 0, below_max_moves)?;
        let az = Check("AzConfig");
        az.at_least_one("iterations", self.iterations)?;
        az.at_least_one("checkpoint_every", self.checkpoint_every)?;
        let limit = self.time_limit_minutes;
        if !(limit.is_finite() && limit >= 0.0) {
            return Err(az.value("time_limit_minutes", "a finite value >= 0", limit as f32).into());
        }
        Ok(())
    }
}
