//! `cargo xtask train dqn-cube | dqn-2048 | dqn-cartpole`: a DQN run with a
//! progress bar, metrics, a learning curve, checkpoints with exact
//! `--resume`, and a final greedy evaluation table. Under `mpirun -np K
//! ... --distributed` every rank acts the same and learns data-parallel
//! (`DqnRun::step_sharded`); rank 0 alone evaluates and writes the run.

use crate::error::XtaskError;
use crate::train::{FrontEnd, TrainArgs, layered};
use minnow_dist::Collective;
use minnow_envs::{CartPole, CartPoleConfig, Cube2, Cube2Config, Env, Game2048, Game2048Config};
use minnow_rl::dqn::eval::play_greedy;
use minnow_rl::dqn::{DqnConfig, DqnEnv, DqnLearner, DqnRun, Shards};
use minnow_tasks::eval::{evaluate_2048, evaluate_cube};
use minnow_tasks::{CartPoleDqn, CubeDqn, Game2048Dqn, presets, pretrain_cube};
use minnow_train::{Cadence, Metrics, Run, RunCheckpoint, RunCheckpointWriter, TrainError};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use std::rc::Rc;
use std::time::Instant;

/// A task's whole config: the learner's, the environment's and the evaluation's.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskConfig<C> {
    dqn: DqnConfig,
    env: C,
    eval: EvalConfig,
    /// Supervised steps (batches of 256) from the exact BFS values before
    /// reinforcement learning starts; cube only, 0 (the default) for RL alone.
    #[serde(default)]
    pretrain_steps: u64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EvalConfig {
    /// Positions per distance (cube) or games (2048, CartPole) at each
    /// evaluation during training, and in the final one.
    during: usize,
    last: usize,
    seed: u64,
}

/// What differs between the DQN tasks.
trait DqnTask: DqnEnv + Sized {
    type EnvConfig: Clone + std::fmt::Debug + Serialize + DeserializeOwned;
    fn defaults() -> TaskConfig<Self::EnvConfig>;
    fn build(config: &Self::EnvConfig) -> Result<Self, String>;
    /// The metric plotted beside the loss.
    const HEADLINE: &'static str;
    /// Supervised pretraining from an oracle, where the task has one.
    fn pretrain(learner: &mut DqnLearner, env: &Self::EnvConfig, steps: u64, seed: u64) -> Result<f32, String> {
        let _ = (learner, env, steps, seed);
        Err("pretrain_steps: this task has no oracle to pretrain from (only dqn-cube has)".into())
    }
    /// Evaluation metrics (the headline first) and a table to print.
    fn evaluate(learner: &mut DqnLearner, env: &Self, count: usize, seed: u64) -> Result<(Metrics, String), String>;
}

impl DqnTask for CubeDqn {
    type EnvConfig = Cube2Config;
    const HEADLINE: &'static str = "solved_d7_2d";

    /// A cost of 1 per move: Q estimates minus the moves left, so
    /// neighbouring distances differ by a whole unit at every depth.
    fn defaults() -> TaskConfig<Cube2Config> {
        let env = Cube2Config { scramble_depth: 1, max_steps: 14, reward_solved: 0.0, reward_step: -1.0 };
        TaskConfig {
            dqn: presets::cube(),
            env,
            eval: EvalConfig { during: 100, last: 1000, seed: 2024 },
            pretrain_steps: 0,
        }
    }

    fn build(config: &Cube2Config) -> Result<Self, String> {
        Cube2::new(*config).map(CubeDqn).map_err(|e| e.to_string())
    }

    fn pretrain(learner: &mut DqnLearner, env: &Cube2Config, steps: u64, seed: u64) -> Result<f32, String> {
        pretrain_cube(learner, steps, 256, env.reward_step, env.reward_solved, seed).map_err(|e| e.to_string())
    }

