//! The trained agents shipped in `agents/`: each task's default run, its
//! weights alone, beside a model card (`agents/TASK/README.md`). `play`,
//! `eval` and `solve` use them when no `--checkpoint` is given;
//! `cargo xtask ship TASK` writes one from a run.

use clap::Args;
use minnow_train::RunCheckpoint;
use std::path::{Path, PathBuf};

/// How a task's agent is cut from its run checkpoint.
enum Cut {
    /// The tensors whose names start with these, as they are.
    Keep(&'static [&'static str]),
    /// The n-tuple tables in sparse form (`minnow_tasks::ntuple::write_agent`).
    SparseTables,
}

/// The tasks whose agents ship, and how.
const SHIPPED: &[(&str, Cut)] = &[
    ("az-connect4", Cut::Keep(&["model."])),
    ("az-backgammon", Cut::Keep(&["model."])),
    ("td-backgammon", Cut::Keep(&[minnow_tasks::backgammon::WEIGHTS])),
    ("cube-solver", Cut::Keep(&["online."])),
    ("logic-ca", Cut::Keep(&["kept."])),
    ("ntuple-2048", Cut::SparseTables),
];

#[derive(Args, Debug)]
pub struct ShipArgs {
    /// The task whose run becomes the shipped agent: az-connect4,
    /// az-backgammon, td-backgammon, cube-solver, logic-ca or ntuple-2048.
    task: String,
    /// The run directory (or its checkpoint.safetensors file); default
    /// runs/TASK.
    #[arg(long)]
    from: Option<PathBuf>,
}

/// The shipped agent of `task`.
pub fn shipped(task: &str) -> PathBuf {
    crate::workspace_root().join("agents").join(task).join("agent.safetensors")
}

/// The checkpoint file a command reads: `--checkpoint` as given (a run
/// directory holds `checkpoint.safetensors`), or else the agent shipped
/// for `task`; an error says how to get one when none ships.
pub fn checkpoint_or_shipped(arg: Option<&Path>, task: &str) -> Result<PathBuf, String> {
    let trained = minnow_tasks::registry().get(task).is_some();
    match arg {
        Some(path) if path.is_dir() => Ok(path.join("checkpoint.safetensors")),
        Some(path) => Ok(path.to_path_buf()),
        None if shipped(task).exists() => Ok(shipped(task)),
        None if trained => Err(format!(
            "no --checkpoint given and no {task} agent ships in {}: train one with \
             `cargo xtask train {task}`, then pass --checkpoint runs/{task}",
            shipped(task).display()
        )),
        None => Err(format!(
            "no --checkpoint given, and no {task} agent ships nor does a task train one: pass \
             --checkpoint with a run checkpoint of task {task} (an AlphaZero run in the library, \
             minnow::rl::alphazero)"
        )),
    }
}

pub fn run(args: ShipArgs) -> Result<(), String> {
    let Some((task, cut)) = SHIPPED.iter().find(|(name, _)| *name == args.task) else {
        let names: Vec<&str> = SHIPPED.iter().map(|(name, _)| *name).collect();
        return Err(format!("ship: no agent ships for task '{}'; expected one of {}", args.task, names.join(", ")));
    };
    let from = args.from.unwrap_or_else(|| crate::workspace_root().join("runs").join(task));
    let from = checkpoint_or_shipped(Some(&from), task)?;
    let run = RunCheckpoint::read(&from, task).map_err(|e| format!("--from {}: {e}", from.display()))?;
    let out = shipped(task);
    std::fs::create_dir_all(out.parent().expect("a file in agents/TASK"))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let kept = match cut {
        Cut::Keep(keep) => format!("{} tensors", run.write_agent(keep, &out).map_err(|e| e.to_string())?),
        Cut::SparseTables => {
            let count = minnow_tasks::ntuple::write_agent(&run, &out).map_err(|e| e.to_string())?;
            format!("the {} table entries that are not 0 (of {})", count.kept, count.entries)
        }
    };
    let bytes = std::fs::metadata(&out).map_err(|e| format!("{}: {e}", out.display()))?.len();
    minnow_train::outln!(
        "{}: {kept} of {} at step {}, {bytes} bytes",
        out.display(),
        from.display(),
        run.step().map_err(|e| e.to_string())?
    );
    Ok(())
}

