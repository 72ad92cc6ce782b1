//! What an environment or game gets from its trait's defaults: every
//! action legal while the episode runs, the common checks of a step or a
//! move, and no chance nodes.

use minnow_envs::{Env, EnvError, Game, Step, Turn, check_action, check_player_turn};

/// A counter that ends at 3; action `a` adds `a`.
#[derive(Clone, Debug, Default)]
struct Count {
    total: usize,
}

impl Env for Count {
    const NAME: &'static str = "count";
    fn observation_size(&self) -> usize {
        1
    }
    fn action_count(&self) -> usize {
        3
    }
    fn reset(&mut self, _seed: u64) {
        self.total = 0;
    }
    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        self.total += action;
        Ok(Step { reward: action as f32, done: self.is_over(), truncated: false })
    }
    fn observe(&self, out: &mut [f32]) {
        out[0] = self.total as f32;
    }
    fn is_over(&self) -> bool {
        self.total >= 3
    }
}

#[test]
fn an_env_gets_every_action_legal_and_the_step_checks() {
    let mut env = Count::default();
    assert_eq!(env.legal_mask(), 0b111);
    let mut mask = [false; 3];
    env.legal_actions(&mut mask);
    assert_eq!(mask, [true; 3]);
    assert_eq!(env.step(3), Err(EnvError::ActionOutOfRange { env: "count", action: 3, action_count: 3 }));
    env.step(2).unwrap();
    env.step(1).unwrap();
    assert_eq!(env.legal_mask(), 0, "none once the episode is over");
    assert_eq!(env.step(0), Err(EnvError::EpisodeOver { env: "count" }));
}

/// The default mask covers all 64 actions when there are 64.
#[derive(Clone, Debug, Default)]
struct Wide;

impl Env for Wide {
    const NAME: &'static str = "wide";
    fn observation_size(&self) -> usize {
        1
    }
    fn action_count(&self) -> usize {
        64
    }
    fn reset(&mut self, _seed: u64) {}
    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        Ok(Step::default())
    }
    fn observe(&self, out: &mut [f32]) {
        out[0] = 0.0;
    }
    fn is_over(&self) -> bool {
        false
    }
}

#[test]
fn the_default_mask_covers_64_actions() {
    assert_eq!(Wide.legal_mask(), u64::MAX);
    Wide.step(63).unwrap();
}

/// Whoever says the fourth number wins; each says one or two more.
#[derive(Clone, Copy, Debug, Default)]
struct Four {
    said: usize,
}

impl Game for Four {
    const NAME: &'static str = "four";
    const ACTIONS: usize = 2;
    const OBSERVATION_SIZE: usize = 1;
    fn reset(&mut self, _seed: u64) {
        self.said = 0;
    }
    fn turn(&self) -> Turn {
        if self.said >= 4 { Turn::Over } else { Turn::Player(self.said % 2) }
    }
    fn legal_actions(&self, out: &mut [u16]) -> usize {
        let n = (4 - self.said).min(2);
        out[..n].copy_from_slice(&[0, 1][..n]);
        n
    }
    fn apply(&mut self, action: usize) -> Result<(), EnvError> {
        check_player_turn(self, action)?;
        if self.said + action + 1 > 4 {
            return Err(EnvError::IllegalMove { game: Self::NAME, action });
        }
        self.said += action + 1;
        Ok(())
    }
    fn outcome(&self, player: usize) -> Option<f32> {
        (self.said >= 4).then_some(if player == self.said % 2 { -1.0 } else { 1.0 })
    }
    fn observe(&self, out: &mut [f32]) {
        out[0] = self.said as f32;
    }
}

#[test]
fn a_game_without_dice_gets_no_chance_nodes() {
    assert_eq!((Four::MAX_LEGAL, Four::MAX_OUTCOMES), (Four::ACTIONS, 0));
    let mut game = Four::default();
    assert_eq!(game.chance_outcomes(&mut []), 0);
    let expected = EnvError::WrongTurn { game: "four", expected: "a chance node", found: "player 0 to move" };
    assert_eq!(game.apply_chance(0), Err(expected));
    assert_eq!(game.apply(2), Err(EnvError::ActionOutOfRange { env: "four", action: 2, action_count: 2 }));
    game.apply(1).unwrap();
    game.apply(1).unwrap();
    assert_eq!(game.turn(), Turn::Over);
    let expected = EnvError::WrongTurn { game: "four", expected: "a player to move", found: "the game over" };
    assert_eq!(game.apply(0), Err(expected));
}
