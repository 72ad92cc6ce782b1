//! Ratings during an AlphaZero run: on tic-tac-toe the rating of the
//! snapshots rises, the best-rated one is written and loads as an agent,
//! and rating them leaves training exactly as it was.

mod common;

use minnow_envs::TicTacToe;
use minnow_rl::alphazero::{AzAgent, AzConfig, AzRun, BEST_FILE};
use minnow_train::{Cadence, Event, Observer, Run};

/// Eight iterations, rated after every second one with a search small
/// enough that the network's play decides the games.
fn config() -> AzConfig {
    let mut c = common::tictactoe();
    c.iterations = 8;
    c.self_play.games_per_iteration = 32;
    c.training.min_replay = 64;
    c.training.steps_per_iteration = 20;
    c.eval.every = 2;
    c.eval.simulations = 4;
    c.eval.games_vs_random = 100;
    c.eval.games_vs_rollout = 4;
    c.eval.rollout_simulations = 16;
    c.eval.elo_pool = 2;
    c.eval.elo_games = 4;
    c
}

/// The evaluations' `elo` and `best_iteration` metrics, by step.
#[derive(Default)]
struct Ratings(Vec<(u64, f64, f64)>);

impl Observer for Ratings {
    fn observe(&mut self, event: Event<'_>) -> minnow_train::Result<()> {
        if let Event::Eval { step, metrics } = event {
            let get = |key| metrics.iter().find(|(k, _)| *k == key).map(|m| m.1).expect(key);
            self.0.push((step, get("elo"), get("best_iteration")));
        }
        Ok(())
    }
}

#[test]
fn ratings_rise_the_best_snapshot_is_kept_and_training_is_unchanged() {
    let dir = std::env::temp_dir().join(format!("minnow-az-elo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut run = AzRun::<TicTacToe>::new(config()).unwrap();
    run.keep_best_in(dir.join("best"));
    let cadence = Cadence { eval_every: 2, checkpoint_every: 4, eval_at_end: false };
    let mut ratings = Ratings::default();
    minnow_train::drive(&mut run, cadence, Some(&dir.join("checkpoint.safetensors")), &mut ratings).unwrap();

    // Rated at iterations 2, 4, 6, 8; the last fit rates the last snapshot
    // above the first, beyond both intervals.
    assert_eq!(ratings.0.iter().map(|r| r.0).collect::<Vec<_>>(), [2, 4, 6, 8]);
    let curve = run.league().curve();
    let (first, last) = (curve[0].1, curve[3].1);
    eprintln!("ratings at each evaluation {:?}; final fit {curve:?}", ratings.0);
    assert!(last.elo > first.elo && last.lo > first.hi, "no rise: first {first:?}, last {last:?}");
    // Every game of the run is in the record: each snapshot against
    // random, rollout MCTS, and (after the first) the earlier ones.
    let games: u64 = run.league().record().pairs.iter().map(|p| p.result.games).sum();
    assert_eq!(games, 4 * (100 + 4) + 4 * (1 + 2 + 2));

    // The best snapshot is the best-rated one held, written, and loads.
    let (best_iteration, best_params, best) = run.league().best().unwrap();
    assert_eq!(ratings.0.last().unwrap().2, best_iteration as f64);
    // At the last evaluation the league held iterations 4 and 6 (the pool),
    // the best so far and the current one, 8.
    let mut held = curve.iter().filter(|(it, _)| *it >= 4 || *it == best_iteration);
    assert!(held.all(|(_, r)| r.elo <= best.elo), "{curve:?} best {best:?}");
    let agent = AzAgent::load::<TicTacToe>(&dir.join("best").join(BEST_FILE)).unwrap();
    assert_eq!(agent.iteration, best_iteration);
    assert!(agent.params.values() == best_params.values(), "the saved best differs from the league's");
    assert_eq!(agent.config, config());

    // The same seed without evaluations trains the same parameters.
    let mut plain = AzRun::<TicTacToe>::new(config()).unwrap();
    for _ in 0..8 {
        plain.iterate().unwrap();
    }
    assert!(plain.snapshot().values() == run.snapshot().values(), "rating changed training");

    // A resumed run gets the league back.
    let resumed = AzRun::<TicTacToe>::resume(config(), &dir.join("checkpoint.safetensors")).unwrap();
    assert_eq!(resumed.league().record(), run.league().record());
    assert_eq!(resumed.league().curve(), curve);
    assert_eq!(resumed.league().best().unwrap().0, best_iteration);

    // A league that names players it does not hold: an error naming it.
    let corrupt = dir.join("corrupt.safetensors");
    for (league, expected) in [
        (r#"{"record":{"players":["random"],"pairs":[]},"rated":[],"pool":[],"best":null}"#, "1 players"),
        (r#"{"record":{"players":["random","rollout"],"pairs":[]},"rated":[],"pool":[7],"best":null}"#, "snapshot 7"),
        (
            r#"{"record":{"players":["a","b"],"pairs":[{"a":0,"b":5,"result":{"games":1,"wins":1,"draws":0,"losses":0}}]},"rated":[],"pool":[],"best":null}"#,
            "players 0 and 5",
        ),
        ("[1, 2]", "league"),
    ] {
        let mut writer = minnow_train::RunCheckpointWriter::new("az-tictactoe", &Run::identity(&run), 8);
        Run::save(&run, &mut writer).unwrap();
        writer.meta("league", league).save(&corrupt).unwrap();
        let err = AzRun::<TicTacToe>::resume(config(), &corrupt).unwrap_err().to_string();
        assert!(err.contains("league") && err.contains(expected), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