/// Each shipped agent reproduces the figures its card lists under
/// "Checked by the tests": slices of its yardsticks small enough for the
/// test suite, computed exactly as the card's command computed them (runs
/// and evaluations are deterministic). A change to the engine that alters
/// what an agent plays fails here.
#[cfg(test)]
mod tests {
    use super::shipped;
    use minnow_envs::ConnectFour;
    use minnow_envs::connect4::pons::{self, PONS_SETS};
    use minnow_rl::alphazero::{AzAgent, Player, PolicyPlayer, net_player};
    use minnow_rl::mcts::NetEvaluator;
    use minnow_tasks::alphazero::{EVAL_SEED, network_vs_pubeval, pons_dir};
    use minnow_tasks::backgammon::{self, PointsResult, TdChooser, WholeTurnPlayer, points_match, pubeval_player};
    use minnow_tasks::cube_solver;
    use minnow_tasks::ntuple::{NTupleAgent, ntuple_suite};
    use std::sync::Arc;

    /// A card's "Checked by the tests" rows, and what differs from them.
    struct Card {
        task: &'static str,
        rows: Vec<(String, String)>,
        differences: Vec<String>,
    }

    impl Card {
        fn read(task: &'static str) -> Self {
            let path = crate::workspace_root().join("agents").join(task).join("README.md");
            let card = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let checked = card.split("## Checked by the tests").nth(1).unwrap_or_else(|| {
                panic!("{}: no section '## Checked by the tests'", path.display());
            });
            let rows = checked
                .lines()
                .filter_map(|line| line.strip_prefix("| ")?.strip_suffix(" |")?.split_once(" | "))
                .map(|(what, figure)| (what.to_string(), figure.to_string()))
                .collect();
            Self { task, rows, differences: Vec::new() }
        }

        /// Notes a difference between `computed` and the card's row `what`.
        fn check(&mut self, what: &str, computed: String) {
            match self.rows.iter().find(|(name, _)| name == what) {
                Some((_, figure)) if *figure == computed => {}
                Some((_, figure)) => self.differences.push(format!("'{what}': card {figure}, computed {computed}")),
                None => self.differences.push(format!("'{what}': no such row, computed {computed}")),
            }
        }

        /// The row of a match of the network alone against pubeval.
        fn check_against_pubeval(&mut self, games: usize, result: &PointsResult) {
            let figure = format!("{} wins, {:+.3} points per game", result.wins, result.points_per_game());
            self.check(&format!("network alone against pubeval, {games} games"), figure);
        }

        /// Fails naming every row that differs.
        fn assert_reproduced(self) {
            let task = self.task;
            assert!(self.differences.is_empty(), "agents/{task}/README.md:\n{}", self.differences.join("\n"));
        }
    }

    #[test]
    fn az_connect4_reproduces_its_card() {
        let mut card = Card::read("az-connect4");
        let agent = AzAgent::load::<ConnectFour>(&shipped(card.task)).unwrap();
        let inference = agent.config.mcts.inference;
        for (set, label) in PONS_SETS {
            let positions = pons::load_set(&pons_dir().unwrap().join(format!("{set}.jsonl.gz"))).unwrap();
            let evaluator = NetEvaluator::with_inference(&agent.net, agent.params.clone(), inference).unwrap();
            let mut player = PolicyPlayer::new(evaluator);
            let mistakes = pons::count_mistakes(&positions, |g| player.act(g)).unwrap();
            let what = format!("network alone: mistakes on the {} positions of {label}", positions.len());
            card.check(&what, mistakes.to_string());
        }
        let (set, label) = PONS_SETS[2];
        let positions = pons::load_set(&pons_dir().unwrap().join(format!("{set}.jsonl.gz"))).unwrap();
        let sims = agent.config.eval.simulations;
        let seed = EVAL_SEED ^ 1;
        // As the suite splits them: `eval.threads` contiguous chunks, chunk t
        // searched by a player seeded `seed ^ t`.
        let chunk = positions.len().div_ceil(agent.config.eval.threads);
        let mut mistakes = 0;
        for (t, positions) in positions.chunks(chunk).enumerate() {
            let mcts = &agent.config.mcts;
            let mut player = net_player::<ConnectFour>(&agent.net, &agent.params, mcts, sims, seed ^ t as u64).unwrap();
            mistakes += pons::count_mistakes(positions, |g| {
                player.start(g);
                player.act(g)
            })
            .unwrap();
        }
        let what = format!("MCTS ({sims} simulations): mistakes on the {} positions of {label}", positions.len());
        card.check(&what, mistakes.to_string());
        card.assert_reproduced();
    }

