//! A saved run read back as an agent, and the network-alone player.

mod common;

use minnow_arena::{CountingAlloc, count_allocations};
use minnow_envs::{ConnectFour, Game, TicTacToe, Turn};
use minnow_rl::alphazero::{AzAgent, AzConfig, AzRun, Player, PolicyPlayer, play_from};
use minnow_rl::mcts::{Evaluator, NetEvaluator};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn small() -> AzConfig {
    let mut c = common::tictactoe();
    c.iterations = 2;
    c.self_play.games_per_iteration = 16;
    c.self_play.parallel_games = 8;
    c.training.min_replay = 32;
    c.training.steps_per_iteration = 5;
    c.training.batch = 32;
    c
}

#[test]
fn a_saved_run_loads_as_its_agent_and_only_for_its_game() {
    let dir = std::env::temp_dir().join(format!("minnow-az-agent-{}", std::process::id()));
    let path = dir.join("checkpoint.safetensors");
    let mut run = AzRun::<TicTacToe>::new(small()).unwrap();
    run.iterate().unwrap();
    run.iterate().unwrap();
    minnow_train::save(&run, &path).unwrap();
    let agent = AzAgent::load::<TicTacToe>(&path).unwrap();
    assert_eq!(agent.iteration, 2);
    assert_eq!(agent.config, *run.config());
    assert!(agent.params.values() == run.snapshot().values(), "parameters differ");
    assert_eq!(agent.net, *run.net());
    let live = run.agent();
    assert!(live.params.values() == agent.params.values());

    let err = AzAgent::load::<ConnectFour>(&path).unwrap_err();
    let cause = std::error::Error::source(&err).map(ToString::to_string).unwrap_or_default();
    assert!(err.to_string().contains("checkpoint.safetensors"), "{err}");
    assert!(cause.contains("'az-tictactoe'") && cause.contains("'az-connect4'"), "{cause}");

    // A checkpoint of the layout before the run checkpoint (parameters
    // under their own names, no format tag) still loads for evaluation.
    let old = dir.join("old.safetensors");
    let write_old = |game: &str| {
        let label = format!("{game} 18-48x1-9");
        let config = serde_json::to_string(run.config()).unwrap();
        minnow_nn::CheckpointWriter::new()
            .params(run.snapshot())
            .meta("task", "alphazero")
            .meta("game", game)
            .meta("network", label)
            .meta("config", config)
            .meta("iteration", "2")
            .save(&old)
            .unwrap();
    };
    write_old("tictactoe");
    let legacy = AzAgent::load::<TicTacToe>(&old).unwrap();
    assert_eq!(legacy.iteration, 2);
    assert!(legacy.params.values() == agent.params.values(), "legacy parameters differ");
    write_old("connect4");
    let err = AzAgent::load::<TicTacToe>(&old).unwrap_err().to_string();
    assert!(err.contains("game 'connect4', expected 'tictactoe'"), "{err}");
    let err = AzAgent::load::<TicTacToe>(&dir.join("missing.safetensors")).unwrap_err().to_string();
    assert!(err.contains("missing.safetensors"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_network_alone_plays_its_best_legal_logit_without_allocating() {
    let run = AzRun::<TicTacToe>::new(small()).unwrap();
    let agent = run.agent();
    let mut player = PolicyPlayer::new(NetEvaluator::<TicTacToe>::new(&agent.net, agent.params.clone()).unwrap());
    let mut check = NetEvaluator::<TicTacToe>::new(&agent.net, agent.params.clone()).unwrap();
    let mut game = TicTacToe::new();
    let mut legal = [0u16; 9];
    let (mut logits, mut value) = ([0.0; 9], [0.0]);
    while let Turn::Player(_) = game.turn() {
        let action = player.act(&game).unwrap();
        check.evaluate(std::slice::from_ref(&game), &mut logits, &mut value);
        let n = game.legal_actions(&mut legal);
        assert!(legal[..n].contains(&(action as u16)));
        assert!(legal[..n].iter().all(|&a| logits[a as usize] <= logits[action]));
        assert_eq!(player.last_output(), (&logits[..], value[0]));
        game.apply(action).unwrap();
    }
    // A whole game between two copies, after a warm-up game.
    let mut other = PolicyPlayer::new(NetEvaluator::<TicTacToe>::new(&agent.net, agent.params.clone()).unwrap());
    play_from::<TicTacToe>([&mut player, &mut other], TicTacToe::new(), 0, 100).unwrap();
    let (end, on_thread, _) =
        count_allocations(|| play_from::<TicTacToe>([&mut player, &mut other], TicTacToe::new(), 1, 100).unwrap());
    assert_eq!(end.turn(), Turn::Over);
    // The one allocation is play_from's chance-outcome buffer, per game.
    assert_eq!(on_thread.allocations, 1, "{} bytes", on_thread.bytes);
}
