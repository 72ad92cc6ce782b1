//! Checks that an implementation of [`Env`] or [`Game`] keeps the promises
//! its trait makes: sizes in range, every value of an observation written,
//! legal actions inside the action space and at least one of them while
//! the episode runs. A learner calls them where it meets an environment
//! (a run's start, each reset) and where a broken implementation would
//! otherwise go on silently (action 0 played from an empty mask, a stale
//! value left in a reused buffer); each error names the trait method.
//! None allocates.

use crate::{Env, EnvError, Game, Turn};

/// What a buffer holds before a checked `observe` writes it: a quiet NaN
/// whose payload no arithmetic produces, so a value that still has these
/// bits afterwards was not written.
pub const UNWRITTEN: f32 = f32::from_bits(0x7fe5_0b5e);

/// Checks `env`'s sizes: an observation of at least one value and 1 to
/// 64 actions (a legal-action mask is one `u64`).
pub fn check_env_sizes<E: Env>(env: &E) -> Result<(), EnvError> {
    let size = env.observation_size();
    if size == 0 {
        let what = "Env::observation_size() (the observation's length)";
        return Err(EnvError::InvalidSize { env: E::NAME, what, found: 0, expected: "at least 1" });
    }
    let actions = env.action_count();
    if !(1..=64).contains(&actions) {
        let what = "Env::action_count()";
        return Err(EnvError::InvalidSize { env: E::NAME, what, found: actions, expected: "1 to 64" });
    }
    Ok(())
}

/// [`Env::observe`] into `out` (exactly `observation_size()` values),
/// checking that it wrote every value.
#[track_caller]
pub fn observe_checked<E: Env>(env: &E, out: &mut [f32]) -> Result<(), EnvError> {
    assert_eq!(out.len(), env.observation_size(), "{}: observe_checked buffer length", E::NAME);
    fully_written(E::NAME, "Env::observe", out, |out| env.observe(out))
}

/// [`Env::legal_mask`], checked: no bit at or past `action_count()`, and
/// at least one bit while the episode runs.
pub fn legal_mask_checked<E: Env>(env: &E) -> Result<u64, EnvError> {
    let mask = env.legal_mask();
    let actions = env.action_count();
    if actions < 64 && mask >> actions != 0 {
        return Err(EnvError::LegalPastBound {
            env: E::NAME,
            method: "Env::legal_mask",
            what: "set bit",
            found: 63 - mask.leading_zeros() as usize,
            bound: "Env::action_count()",
            count: actions,
        });
    }
    if mask == 0 && !env.is_over() {
        let state = "a running episode (Env::is_over is false)";
        return Err(EnvError::NoLegalAction { env: E::NAME, method: "Env::legal_mask", state });
    }
    Ok(mask)
}

/// Checks `G`'s sizes: an observation of at least one value, 1 to 65536
/// actions (they are listed as `u16`), and room for 1 to `ACTIONS` legal
/// ones.
pub fn check_game_sizes<G: Game>() -> Result<(), EnvError> {
    let size = |what, found, expected| Err(EnvError::InvalidSize { env: G::NAME, what, found, expected });
    if G::OBSERVATION_SIZE == 0 {
        return size("Game::OBSERVATION_SIZE", 0, "at least 1");
    }
    if !(1..=1 << 16).contains(&G::ACTIONS) {
        return size("Game::ACTIONS", G::ACTIONS, "1 to 65536");
    }
    if !(1..=G::ACTIONS).contains(&G::MAX_LEGAL) {
        return size("Game::MAX_LEGAL", G::MAX_LEGAL, "1 to Game::ACTIONS");
    }
    Ok(())
}

/// [`Game::observe`] into `out` (exactly `OBSERVATION_SIZE` values),
/// checking that it wrote every value.
#[track_caller]
pub fn game_observe_checked<G: Game>(game: &G, out: &mut [f32]) -> Result<(), EnvError> {
    assert_eq!(out.len(), G::OBSERVATION_SIZE, "{}: game_observe_checked buffer length", G::NAME);
    fully_written(G::NAME, "Game::observe", out, |out| game.observe(out))
}