    fn evaluate(learner: &mut DqnLearner, _: &Self, count: usize, seed: u64) -> Result<(Metrics, String), String> {
        let results = evaluate_cube(learner, 1..=14, count, seed).map_err(|e| e.to_string())?;
        let at = |d: usize| results[d - 1];
        let metrics = vec![
            ("solved_d7_2d", at(7).solved_within_2d),
            ("solved_d4_d", at(4).solved_within_d),
            ("solved_d7_d", at(7).solved_within_d),
            ("solved_d10_2d", at(10).solved_within_2d),
            ("solved_d14_2d", at(14).solved_within_2d),
        ];
        let mut table =
            format!("{:>8} {:>10} {:>12} {:>12} {:>12}\n", "distance", "positions", "within d", "within 2d", "excess");
        for r in &results {
            table += &format!(
                "{:>8} {:>10} {:>11.1}% {:>11.1}% {:>12.2}\n",
                r.distance,
                r.positions,
                100.0 * r.solved_within_d,
                100.0 * r.solved_within_2d,
                r.mean_excess
            );
        }
        Ok((metrics, table))
    }
}

impl DqnTask for Game2048Dqn {
    type EnvConfig = Game2048Config;
    const HEADLINE: &'static str = "mean_score";

    fn defaults() -> TaskConfig<Game2048Config> {
        TaskConfig {
            dqn: presets::game2048(),
            env: Game2048Config::default(),
            eval: EvalConfig { during: 100, last: 1000, seed: 2048 },
            pretrain_steps: 0,
        }
    }

    fn build(config: &Game2048Config) -> Result<Self, String> {
        Game2048::new(*config).map(Game2048Dqn).map_err(|e| e.to_string())
    }

    fn evaluate(learner: &mut DqnLearner, env: &Self, count: usize, seed: u64) -> Result<(Metrics, String), String> {
        let r = evaluate_2048(learner, env, count, seed).map_err(|e| e.to_string())?;
        Ok((r.metrics(), format!("{r}\n")))
    }
}

impl DqnTask for CartPoleDqn {
    type EnvConfig = CartPoleConfig;
    const HEADLINE: &'static str = "mean_return_last_100";

    fn defaults() -> TaskConfig<CartPoleConfig> {
        TaskConfig {
            dqn: presets::cartpole(),
            env: CartPoleConfig::default(),
            eval: EvalConfig { during: 20, last: 100, seed: 500 },
            pretrain_steps: 0,
        }
    }

    fn build(config: &CartPoleConfig) -> Result<Self, String> {
        CartPole::new(*config).map(CartPoleDqn).map_err(|e| e.to_string())
    }

    fn evaluate(learner: &mut DqnLearner, env: &Self, count: usize, seed: u64) -> Result<(Metrics, String), String> {
        let mut envs: Vec<CartPoleDqn> = (0..count as u64)
            .map(|k| {
                let mut e = env.clone();
                e.reset(seed + k);
                e
            })
            .collect();
        let outcomes = play_greedy(learner, &mut envs, usize::MAX).map_err(|e| e.to_string())?;
        let mean = outcomes.iter().map(|o| o.ret as f64).sum::<f64>() / count.max(1) as f64;
        Ok((vec![("greedy_return", mean)], format!("greedy return over {count} episodes: {mean:.1}\n")))
    }
}

/// Trains a DQN task; as one rank of several (`world`), data-parallel.
pub fn train_dqn(task: &str, args: &TrainArgs, world: &Rc<dyn Collective>) -> Result<(), XtaskError> {
    let by_task = |world: Option<&Rc<dyn Collective>>| match task {
        "dqn-cube" => train::<CubeDqn>(task, args, world),
        "dqn-2048" => train::<Game2048Dqn>(task, args, world),
        _ => train::<CartPoleDqn>(task, args, world),
    };
    if world.size() > 1 {
        // MPI is called from the thread that initialised it.
        return by_task(Some(world));
    }
    // On a worker of rayon's pool, the learner's split matrix products
    // (`DqnConfig::threads`) queue locally, which allocates nothing.
    rayon::scope(|_| by_task(None))
}