    #[test]
    fn az_backgammon_reproduces_its_card() {
        const GAMES: usize = 200;
        let mut card = Card::read("az-backgammon");
        let agent = AzAgent::load::<minnow_envs::Backgammon>(&shipped(card.task)).unwrap();
        let seed = EVAL_SEED ^ 1;
        let result = network_vs_pubeval(&agent, GAMES, seed, &|| ()).unwrap();
        card.check_against_pubeval(GAMES, &result);
        card.assert_reproduced();
    }

    #[test]
    fn td_backgammon_reproduces_its_card() {
        const GAMES: usize = 1000;
        let mut card = Card::read("td-backgammon");
        let saved = backgammon::load(&shipped(card.task)).unwrap();
        let net = Arc::new(saved.net);
        let eval = saved.config.eval;
        let ours = |_: u64| Ok(WholeTurnPlayer::new(TdChooser::new(net.clone(), 1)));
        let seed = backgammon::EVAL_SEED ^ 1;
        let result = points_match(&ours, &pubeval_player, GAMES, seed, eval.threads, eval.max_moves, &|| ()).unwrap();
        card.check_against_pubeval(GAMES, &result);
        card.assert_reproduced();
    }

    #[test]
    fn cube_solver_reproduces_its_card() {
        const POSITIONS: usize = 50;
        let mut card = Card::read("cube-solver");
        let mut heuristic = cube_solver::load(&shipped(card.task)).unwrap();
        let search = cube_solver::CubeSolverConfig::default().search;
        for distance in [7, 11, 14] {
            let rows =
                cube_solver::solver_table(&mut heuristic, search, std::iter::once(distance), POSITIONS, 2024).unwrap();
            let row = &rows[0];
            let figure = format!(
                "{} solved, mean length {:.2}, mean nodes expanded {:.1}",
                row.solved, row.mean_length, row.mean_expanded
            );
            card.check(&format!("weighted A*, {POSITIONS} positions at distance {distance}"), figure);
        }
        card.assert_reproduced();
    }

    #[test]
    fn logic_ca_reproduces_its_card() {
        use minnow_logic::Prune;
        use minnow_logic::robustness::{Disturbance, RobustnessConfig, checkerboard_robustness, rollout_accuracy};
        let mut card = Card::read("logic-ca");
        let run = minnow_train::RunCheckpoint::read(&shipped(card.task), card.task).unwrap();
        let (config, program) = minnow_logic::checkpoint::kept_program(&run, Prune::Channel0).unwrap();
        let text = crate::workspace_root().join("agents").join(card.task).join("circuit.txt");
        assert_eq!(program.to_text(), std::fs::read_to_string(&text).unwrap(), "{}", text.display());
        let (h, w, n) = (config.ca.height, config.ca.width, config.ca_steps);
        let trained = rollout_accuracy(&program, h, w, n, 200, 99, Disturbance::None);
        let what = format!("channel-0 cells right on 200 fresh {h}x{w} grids after {n} steps");
        card.check(&what, format!("{:.2}%", 100.0 * trained));
        let r = checkerboard_robustness(&program, &RobustnessConfig::default());
        let figure = format!("{:.2}% / {:.2}% / {:.2}%", 100.0 * r.large, 100.0 * r.damaged, 100.0 * r.asynchronous);
        card.check("robustness on 100 random 64x64 grids: plain / damaged / asynchronous", figure);
        card.assert_reproduced();
    }

    #[test]
    fn ntuple_2048_reproduces_its_card() {
        const GAMES: usize = 20;
        let mut card = Card::read("ntuple-2048");
        let agent = NTupleAgent::load(&shipped(card.task)).unwrap();
        let report = ntuple_suite(&agent, GAMES, agent.config.eval.seed, &agent.config.eval.search(), &()).unwrap();
        let r = &report.result;
        let figure = format!(
            "mean score {:.0}, 1024 in {:.1}%, 2048 in {:.1}%",
            r.mean_score,
            100.0 * r.reached_1024,
            100.0 * r.reached_2048
        );
        card.check(&format!("greedy play on one view, the first {GAMES} games from seed {}", report.seed), figure);
        card.assert_reproduced();
    }

    #[test]
    fn a_missing_agent_says_how_to_get_one() {
        use super::checkpoint_or_shipped;
        let trained = checkpoint_or_shipped(None, "dqn-cartpole").unwrap_err();
        assert!(trained.contains("train one with `cargo xtask train dqn-cartpole`"), "{trained}");
        let untrained = checkpoint_or_shipped(None, "az-tictactoe").unwrap_err();
        assert!(untrained.contains("nor does a task train one"), "{untrained}");
        assert_eq!(checkpoint_or_shipped(None, "az-connect4").unwrap(), shipped("az-connect4"));
    }
}
