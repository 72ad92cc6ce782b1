//! `train [TASK]`: one path for every task of a registry. The task is
//! looked up, its config made (preset, `--config`, `--seed`, `--steps`)
//! and agreed by every rank, the run directory opened, and the task trains
//! through a [`CliSession`].

use crate::args::TrainArgs;
use crate::error::CliError;
use crate::run_dir::{open_run_dir, read_overrides, run_paths, write_text};
use crate::session::CliSession;
use minnow_dist::Collective;
use minnow_train::{AnyTask, Registry, Sweep};
use std::path::Path;
use std::rc::Rc;

/// Trains the task `args` names (or lists the tasks); the run directory
/// defaults to `runs/NAME` under `root`.
pub fn train(args: &TrainArgs, registry: &Registry, root: &Path) -> Result<(), CliError> {
    let name = match &args.task {
        Some(name) => name.as_str(),
        None => registry.default_task().map(|t| t.name()).unwrap_or("list"),
    };
    if name == "list" {
        for task in registry.iter() {
            let distributed = task.distributed().map(|how| format!(" [distributed: {how}]")).unwrap_or_default();
            minnow_train::outln!("  {:<14} {}{distributed}", task.name(), task.about());
        }
        return Ok(());
    }
    let task = registry.get(name).ok_or_else(|| CliError::UnknownTask { task: name.to_string() })?;
    if args.until_first && args.sweep_seeds.is_none() {
        return Err(CliError::Usage("--until-first stops a seed sweep: pass --sweep-seeds FIRST..LAST too".into()));
    }
    if !args.distributed && !minnow_dist::launched_by_mpi() {
        // The whole run on a worker of rayon's pool: the splits a step
        // makes (matrix products, optimiser bands) then queue on that
        // worker, which allocates nothing, where a thread outside the pool
        // hands each one to the pool's shared queue.
        return rayon::scope(|_| {
            let result = train_task(task, args, registry, root, &(Rc::new(minnow_dist::Solo) as Rc<dyn Collective>));
            crate::signals::run_returned();
            result
        });
    }
    if args.distributed {
        // Before joining a process group: a task that never trains
        // distributed is the answer, not how this binary was built.
        check_distributed(task, registry, args)?;
    }
    let world = minnow_dist::world(args.distributed)?;
    let result = train_task(task, args, registry, root, &world);
    crate::signals::run_returned();
    // A rank that failed alone would leave the others waiting in a
    // collective: the whole job ends with it. (A stop is agreed by every
    // rank in the step, so they all return.)
    if let Err(e) = &result
        && world.size() > 1
        && !e.is_stop()
    {
        eprintln!("error on rank {} of {}: {}", world.rank(), world.size(), crate::chain(&e));
        world.abort(1);
    }
    result
}

fn train_task(
    task: &dyn AnyTask,
    args: &TrainArgs,
    registry: &Registry,
    root: &Path,
    world: &Rc<dyn Collective>,
) -> Result<(), CliError> {
    let name = task.name();
    let failed = |source| CliError::Task { task: name.to_string(), source };
    let distributed = args.distributed || world.size() > 1;
    if distributed {
        check_distributed(task, registry, args)?;
    }
    let overrides = read_overrides(args.config.as_deref())?;
    let config = task
        .configure(&overrides, args.seed, args.steps)
        .map_err(|e| CliError::of_task(name, args.config.as_deref(), e))?;
    if let Some(text) = &args.sweep_seeds {
        let sweep = Sweep { seeds: parse_seeds(text)?, until_first: args.until_first };
        return task.sweep(&config, &sweep, world.as_ref()).map_err(failed);
    }
    if distributed {
        task.check_ranks(world.size()).map_err(failed)?;
    }
    if world.size() > 1 {
        let identity = serde_json::json!({ "task": name, "resume": args.resume, "config": config.json() });
        minnow_dist::agree(world.as_ref(), &identity.to_string(), minnow_train::describe_difference)?;
    }
    let (out, checkpoint) = run_paths(args.out.as_deref(), root, &config.run_name);
    let writes = world.rank() == 0;
    if writes {
        open_run_dir(&out, &checkpoint, args.resume)?;
        // A resumed run's config.json waits for its checkpoint to take it
        // (the session writes it then).
        if !args.resume {
            write_text(&out.join("config.json"), &config.text)?;
        }
    }
    let mut session =
        CliSession::new(world.clone(), args.resume, writes.then(|| out.clone()), checkpoint, &config.text, name);
    task.train(&config, &mut session).map_err(failed)?;
    session.finish()?;
    if writes {
        let mut files: Vec<String> = std::fs::read_dir(&out)
            .map_err(CliError::io(&out))?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| !f.starts_with('.') && !f.ends_with(".tmp"))
            .collect();
        files.sort();
        minnow_train::outln!("wrote {}/{{{}}}", out.display(), files.join(", "));
    }
    Ok(())
}

/// Refuses to train `task` as several processes when it does not (a seed
/// sweep spreads its seeds over them whatever the task), naming the tasks
/// that do.
fn check_distributed(task: &dyn AnyTask, registry: &Registry, args: &TrainArgs) -> Result<(), CliError> {
    if task.distributed().is_some() || args.sweep_seeds.is_some() {
        return Ok(());
    }
    let able: Vec<String> =
        registry.iter().filter_map(|t| Some(format!("{} ({})", t.name(), t.distributed()?))).collect();
    Err(CliError::Usage(format!(
        "'{}' does not train distributed; these do: {}",
        task.name(),
        if able.is_empty() { "none".to_string() } else { able.join(", ") }
    )))
}

/// Seeds `A..B` (inclusive) or a single seed.
fn parse_seeds(text: &str) -> Result<Vec<u64>, CliError> {
    let bad =
        || CliError::Usage(format!("--sweep-seeds: expected FIRST..LAST (say 1..32) or one seed, found '{text}'"));
    let (first, last) = text.split_once("..").unwrap_or((text, text));
    let first: u64 = first.trim().parse().map_err(|_| bad())?;
    let last: u64 = last.trim().parse().map_err(|_| bad())?;
    if first > last {
        return Err(bad());
    }
    Ok((first..=last).collect())
}
