//! The DQN capabilities on an environment written here: a corridor with a
//! goal at both ends, whose moves are a known model and whose mirror image
//! is a symmetric view. An environment without a capability is refused,
//! naming the option that needs it; one with it trains and evaluates.

use minnow_envs::{Env, EnvError, Step};
use minnow_optim::ScheduleConfig;
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{DqnConfig, DqnEnv, DqnRun, EnvModel, MemoryConfig, QNetworkConfig, Symmetries};
use minnow_rl::{Result, RlError};

const CELLS: usize = 7;
const LEFT: usize = 0;

/// Cells `0..CELLS`, a goal (+1, the end) at either end, -0.05 a step.
#[derive(Clone, Debug)]
struct Corridor {
    cell: usize,
    steps: u32,
    over: bool,
    /// Whether it offers its model and its mirror view.
    capable: bool,
}

fn corridor(capable: bool) -> Corridor {
    Corridor { cell: 3, steps: 0, over: false, capable }
}

/// The step from `cell` by `action`: the next cell, its reward, whether it ends.
fn walk(cell: usize, action: usize) -> (usize, f32, bool) {
    let next = if action == LEFT { cell - 1 } else { cell + 1 };
    let end = next == 0 || next == CELLS - 1;
    (next, if end { 1.0 } else { -0.05 }, end)
}

fn one_hot(cell: usize, out: &mut [f32]) {
    out.fill(0.0);
    out[cell] = 1.0;
}

fn cell_of(obs: &[f32]) -> Result<usize> {
    let cell = obs.iter().position(|&v| v == 1.0).filter(|&c| c > 0 && c < CELLS - 1);
    cell.ok_or(RlError::Length { op: "corridor", what: "an inner cell", expected: 1, found: 0 })
}

impl Env for Corridor {
    const NAME: &'static str = "corridor";

    fn observation_size(&self) -> usize {
        CELLS
    }

    fn action_count(&self) -> usize {
        2
    }

    fn reset(&mut self, seed: u64) {
        *self = Corridor { cell: 1 + (seed % (CELLS as u64 - 2)) as usize, steps: 0, over: false, ..*self };
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        if self.over {
            return Err(EnvError::EpisodeOver { env: Self::NAME });
        }
        if action > 1 {
            return Err(EnvError::ActionOutOfRange { env: Self::NAME, action, action_count: 2 });
        }
        let (next, reward, done) = walk(self.cell, action);
        self.cell = next;
        self.steps += 1;
        let truncated = self.steps >= 20;
        self.over = done || truncated;
        Ok(Step { reward, done, truncated })
    }

    fn legal_mask(&self) -> u64 {
        if self.over { 0 } else { 0b11 }
    }

    fn observe(&self, out: &mut [f32]) {
        one_hot(self.cell, out);
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

impl DqnEnv for Corridor {
    fn succeeded(&self, last: &Step) -> bool {
        last.done
    }

    fn model(&self) -> Option<&dyn EnvModel> {
        self.capable.then_some(self as &dyn EnvModel)
    }

    fn symmetries(&self) -> Option<&dyn Symmetries> {
        self.capable.then_some(self as &dyn Symmetries)
    }
}

impl EnvModel for Corridor {
    fn successors(&self, obs: &[f32], next_obs: &mut [f32], rewards: &mut [f32], terminal: &mut [f32]) -> Result<()> {
        let cell = cell_of(obs)?;
        for (a, row) in next_obs.chunks_exact_mut(CELLS).enumerate() {
            let (next, reward, end) = walk(cell, a);
            one_hot(next, row);
            (rewards[a], terminal[a]) = (reward, end as u8 as f32);
        }
        Ok(())
    }
}

impl Symmetries for Corridor {
    fn count(&self) -> usize {
        2
    }

    /// View 1: the corridor mirrored, left and right swapped.
    fn view(&self, k: usize, obs: &[f32], out: &mut [f32], actions: &mut [usize]) -> Result<()> {
        let cell = cell_of(obs)?;
        one_hot(if k == 0 { cell } else { CELLS - 1 - cell }, out);
        (actions[0], actions[1]) = if k == 0 { (0, 1) } else { (1, 0) };
        Ok(())
    }
}

fn config() -> DqnConfig {
    DqnConfig {
        seed: 2,
        network: QNetworkConfig { hidden: vec![32], ..QNetworkConfig::default() },
        gamma: 0.9,
        n_step: 1,
        batch_size: 32,
        replay: MemoryConfig { capacity: 2_000, ..MemoryConfig::default() },
        learning_starts: 100,
        num_envs: 4,
        epsilon: ScheduleConfig::linear(1.0, 1_000, 0.05),
        env_steps: 3_000,
        ..DqnConfig::default()
    }
}

#[test]
fn options_need_their_capabilities() {
    for (option, config) in [
        ("all_actions", DqnConfig { all_actions: true, ..config() }),
        ("symmetric_eval", DqnConfig { symmetric_eval: true, ..config() }),
        ("afterstates", DqnConfig { afterstates: true, ..config() }),
    ] {
        let err = DqnRun::new(&config, corridor(false)).unwrap_err();
        assert!(matches!(err, RlError::NoModel { env: "corridor", option: o, .. } if o == option), "{err}");
        assert!(err.to_string().contains(option), "{err}");
    }
    // The corridor has no afterstates even when capable.
    assert!(DqnRun::new(&DqnConfig { afterstates: true, ..config() }, corridor(true)).is_err());
}

/// Learning every action from the model, then acting on Q averaged over
/// the mirror views: from every inner cell the greedy walk takes the
/// nearer end.
#[test]
fn model_and_views_train_and_evaluate() {
    let config = DqnConfig { all_actions: true, symmetric_eval: true, ..config() };
    let mut run = DqnRun::new(&config, corridor(true)).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    let mut envs: Vec<Corridor> =
        (1..CELLS - 1).map(|cell| Corridor { cell, steps: 0, over: false, capable: true }).collect();
    let outcomes = play_greedy(run.learner_mut(), &mut envs, 10).unwrap();
    for (cell, outcome) in (1..CELLS - 1).zip(&outcomes) {
        let nearest = cell.min(CELLS - 1 - cell) as u32;
        assert!(outcome.success && outcome.steps == nearest, "from cell {cell}: {outcome:?}");
    }
}

/// Learning every action on a one-rank group (the data-parallel path,
/// whose shard is the whole batch) gives the one-process run's bits.
#[test]
fn all_actions_on_one_shard_is_the_one_process_run() {
    let config = DqnConfig { all_actions: true, env_steps: 600, ..config() };
    let mut alone = DqnRun::new(&config, corridor(true)).unwrap();
    let mut sharded =
        DqnRun::new(&config, corridor(true)).unwrap().distributed(std::rc::Rc::new(minnow_dist::Solo)).unwrap();
    while !alone.is_done() {
        alone.step().unwrap();
        sharded.step().unwrap();
    }
    assert!(alone.learner().updates() > 100);
    let (a, b) = (alone.learner().params().values(), sharded.learner().params().values());
    assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
    let bits = |u: minnow_rl::dqn::UpdateStats| (u.loss.to_bits(), u.mean_q.to_bits());
    assert_eq!(alone.last_update().map(bits), sharded.last_update().map(bits));
}
