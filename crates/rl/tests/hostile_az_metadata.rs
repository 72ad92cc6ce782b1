//! Crafted AlphaZero run-checkpoint metadata (the learner's RNG, Adam's
//! step count, the position replay's state, the run totals, the network
//! label): every value of every key replaced by arbitrary text,
//! out-of-range numbers or JSON of another shape. Resuming is an error or
//! a run that iterates on, never a panic.

mod common;

use minnow_envs::TicTacToe;
use minnow_nn::Checkpoint;
use minnow_nn::testing::{ScratchDir, crafted_metadata, write_crafted};
use minnow_rl::alphazero::{AzConfig, AzRun};
use proptest::prelude::*;
use std::sync::OnceLock;

fn config() -> AzConfig {
    let mut c = common::tictactoe();
    c.iterations = 3;
    c.self_play.games_per_iteration = 8;
    c.self_play.parallel_games = 8;
    c.training.min_replay = 16;
    c.training.steps_per_iteration = 2;
    c.training.batch = 16;
    c
}

/// A checkpoint after two iterations, made once.
fn saved() -> &'static Checkpoint {
    static SAVED: OnceLock<Checkpoint> = OnceLock::new();
    SAVED.get_or_init(|| {
        let dir = ScratchDir::new("hostile-az-meta");
        let path = dir.join("clean.safetensors");
        let mut run = AzRun::<TicTacToe>::new(config()).unwrap();
        run.iterate().unwrap();
        run.iterate().unwrap();
        minnow_train::save(&run, &path).unwrap();
        Checkpoint::load(&path).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn crafted_alphazero_metadata_resumes_or_is_refused_never_panics((key, value) in crafted_metadata(saved())) {
        let dir = ScratchDir::new("hostile-az-meta");
        let path = write_crafted(saved(), &key, value.clone(), &dir);
        if let Ok(mut run) = AzRun::<TicTacToe>::resume(config(), &path) {
            // Accepted: it iterates on (an error is a refusal too).
            let _ = run.iterate();
        }
    }
}
