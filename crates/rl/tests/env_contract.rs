//! An environment or game that breaks a promise of its trait is stopped
//! where the run meets it, with an error naming the trait method, rather
//! than trained on silently (a stale observation value, action 0 played
//! from an empty mask) or refused by an internal.

use minnow_envs::{Env, EnvError, Game, Step, Turn, check_action, check_player_turn};
use minnow_optim::ScheduleConfig;
use minnow_rl::alphazero::{AzConfig, AzRun, MctsPlayer, NetworkConfig, Player, SelfPlayConfig, random_opening};
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{DqnConfig, DqnEnv, DqnRun, MemoryConfig, QNetworkConfig};
use minnow_rl::mcts::{MctsConfig, Search, UniformEvaluator};

/// What a [`Walk`] gets wrong.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    /// `observe` writes 3 of its 8 values from the third step on.
    PartialObservation,
    /// `legal_mask` is empty after the second step, the episode running.
    NoLegalAction,
    /// `observation_size` is 0.
    EmptyObservation,
    /// `legal_mask` sets bit 9 of 4 actions.
    MaskPastActions,
}

/// A walk around a ring of 8 cells, 4 actions (move 0 to 3 cells), over
/// after 5 steps.
#[derive(Clone, Debug)]
struct Walk {
    fault: Fault,
    cell: usize,
    steps: u32,
    over: bool,
}

fn walk(fault: Fault) -> Walk {
    Walk { fault, cell: 0, steps: 0, over: false }
}

impl Env for Walk {
    const NAME: &'static str = "walk";

    fn observation_size(&self) -> usize {
        if self.fault == Fault::EmptyObservation { 0 } else { 8 }
    }

    fn action_count(&self) -> usize {
        4
    }

    fn reset(&mut self, seed: u64) {
        *self = Walk { cell: seed as usize % 8, ..walk(self.fault) };
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        self.cell = (self.cell + action) % 8;
        self.steps += 1;
        self.over = self.steps >= 5;
        Ok(Step { reward: 0.1, done: self.over, truncated: false })
    }

    fn legal_mask(&self) -> u64 {
        match self.fault {
            _ if self.over => 0,
            Fault::NoLegalAction if self.steps >= 2 => 0,
            Fault::MaskPastActions => 1 << 9 | 0b1111,
            _ => 0b1111,
        }
    }

