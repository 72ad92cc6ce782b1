//! An environment that says nothing about success has no success rate,
//! rather than a rate of 0%; one that does has its rate; a curriculum,
//! which counts successes, needs `DqnEnv::succeeded`. The environment
//! here leaves every default of `Env` and `DqnEnv` in place.

use minnow_envs::{Env, EnvError, Step, check_action};
use minnow_optim::ScheduleConfig;
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{CurriculumConfig, DqnConfig, DqnEnv, DqnRun, MemoryConfig, QNetworkConfig};

/// Three cells in a row; action 1 steps right, 0 stays; the right end
/// (+1) ends the episode, and 6 steps cut it.
#[derive(Clone, Debug, Default)]
struct Row {
    cell: usize,
    steps: u32,
    over: bool,
}

impl Env for Row {
    const NAME: &'static str = "row";

    fn observation_size(&self) -> usize {
        3
    }

    fn action_count(&self) -> usize {
        2
    }

    fn reset(&mut self, _seed: u64) {
        *self = Row::default();
    }

    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        check_action(self, action)?;
        self.cell += action;
        self.steps += 1;
        let done = self.cell == 2;
        let truncated = self.steps >= 6;
        self.over = done || truncated;
        Ok(Step { reward: done as u8 as f32, done, truncated })
    }

    fn observe(&self, out: &mut [f32]) {
        out.fill(0.0);
        out[self.cell] = 1.0;
    }

    fn is_over(&self) -> bool {
        self.over
    }
}

impl DqnEnv for Row {}

/// [`Row`], reaching the end a success.
#[derive(Clone, Debug, Default)]
struct JudgedRow(Row);

impl Env for JudgedRow {
    const NAME: &'static str = "judged row";
    fn observation_size(&self) -> usize {
        self.0.observation_size()
    }
    fn action_count(&self) -> usize {
        self.0.action_count()
    }
    fn reset(&mut self, seed: u64) {
        self.0.reset(seed)
    }
    fn step(&mut self, action: usize) -> Result<Step, EnvError> {
        self.0.step(action)
    }
    fn observe(&self, out: &mut [f32]) {
        self.0.observe(out)
    }
    fn is_over(&self) -> bool {
        self.0.is_over()
    }
}

impl DqnEnv for JudgedRow {
    fn succeeded(&self, last: &Step) -> Option<bool> {
        Some(last.done)
    }
}

fn config() -> DqnConfig {
    DqnConfig {
        network: QNetworkConfig { hidden: vec![8], ..QNetworkConfig::default() },
        batch_size: 4,
        replay: MemoryConfig { capacity: 64, ..MemoryConfig::default() },
        learning_starts: 8,
        num_envs: 2,
        epsilon: ScheduleConfig::linear(1.0, 40, 0.1),
        env_steps: 80,
        ..DqnConfig::default()
    }
}

fn trained<E: DqnEnv>(env: E) -> DqnRun<E> {
    let mut run = DqnRun::new(&config(), env).unwrap();
    assert!(run.recent().success_rate().unwrap().is_nan(), "no episode has ended yet");
    while !run.is_done() {
        run.step().unwrap();
    }
    assert!(run.recent().total > 0, "episodes ended");
    run
}

#[test]
fn every_action_is_legal_by_default() {
    let mut row = Row::default();
    assert_eq!(row.legal_mask(), 0b11);
    row.step(1).unwrap();
    row.step(1).unwrap();
    assert_eq!(row.legal_mask(), 0, "none once the episode is over");
    assert_eq!(row.step(1), Err(EnvError::EpisodeOver { env: "row" }));
}

#[test]
fn an_env_without_succeeded_has_no_success_rate() {
    let mut run = trained(Row::default());
    assert_eq!(run.recent().success_rate(), None);
    let outcomes = play_greedy(run.learner_mut(), &mut [Row::default()], 6).unwrap();
    assert_eq!(outcomes[0].success, None);
}

#[test]
fn an_env_with_succeeded_has_its_success_rate() {
    let mut run = trained(JudgedRow::default());
    let recent = run.recent();
    let rate = recent.success_rate().unwrap();
    let expected = recent.successes.iter().filter(|&&s| s == Some(true)).count() as f32 / recent.successes.len() as f32;
    assert_eq!(rate, expected);
    let outcomes = play_greedy(run.learner_mut(), &mut [JudgedRow::default()], 6).unwrap();
    assert_eq!(outcomes[0].success, Some(outcomes[0].over && outcomes[0].ret > 0.0));
}

/// A curriculum counts successes: an environment that judges none is an
/// error naming the method, not a level that never rises.
#[test]
fn a_curriculum_needs_succeeded() {
    let curriculum = Some(CurriculumConfig { start: 1, max: 3, window: 4, threshold: 0.5 });
    let config = DqnConfig { curriculum, epsilon: ScheduleConfig::constant(0.0), ..config() };
    let mut run = DqnRun::new(&config, Row::default()).unwrap();
    let err = loop {
        if let Err(e) = run.step() {
            break e.to_string();
        }
        assert!(!run.is_done(), "the run ended without the error");
    };
    assert_eq!(err, "row: DqnConfig.curriculum needs DqnEnv::succeeded, which row does not provide");
}
