//! `dqn-cube`, `dqn-2048`, `dqn-cartpole`: a DQN learner on one of the
//! shipped environments, its preset tuned ([`presets`](crate::presets)),
//! evaluated greedily as it trains and by a larger final evaluation whose
//! table it prints. As several ranks every rank acts the same and learns
//! data-parallel (`DqnRun::step_sharded`); rank 0 alone evaluates and
//! writes the run.

mod config;
mod run;
mod task_env;

pub use config::{DqnEvalConfig, DqnTaskConfig};
pub use task_env::{DqnTaskEnv, Pretrain};

use config::FREE_ON_RESUME;
use minnow_optim::Check;
use minnow_rl::dqn::{DqnLearner, DqnRun};
use minnow_train::{Cadence, Evaluate, Evaluation, Run, RunCheckpoint, Session, Task, TaskError, View};
use run::DqnTaskRun;
use std::marker::PhantomData;
use std::time::Instant;

/// The DQN task on the environment `E`.
pub struct DqnTask<E>(PhantomData<fn() -> E>);

impl<E> DqnTask<E> {
    /// The task.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<E> Default for DqnTask<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> std::fmt::Debug for DqnTask<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DqnTask").field(&std::any::type_name::<E>()).finish()
    }
}

impl<E: DqnTaskEnv> Task for DqnTask<E> {
    type Config = DqnTaskConfig<E::EnvConfig>;

    fn name(&self) -> &str {
        E::TASK
    }

    fn about(&self) -> &str {
        E::ABOUT
    }

    fn defaults(&self) -> Self::Config {
        E::defaults()
    }

    fn set_seed(&self, config: &mut Self::Config, seed: u64) {
        config.dqn.seed = seed;
    }

    fn set_steps(&self, config: &mut Self::Config, steps: u64) {
        config.dqn.env_steps = steps;
    }

    /// The learner's and the evaluations' ranges, pretraining only from an
    /// oracle the task has, the environment, and a learner that fits in
    /// memory (refused before anything is allocated).
    fn check(&self, config: &Self::Config) -> Result<(), TaskError> {
        config.dqn.validate()?;
        config.eval.validate(E::TASK)?;
        if config.pretrain_steps > 0 && E::PRETRAIN.is_none() {
            let expected = "0 (only dqn-cube has an oracle to pretrain from)";
            return Err(Check(E::TASK).count("pretrain_steps", expected, config.pretrain_steps).into());
        }
        let env = E::build(&config.env)?;
        let what =
            format!("the DQN learner (hidden {:?}, replay {})", config.dqn.network.hidden, config.dqn.replay.capacity);
        minnow_train::memory::check_fits(&what, config.dqn.memory_bytes(env.observation_size(), env.action_count()))?;
        Ok(())
    }

    fn distributed(&self) -> Option<&str> {
        Some("data-parallel")
    }

    fn train(&self, config: &Self::Config, session: &mut dyn Session) -> Result<(), TaskError> {
        let world = session.world().clone();
        let env = E::build(&config.env)?;
        let learner = DqnRun::new(&config.dqn, env.clone())?;
        let shards = (world.size() > 1).then(|| learner.shards(world.clone())).transpose()?;
        let mut run = DqnTaskRun {
            log_every: (config.dqn.env_steps / 2000).max(config.dqn.num_envs as u64),
            identity: minnow_train::config_identity(config, &FREE_ON_RESUME),
            evaluates: session.out().is_some(),
            run: learner,
            env,
            eval: config.eval,
            shards,
        };
        session.resume(&mut run)?;
        if let Some(pretrain) = E::PRETRAIN.filter(|_| config.pretrain_steps > 0 && !session.resuming()) {
            let t = Instant::now();
            let (steps, seed) = (config.pretrain_steps, config.dqn.seed);
            let loss = pretrain(run.run.learner_mut(), &config.env, steps, seed)?;
            if session.out().is_some() {
                minnow_train::outln!(
                    "pretrained on oracle values: {steps} steps in {:.1} s, final loss {loss:.4}",
                    t.elapsed().as_secs_f64()
                );
            }
        }
        let total = config.dqn.env_steps;
        if let Some(out) = session.out() {
            match world.size() {
                1 => minnow_train::outln!("training {} for {total} environment steps -> {}", E::TASK, out.display()),
                ranks => minnow_train::outln!(
                    "training {} for {total} environment steps on {ranks} ranks, data-parallel -> {}",
                    E::TASK,
                    out.display()
                ),
            }
        }
        let cadence = Cadence {
            eval_every: config.dqn.eval_every,
            checkpoint_every: config.dqn.checkpoint_every,
            eval_at_end: false,
        };
        let (started, start_steps, start_updates) = (Instant::now(), run.step(), run.run.learner().updates());
        let timing = session.drive(&mut run, cadence, View { headline: E::HEADLINE, show: &[], observer: &mut () })?;
        if session.out().is_none() {
            return Ok(());
        }
        let seconds = started.elapsed().as_secs_f64() - timing.eval_seconds;
        let (steps, updates) = (run.step() - start_steps, run.run.learner().updates() - start_updates);
        let recent = run.run.recent();
        let success = recent.success_rate().map_or(String::new(), |rate| format!(", success {:.1}%", 100.0 * rate));
        minnow_train::outln!(
            "{}: {steps} environment steps and {updates} updates in {seconds:.1} s of training ({:.0} steps/s, {:.0} updates/s); last 100 episodes: return {:.1}{success}",
            E::TASK,
            steps as f64 / seconds,
            updates as f64 / seconds,
            recent.mean_return(),
        );
        let e = final_evaluation(run.run.learner_mut(), &run.env, config, config.eval.last)?;
        minnow_train::outln!("{}", e.table);
        let summary: serde_json::Map<String, serde_json::Value> =
            e.figures.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect();
        minnow_train::write_json(session, "eval.json", &summary)
    }

    /// The final greedy evaluation of a saved network, `overrides` laid
    /// over the config it was trained with.
    fn evaluate(&self, request: &Evaluate<'_>) -> Result<Evaluation, TaskError> {
        let checkpoint = RunCheckpoint::read(request.checkpoint, E::NAME)?;
        let config = self.saved_config(&checkpoint, request.overrides)?;
        let env = E::build(&config.env)?;
        let mut run = DqnRun::new(&config.dqn, env.clone())?;
        run.learner_mut().restore_network(&checkpoint)?;
        final_evaluation(run.learner_mut(), &env, &config, request.games.unwrap_or(config.eval.last))
    }
}

/// The greedy evaluation at the end of a run: `count` episodes (or
/// positions) from the config's evaluation seed.
fn final_evaluation<E: DqnTaskEnv>(
    learner: &mut DqnLearner,
    env: &E,
    config: &DqnTaskConfig<E::EnvConfig>,
    count: usize,
) -> Result<Evaluation, TaskError> {
    let t = Instant::now();
    let (figures, table) = E::evaluate(learner, env, count, config.eval.seed)?;
    let views = if config.dqn.symmetric_eval {
        format!(
            "; values averaged over {} symmetric views (one view: `eval {}` with a --config of \
             {{\"dqn\": {{\"symmetric_eval\": false}}}})",
            env.symmetries().map_or(1, |s| s.count()),
            E::TASK
        )
    } else {
        String::new()
    };
    Ok(Evaluation {
        figures,
        table: format!("final greedy evaluation ({:.1} s{views}):\n{table}", t.elapsed().as_secs_f64()),
    })
}