    fn observe(&self, out: &mut [f32]) {
        let n = if self.fault == Fault::PartialObservation && self.steps >= 3 { 3 } else { 8 };
        for (i, v) in out[..n].iter_mut().enumerate() {
            *v = (i == self.cell) as u8 as f32;
        }
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

impl DqnEnv for Walk {}

fn config() -> DqnConfig {
    DqnConfig {
        network: QNetworkConfig { hidden: vec![8], ..QNetworkConfig::default() },
        batch_size: 4,
        replay: MemoryConfig { capacity: 64, ..MemoryConfig::default() },
        learning_starts: 8,
        num_envs: 2,
        epsilon: ScheduleConfig::linear(1.0, 20, 0.1),
        env_steps: 60,
        ..DqnConfig::default()
    }
}

/// The first error of a run on `env`, from its construction or a step.
fn run_error<E: DqnEnv>(config: &DqnConfig, env: E) -> Option<String> {
    let mut run = match DqnRun::new(config, env) {
        Ok(run) => run,
        Err(e) => return Some(e.to_string()),
    };
    while !run.is_done() {
        if let Err(e) = run.step() {
            return Some(e.to_string());
        }
    }
    None
}

#[test]
fn a_kept_promise_trains() {
    assert_eq!(run_error(&config(), walk(Fault::None)), None);
}

#[test]
fn each_broken_promise_of_env_is_named() {
    let cases = [
        (Fault::PartialObservation, "walk: Env::observe wrote 3 of 8 values; it must write every value of the buffer"),
        (Fault::NoLegalAction, "walk: Env::legal_mask: no legal action in a running episode (Env::is_over is false)"),
        (Fault::EmptyObservation, "walk: Env::observation_size() (the observation's length) is 0, expected at least 1"),
        (Fault::MaskPastActions, "walk: Env::legal_mask set bit 9, past Env::action_count() = 4"),
    ];
    for (fault, expected) in cases {
        assert_eq!(run_error(&config(), walk(fault)).as_deref(), Some(expected), "{fault:?}");
    }
}

#[test]
fn greedy_play_names_a_broken_promise_too() {
    let mut run = DqnRun::new(&config(), walk(Fault::None)).unwrap();
    for (fault, expected) in [
        (Fault::PartialObservation, "walk: Env::observe wrote 3 of 8 values"),
        (Fault::NoLegalAction, "walk: Env::legal_mask: no legal action in a running episode"),
        (Fault::MaskPastActions, "walk: Env::legal_mask set bit 9"),
    ] {
        let err = play_greedy(run.learner_mut(), &mut [walk(fault), walk(fault)], 10).unwrap_err().to_string();
        assert!(err.starts_with(expected), "{fault:?}: {err}");
    }
}

/// Nim with 6 stones where each player takes 1 or 2, written wrong on
/// demand: no legal move at 3 stones, or an observation of 7 values of
/// which it writes one.
#[derive(Clone, Copy, Debug, Default)]
struct Nim<const FAULT: u8> {
    taken: usize,
}

impl<const FAULT: u8> Game for Nim<FAULT> {
    const NAME: &'static str = "nim";
    const ACTIONS: usize = 2;
    const OBSERVATION_SIZE: usize = if FAULT == 3 { 0 } else { 7 };

    fn reset(&mut self, _seed: u64) {
        *self = Self::default();
    }

    fn turn(&self) -> Turn {
        if self.taken == 6 { Turn::Over } else { Turn::Player(self.taken % 2) }
    }

    fn legal_actions(&self, out: &mut [u16]) -> usize {
        let n = (6 - self.taken).min(2);
        if FAULT == 1 && self.taken == 3 {
            return 0;
        }
        out[..n].copy_from_slice(&[0, 1][..n]);
        n
    }

    fn apply(&mut self, action: usize) -> Result<(), EnvError> {
        check_player_turn(self, action)?;
        self.taken = (self.taken + action + 1).min(6);
        Ok(())
    }

    fn outcome(&self, player: usize) -> Option<f32> {
        (self.taken == 6).then_some(if player == self.taken % 2 { -1.0 } else { 1.0 })
    }

    fn observe(&self, out: &mut [f32]) {
        if FAULT == 2 {
            out[0] = 1.0;
        } else {
            out.fill(0.0);
            out[self.taken] = 1.0;
        }
    }
}

fn az_config() -> AzConfig {
    AzConfig {
        iterations: 1,
        network: NetworkConfig { width: 8, blocks: 1 },
        mcts: MctsConfig { simulations: 8, leaves_per_round: 2, ..MctsConfig::default() },
        self_play: SelfPlayConfig {
            parallel_games: 2,
            games_per_iteration: 4,
            workers: 1,
            ..SelfPlayConfig::default()
        },
        ..AzConfig::default()
    }
}

#[test]
fn a_game_without_a_move_while_running_is_named() {
    let expected = "nim: Game::legal_actions: no legal action in a game not over (Game::turn says a player is to move)";
    let stuck = Nim::<1> { taken: 3 };
    let err = Search::new(&MctsConfig::default(), &stuck).err().map(|e| e.to_string());
    assert_eq!(err.as_deref(), Some(expected));
    let mut player = MctsPlayer::new(&MctsConfig::default(), UniformEvaluator, &Nim::<1>::default(), 0).unwrap();
    assert_eq!(player.act(&stuck).unwrap_err().to_string(), expected);
    // An opening that reaches 3 stones taken with a move still to make.
    let opening = (0..64).find_map(|seed| random_opening::<Nim<1>>(3, seed).err()).expect("an opening reaching 3");
    assert_eq!(opening.to_string(), expected);
    // Self-play meets it in the games it plays.
    let mut run = AzRun::<Nim<1>>::new(az_config()).unwrap();
    assert_eq!(run.iterate().err().map(|e| e.to_string()).as_deref(), Some(expected));
    // A well-written Nim plays on.
    AzRun::<Nim<0>>::new(az_config()).unwrap().iterate().unwrap();
}

#[test]
fn a_game_that_writes_part_of_its_observation_or_none_is_named() {
    // (`err()`: an `AzRun` is too large to print.)
    let err = AzRun::<Nim<2>>::new(az_config()).err().map(|e| e.to_string());
    let expected = "nim: Game::observe wrote 1 of 7 values; it must write every value of the buffer";
    assert_eq!(err.as_deref(), Some(expected));
    let err = AzRun::<Nim<3>>::new(az_config()).err().map(|e| e.to_string());
    assert_eq!(err.as_deref(), Some("nim: Game::OBSERVATION_SIZE is 0, expected at least 1"));
}