/// A DQN task as the run driver sees it: the run, the task's evaluation
/// and how often a step logs its statistics.
struct TaskRun<E: DqnTask> {
    run: DqnRun<E>,
    env: E,
    eval: EvalConfig,
    log_every: u64,
    /// The learner's and the environment's settings (see `identity`).
    identity: String,
    /// Whether this process evaluates (every rank of a distributed run
    /// trains the same; only rank 0 evaluates and writes).
    evaluates: bool,
    /// This rank's part when the run is one of several (data-parallel).
    shards: Option<Shards>,
}

/// What may change on a resume: the step budget, the cadences, the
/// thread count (results are identical on any count) and the evaluations.
const FREE_ON_RESUME: [&str; 5] = ["dqn.env_steps", "dqn.eval_every", "dqn.checkpoint_every", "dqn.threads", "eval"];

impl<E: DqnTask> Run for TaskRun<E> {
    fn task(&self) -> &str {
        E::NAME
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn step(&self) -> u64 {
        self.run.env_steps()
    }

    fn total(&self) -> u64 {
        self.run.config().env_steps
    }

    fn train_step(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        let before = self.run.env_steps();
        match self.shards.as_mut() {
            Some(shards) => self.run.step_sharded(shards),
            None => self.run.step(),
        }
        .map_err(TrainError::task)?;
        if before / self.log_every != self.run.env_steps() / self.log_every {
            let recent = self.run.recent();
            metrics.extend([
                ("loss", self.run.last_update().map_or(f64::NAN, |u| u.loss as f64)),
                ("mean_return_last_100", recent.mean_return() as f64),
            ]);
            // Left out for an environment without a notion of success.
            if let Some(rate) = recent.success_rate() {
                metrics.push(("success_rate_last_100", rate as f64));
            }
            metrics.extend([
                ("mean_length_last_100", recent.mean_length() as f64),
                ("epsilon", self.run.epsilon() as f64),
            ]);
            if self.run.config().curriculum.is_some() {
                metrics.push(("level", self.run.level() as f64));
            }
        }
        Ok(())
    }

    fn stop_requested(&self) -> bool {
        self.shards.as_ref().map_or_else(minnow_train::stop_requested, Shards::stop_requested)
    }

    fn evaluate(&mut self, metrics: &mut Metrics) -> Result<(), TrainError> {
        if !self.evaluates {
            return Ok(());
        }
        let (during, seed) = (self.eval.during, self.eval.seed);
        let (results, _) =
            E::evaluate(self.run.learner_mut(), &self.env, during, seed).map_err(|e| TrainError::Task(e.into()))?;
        metrics.extend(results);
        Ok(())
    }

    fn save(&self, checkpoint: &mut RunCheckpointWriter) -> Result<(), TrainError> {
        self.run.save_state(checkpoint).map_err(TrainError::task)
    }

    fn prepare_stop(&mut self) -> Result<(), TrainError> {
        self.run.cut_episodes().map_err(TrainError::task)
    }

    fn restore(&mut self, checkpoint: &RunCheckpoint) -> Result<(), TrainError> {
        self.run.restore_state(checkpoint).map_err(TrainError::task)
    }
}

fn train<E: DqnTask>(task: &str, args: &TrainArgs, world: Option<&Rc<dyn Collective>>) -> Result<(), XtaskError> {
    let mut config = layered(E::defaults(), args.config.as_deref())?;
    if let Some(seed) = args.seed {
        config.dqn.seed = seed;
    }
    if let Some(steps) = args.steps {
        config.dqn.env_steps = steps;
    }
    config.dqn.validate().map_err(|e| e.to_string())?;
    // An evaluation of nothing would report a mean of no values.
    for (key, value) in [("eval.during", config.eval.during), ("eval.last", config.eval.last)] {
        if value == 0 {
            return Err(format!("invalid config: {key}: expected at least 1 episode or position, found 0").into());
        }
    }
    if let Some(world) = world {
        crate::train::agree_on_config(world.as_ref(), task, args, &config)?;
    }
    let env = E::build(&config.env)?;
    let what =
        format!("the DQN learner (hidden {:?}, replay {})", config.dqn.network.hidden, config.dqn.replay.capacity);
    minnow_train::memory::check_fits(&what, config.dqn.memory_bytes(env.observation_size(), env.action_count()))?;

    let root = world.is_none_or(|w| w.rank() == 0);
    let (out, checkpoint) = crate::train::rank_run_dir(root, args, task)?;
    let run = DqnRun::new(&config.dqn, env.clone()).map_err(|e| e.to_string())?;
    let shards = world.map(|world| run.shards(world.clone())).transpose().map_err(|e| e.to_string())?;
    let total = config.dqn.env_steps;
    let log_every = (total / 2000).max(config.dqn.num_envs as u64);
    let identity = minnow_train::config_identity(&config, &FREE_ON_RESUME);
    let mut run = TaskRun { run, env, eval: config.eval, log_every, identity, evaluates: root, shards };
    if args.resume {
        minnow_train::resume(&mut run, &checkpoint)?;
    } else if config.pretrain_steps > 0 {
        let t = Instant::now();
        let loss = E::pretrain(run.run.learner_mut(), &config.env, config.pretrain_steps, config.dqn.seed)?;
        if root {
            println!(
                "pretrained on oracle values: {} steps in {:.1} s, final loss {loss:.4}",
                config.pretrain_steps,
                t.elapsed().as_secs_f64()
            );
        }
    }
    let cadence = Cadence {
        eval_every: config.dqn.eval_every,
        checkpoint_every: config.dqn.checkpoint_every,
        eval_at_end: false,
    };
    if !root {
        minnow_train::drive(&mut run, cadence, None, &mut ())?;
        return Ok(());
    }
    crate::train::write_json(&out.join("config.json"), &config)?;

    match world.map_or(1, |w| w.size()) {
        1 => println!("training {task} for {total} environment steps -> {}", out.display()),
        ranks => println!(
            "training {task} for {total} environment steps on {ranks} ranks, data-parallel -> {}",
            out.display()
        ),
    }
    let mut front = FrontEnd::open(&out, run.step(), total, E::HEADLINE)?;
    let (started, start_steps, start_updates) = (Instant::now(), run.step(), run.run.learner().updates());
    let timing = minnow_train::drive(&mut run, cadence, Some(&checkpoint), &mut front)?;
    front.bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64() - timing.eval_seconds;
    front.plot(&out.join("curve.png"), task)?;
    let (steps, updates) = (run.step() - start_steps, run.run.learner().updates() - start_updates);
    let recent = run.run.recent();
    let success = recent.success_rate().map_or(String::new(), |rate| format!(", success {:.1}%", 100.0 * rate));
    println!(
        "{task}: {steps} environment steps and {updates} updates in {seconds:.1} s of training ({:.0} steps/s, {:.0} updates/s); last 100 episodes: return {:.1}{success}",
        steps as f64 / seconds,
        updates as f64 / seconds,
        recent.mean_return(),
    );
    let t = Instant::now();
    let (metrics, table) = E::evaluate(run.run.learner_mut(), &run.env, config.eval.last, config.eval.seed)?;
    let views = if config.dqn.symmetric_eval {
        format!(
            "; values averaged over {} symmetric views (one view: --resume with a --config of \
             {{\"dqn\": {{\"symmetric_eval\": false}}}})",
            run.env.symmetries().map_or(1, |s| s.count())
        )
    } else {
        String::new()
    };
    println!("final greedy evaluation ({:.1} s{views}):\n{table}", t.elapsed().as_secs_f64());
    let summary: serde_json::Map<String, serde_json::Value> =
        metrics.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect();
    crate::train::write_json(&out.join("eval.json"), &summary)?;
    println!("wrote {}/{{metrics.jsonl, curve.png, checkpoint.safetensors, config.json, eval.json}}", out.display());
    Ok(())
}