/// [`Game::legal_actions`] into `out` (at least `MAX_LEGAL` entries),
/// checked: at most `MAX_LEGAL` of them, each below `ACTIONS`, and at least
/// one when a player is to move. Returns how many.
pub fn game_legal_actions_checked<G: Game>(game: &G, out: &mut [u16]) -> Result<usize, EnvError> {
    let n = game.legal_actions(out);
    let past = |what, found, bound, count| EnvError::LegalPastBound {
        env: G::NAME,
        method: "Game::legal_actions",
        what,
        found,
        bound,
        count,
    };
    if n > G::MAX_LEGAL {
        return Err(past("returned a count of", n, "Game::MAX_LEGAL", G::MAX_LEGAL));
    }
    if let Some(&a) = out[..n].iter().find(|&&a| a as usize >= G::ACTIONS) {
        return Err(past("listed action", a as usize, "Game::ACTIONS", G::ACTIONS));
    }
    if n == 0 && matches!(game.turn(), Turn::Player(_)) {
        let state = "a game not over (Game::turn says a player is to move)";
        return Err(EnvError::NoLegalAction { env: G::NAME, method: "Game::legal_actions", state });
    }
    Ok(n)
}

/// Fills `out` with [`UNWRITTEN`], lets `observe` write it, and counts
/// what it wrote.
fn fully_written(
    env: &'static str,
    method: &'static str,
    out: &mut [f32],
    observe: impl FnOnce(&mut [f32]),
) -> Result<(), EnvError> {
    out.fill(UNWRITTEN);
    observe(out);
    let written = out.iter().filter(|v| v.to_bits() != UNWRITTEN.to_bits()).count();
    if written < out.len() {
        return Err(EnvError::PartialObservation { env, method, written, expected: out.len() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Step, TicTacToe};

    /// An environment whose every promise can be broken on demand.
    #[derive(Clone, Debug, Default)]
    struct Broken {
        observation: usize,
        actions: usize,
        writes: usize,
        mask: u64,
        over: bool,
    }

    impl Env for Broken {
        const NAME: &'static str = "broken";
        fn observation_size(&self) -> usize {
            self.observation
        }
        fn action_count(&self) -> usize {
            self.actions
        }
        fn reset(&mut self, _seed: u64) {}
        fn step(&mut self, _action: usize) -> Result<Step, EnvError> {
            Ok(Step::default())
        }
        fn legal_mask(&self) -> u64 {
            self.mask
        }
        fn observe(&self, out: &mut [f32]) {
            out[..self.writes].fill(0.5);
        }
        fn is_over(&self) -> bool {
            self.over
        }
    }

    fn fine() -> Broken {
        Broken { observation: 8, actions: 4, writes: 8, mask: 0b1010, over: false }
    }

    #[test]
    fn a_kept_promise_passes() {
        let env = fine();
        check_env_sizes(&env).unwrap();
        let mut obs = [0.0; 8];
        observe_checked(&env, &mut obs).unwrap();
        assert_eq!(obs, [0.5; 8]);
        assert_eq!(legal_mask_checked(&env).unwrap(), 0b1010);
        // Over: an empty mask is what the trait asks for.
        assert_eq!(legal_mask_checked(&Broken { mask: 0, over: true, ..fine() }).unwrap(), 0);
        assert_eq!(legal_mask_checked(&Broken { actions: 64, mask: u64::MAX, ..fine() }).unwrap(), u64::MAX);
    }

    #[test]
    fn each_broken_promise_names_its_method() {
        let message = |e: EnvError| e.to_string();
        let env = Broken { writes: 3, ..fine() };
        let e = message(observe_checked(&env, &mut [0.0; 8]).unwrap_err());
        assert_eq!(e, "broken: Env::observe wrote 3 of 8 values; it must write every value of the buffer");
        let e = message(legal_mask_checked(&Broken { mask: 0, ..fine() }).unwrap_err());
        assert_eq!(e, "broken: Env::legal_mask: no legal action in a running episode (Env::is_over is false)");
        let e = message(legal_mask_checked(&Broken { mask: 1 << 9 | 1, ..fine() }).unwrap_err());
        assert_eq!(e, "broken: Env::legal_mask set bit 9, past Env::action_count() = 4");
        let e = message(check_env_sizes(&Broken { observation: 0, ..fine() }).unwrap_err());
        assert_eq!(e, "broken: Env::observation_size() (the observation's length) is 0, expected at least 1");
        for actions in [0, 65] {
            let e = message(check_env_sizes(&Broken { actions, ..fine() }).unwrap_err());
            assert_eq!(e, format!("broken: Env::action_count() is {actions}, expected 1 to 64"));
        }
    }

    /// Tic-tac-toe, or a version of it that breaks one promise.
    #[derive(Clone, Copy, Debug, Default)]
    struct Faulty<const FAULT: u8>(TicTacToe);

    impl<const FAULT: u8> Game for Faulty<FAULT> {
        const NAME: &'static str = "faulty";
        const ACTIONS: usize = if FAULT == 4 { 0 } else { 9 };
        const MAX_LEGAL: usize = if FAULT == 1 { 3 } else { 9 };
        const OBSERVATION_SIZE: usize = 18;
        fn reset(&mut self, seed: u64) {
            self.0.reset(seed)
        }
        fn turn(&self) -> Turn {
            self.0.turn()
        }
        fn legal_actions(&self, out: &mut [u16]) -> usize {
            match FAULT {
                // Claims more moves than MAX_LEGAL.
                1 => 9,
                // Lists a move past the board.
                2 => {
                    out[0] = 12;
                    1
                }
                // None, in a running game.
                3 => 0,
                _ => self.0.legal_actions(out),
            }
        }
        fn apply(&mut self, action: usize) -> Result<(), EnvError> {
            self.0.apply(action)
        }
        fn outcome(&self, player: usize) -> Option<f32> {
            self.0.outcome(player)
        }
        fn observe(&self, out: &mut [f32]) {
            let mut full = [0.0; 18];
            self.0.observe(&mut full);
            let n = if FAULT == 5 { 10 } else { 18 };
            out[..n].copy_from_slice(&full[..n]);
        }
    }

    fn legal<G: Game>(game: &G) -> Result<usize, String> {
        game_legal_actions_checked(game, &mut [0; 9]).map_err(|e| e.to_string())
    }

    #[test]
    fn a_game_that_breaks_a_promise_is_named() {
        check_game_sizes::<Faulty<0>>().unwrap();
        assert_eq!(legal(&Faulty::<0>::default()), Ok(9));
        let mut obs = [0.0; 18];
        game_observe_checked(&Faulty::<0>::default(), &mut obs).unwrap();
        let e = legal(&Faulty::<1>::default()).unwrap_err();
        assert_eq!(e, "faulty: Game::legal_actions returned a count of 9, past Game::MAX_LEGAL = 3");
        let e = legal(&Faulty::<2>::default()).unwrap_err();
        assert_eq!(e, "faulty: Game::legal_actions listed action 12, past Game::ACTIONS = 9");
        let e = legal(&Faulty::<3>::default()).unwrap_err();
        let expected = "a game not over (Game::turn says a player is to move)";
        assert_eq!(e, format!("faulty: Game::legal_actions: no legal action in {expected}"));
        // A finished game has no legal move, rightly.
        let over = Faulty::<3>(TicTacToe::from_moves(&[0, 3, 1, 4, 2]).unwrap());
        assert_eq!(legal(&over), Ok(0));
        let e = check_game_sizes::<Faulty<4>>().unwrap_err().to_string();
        assert_eq!(e, "faulty: Game::ACTIONS is 0, expected 1 to 65536");
        let e = game_observe_checked(&Faulty::<5>::default(), &mut obs).unwrap_err().to_string();
        assert_eq!(e, "faulty: Game::observe wrote 10 of 18 values; it must write every value of the buffer");
    }
}
