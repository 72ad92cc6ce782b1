//! `env/connect4`, `env/backgammon`: two-player game steps per second in
//! random self-play, one thread. A step is one player action (for
//! backgammon one micro-action: one checker moved by one die); chance
//! nodes met on the way (the dice) are resolved by drawing an outcome from
//! [`Game::chance_outcomes`] and are not counted, as in pgx, whose `step`
//! rolls the dice itself. Before every action the player to move observes
//! the state into a reused buffer, as a self-play actor would; a finished
//! game is reset at once with the next seed.

use crate::roofline::Roofline;
use crate::{Work, Workload};
use minnow_envs::{Backgammon, BackgammonConfig, ConnectFour, Game, Turn};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Game steps per `run` call.
const STEPS_PER_CALL: usize = 4096;

/// Random self-play steps of one two-player game.
#[derive(Debug)]
pub struct GameSteps<G: Game> {
    game: G,
    rng: Pcg64Mcg,
    observation: Vec<f32>,
    actions: Vec<u16>,
    probabilities: Vec<f32>,
    games: u64,
}

impl<G: Game> GameSteps<G> {
    /// The workload on `game`.
    pub fn new(game: G) -> Self {
        Self {
            game,
            rng: Pcg64Mcg::seed_from_u64(17),
            observation: vec![0.0; G::OBSERVATION_SIZE],
            actions: vec![0; G::MAX_LEGAL],
            probabilities: vec![0.0; G::MAX_OUTCOMES],
            games: 0,
        }
    }

    /// Takes `steps` random legal actions; returns the games finished.
    pub fn play(&mut self, steps: usize) -> u64 {
        let before = self.games;
        let mut taken = 0;
        while taken < steps {
            match self.game.turn() {
                Turn::Player(_) => {
                    self.game.observe(&mut self.observation);
                    let n = self.game.legal_actions(&mut self.actions);
                    let action = self.actions[self.rng.random_range(0..n)] as usize;
                    self.game.apply(action).expect("a legal action");
                    taken += 1;
                }
                Turn::Chance => {
                    let n = self.game.chance_outcomes(&mut self.probabilities);
                    let mut u: f32 = self.rng.random();
                    let mut outcome = n - 1;
                    for (i, &p) in self.probabilities[..n].iter().enumerate() {
                        if u < p {
                            outcome = i;
                            break;
                        }
                        u -= p;
                    }
                    self.game.apply_chance(outcome).expect("an outcome at a chance node");
                }
                Turn::Over => {
                    self.games += 1;
                    self.game.reset(self.games);
                }
            }
        }
        std::hint::black_box(&self.observation);
        self.games - before
    }
}

impl<G: Game + Send> Workload for GameSteps<G> {
    fn name(&self) -> String {
        format!("env/{}", G::NAME)
    }
    fn work(&self) -> Work {
        Work::Items(STEPS_PER_CALL as f64, "steps/s")
    }
    fn run(&mut self) {
        self.play(STEPS_PER_CALL);
    }
    fn roofline(&self) -> Roofline {
        Roofline::NoFloor(
            "branches and integer logic on a state of a few dozen bytes; its only unavoidable traffic, \
             the observation written into a reused L1-resident buffer, has no measured limit",
        )
    }
}

/// `env/connect4`.
pub fn connect4() -> GameSteps<ConnectFour> {
    GameSteps::new(ConnectFour::new())
}

/// `env/backgammon`.
pub fn backgammon() -> GameSteps<Backgammon> {
    GameSteps::new(Backgammon::new(BackgammonConfig::default()))
}

/// Adds this file's workloads to `list`.
pub fn register(list: &mut Vec<Box<dyn Workload>>) {
    list.push(Box::new(connect4()));
    list.push(Box::new(backgammon()));
}
