//! Distributed AlphaZero self-play on a real MPI job: run under `mpirun
//! -np K` (K >= 2; CI runs 3: one learner, two actors). Rank 0 learns
//! tic-tac-toe from the actors' games and must then never lose, to the
//! exact solver or to random play, as in the one-process test; the
//! learner's updates per round scale with the actors (the replay ratio
//! held). Rank 0 prints the tally.

mod common;

use minnow_dist::{Collective, MpiWorld};
use minnow_envs::TicTacToe;
use minnow_rl::alphazero::{AzRun, FnPlayer, Learner, RandomPlayer, play_for_learner, play_match};
use std::rc::Rc;
use std::time::Instant;

fn main() {
    let world: Rc<dyn Collective> = Rc::new(MpiWorld::init().expect("MPI initialises once"));
    let mut config = common::tictactoe();
    // Each round brings the games of every actor; the one-process test's
    // 40 iterations of updates and games in 40 / actors rounds.
    let actors = world.size() - 1;
    config.iterations = 40u64.div_ceil(actors.max(1) as u64);
    if world.rank() > 0 {
        let report = play_for_learner::<TicTacToe>(&config, world.as_ref()).expect("the actor plays");
        assert_eq!(report.rounds, config.iterations, "an actor plays every round, none after the last");
        return;
    }
    let started = Instant::now();
    let mut learner = Learner::new(AzRun::<TicTacToe>::new(config.clone()).unwrap(), world.clone()).unwrap();
    let mut failures = Vec::new();
    for _ in 0..config.iterations {
        let report = learner.iterate().unwrap();
        let expected = config.training.steps_per_iteration * actors;
        if report.updates != 0 && report.updates != expected {
            failures.push(format!("iteration {}: {} updates, expected {expected}", report.iteration, report.updates));
        }
        let games = (config.self_play.games_per_iteration * config.self_play.workers * actors) as u64;
        if report.self_play.games != games {
            failures
                .push(format!("iteration {}: {} games, expected {games}", report.iteration, report.self_play.games));
        }
    }
    let run = learner.finish();
    let totals = *run.totals();
    eprintln!(
        "tictactoe on {} ranks: {} iterations, {} games, {} updates in {:.1} s",
        world.size(),
        run.iteration(),
        totals.games,
        totals.updates,
        started.elapsed().as_secs_f64()
    );
    let sims = config.eval.simulations;
    let me = |s| run.player(sims, s);
    let random = |s| Ok(RandomPlayer::new::<TicTacToe>(s));
    let vs_random = play_match(&me, &random, 500, 11, 2, 100).unwrap();
    let solver = |s| Ok(FnPlayer(common::minimax(s)));
    let perfect = play_match(&me, &solver, 500, 13, 2, 100).unwrap();
    eprintln!("{sims} simulations: vs random {vs_random}; vs minimax {perfect}");
    if vs_random.losses > 0 {
        failures.push(format!("lost to random: {vs_random}"));
    }
    if perfect.losses > 0 || perfect.wins > 0 {
        failures.push(format!("against minimax, expected draws only: {perfect}"));
    }
    let verdict = if failures.is_empty() { "ok".to_string() } else { format!("FAILED\n  {}", failures.join("\n  ")) };
    println!("test a learner and {actors} actor(s) learn tic-tac-toe to never lose ... {verdict}");
    println!("{} passed, {} failed", failures.is_empty() as u8, !failures.is_empty() as u8);
    drop(run);
    drop(world);
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
