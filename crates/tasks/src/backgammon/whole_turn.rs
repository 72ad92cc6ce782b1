//! Backgammon played a whole turn at a time: a chooser picks one of the
//! roll's whole plays, and [`WholeTurnPlayer`] plays it out as the game's
//! micro-actions. pubeval is such a chooser.

use minnow_envs::backgammon::pubeval::Pubeval;
use minnow_envs::backgammon::{Play, TurnPlays};
use minnow_envs::{Backgammon, EnvError, Game};
use minnow_rl::alphazero::Player;
use minnow_rl::{Result, RlError};

/// Picks one of a turn's whole plays.
pub trait ChoosePlay {
    /// The index into `plays` (all distinct results of the roll at `game`,
    /// a player to move at the start of the turn).
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize>;
}

/// pubeval: the play whose resulting position scores highest.
impl ChoosePlay for Pubeval {
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize> {
        Pubeval::choose(self, game, plays).ok_or(RlError::Env(no_play()))
    }
}

/// The error of a chooser asked where there is no play to choose.
pub(crate) fn no_play() -> EnvError {
    EnvError::WrongTurn { game: Backgammon::NAME, expected: "a player with a legal play", found: "none" }
}

/// A [`Player`] that plans the whole turn at its first micro-action and
/// then plays the plan out (re-planning if the game is not where the plan
/// expects it).
#[derive(Debug)]
pub struct WholeTurnPlayer<C> {
    chooser: C,
    plays: TurnPlays,
    plan: Option<Play>,
    /// Micro-actions of the plan already played.
    done: usize,
    /// The game the plan's next micro-action applies to.
    expected: Option<Backgammon>,
}

impl<C: ChoosePlay> WholeTurnPlayer<C> {
    /// A player choosing with `chooser`.
    pub fn new(chooser: C) -> Self {
        Self { chooser, plays: TurnPlays::new(), plan: None, done: 0, expected: None }
    }
}

impl<C: ChoosePlay> Player<Backgammon> for WholeTurnPlayer<C> {
    fn start(&mut self, _: &Backgammon) {
        self.expected = None;
    }

    fn act(&mut self, game: &Backgammon) -> Result<usize> {
        if self.expected.as_ref() != Some(game) {
            let plays = self.plays.generate(game);
            let i = self.chooser.choose(game, plays)?;
            self.plan = Some(plays[i]);
            self.done = 0;
        }
        let plan = self.plan.as_ref().expect("a plan was made");
        let action = plan.actions()[self.done] as usize;
        self.done += 1;
        let mut next = *game;
        next.apply(action)?;
        self.expected = (self.done < plan.actions().len()).then_some(next);
        Ok(action)
    }

    fn played(&mut self, _: &Backgammon, _: usize, _: bool) {}
}

/// pubeval as a player (the seed is not used: it plays the same every game).
pub fn pubeval_player(_: u64) -> Result<WholeTurnPlayer<Pubeval>> {
    Ok(WholeTurnPlayer::new(Pubeval::standard()))
}
