//! The command line's [`Session`]: the run directory it opened, the
//! front end it shows, the process group it joined.

use crate::error::CliError;
use crate::front_end::FrontEnd;
use minnow_dist::Collective;
use minnow_train::sinks::Inode;
use minnow_train::{Cadence, Event, Observer, Progress, Run, Session, TaskError, Timing, TrainError, View};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// One run's session.
pub struct CliSession {
    world: Rc<dyn Collective>,
    resuming: bool,
    /// The run directory, on the rank that writes.
    out: Option<PathBuf>,
    /// What `out` named when the session began: every write after the
    /// drive checks that it still does.
    out_inode: Option<Inode>,
    checkpoint: PathBuf,
    /// The run's config as `config.json` holds it.
    config: String,
    /// The curve's title.
    title: String,
    /// Opened by the first drive.
    front: Option<FrontEnd>,
}

impl CliSession {
    /// A session writing into `out` (`None` on a rank that writes
    /// nothing). A resumed run's `config` replaces `config.json` once its
    /// checkpoint has taken it (a new run's is written before it starts).
    pub fn new(
        world: Rc<dyn Collective>,
        resuming: bool,
        out: Option<PathBuf>,
        checkpoint: PathBuf,
        config: &str,
        title: &str,
    ) -> Self {
        let out_inode = out.as_deref().and_then(Inode::at);
        let (config, title) = (config.to_string(), title.to_string());
        Self { world, resuming, out, out_inode, checkpoint, config, title, front: None }
    }

    /// Ends the session: metrics made durable and the learning curve drawn.
    pub fn finish(mut self) -> Result<(), CliError> {
        let out = self.placed_out()?.map(|out| out.join("curve.png"));
        if let (Some(front), Some(curve)) = (self.front.as_mut(), out) {
            front.persist()?;
            front.plot(&curve, &self.title)?;
        }
        Ok(())
    }

    /// The run directory on the rank that writes, once it is sure to be
    /// the one the session began with (a write by its path into one
    /// deleted or moved would make it again, holding that file alone).
    fn placed_out(&self) -> minnow_train::Result<Option<&Path>> {
        let Some(out) = &self.out else { return Ok(None) };
        let inode = self.out_inode.ok_or_else(|| TrainError::RunDirGone { dir: out.clone() })?;
        inode.check_dir(out)?;
        Ok(Some(out))
    }
}

impl Session for CliSession {
    fn world(&self) -> &Rc<dyn Collective> {
        &self.world
    }

    fn resuming(&self) -> bool {
        self.resuming
    }

    fn out(&self) -> Option<&Path> {
        self.out.as_deref()
    }

    fn checkpoint(&self) -> &Path {
        &self.checkpoint
    }

    fn resume(&self, run: &mut dyn Run) -> minnow_train::Result<()> {
        if !self.resuming {
            return Ok(());
        }
        minnow_train::resume_training(run, &self.checkpoint)?;
        // Only now, with the checkpoint taken: a refused resume leaves
        // config.json saying what the run trained.
        self.write("config.json", self.config.as_bytes()).map_err(TrainError::Task)
    }

    fn drive(&mut self, run: &mut dyn Run, cadence: Cadence, view: View<'_>) -> minnow_train::Result<Timing> {
        let Some(out) = &self.out else { return minnow_train::drive(run, cadence, None, view.observer) };
        let front = match &mut self.front {
            Some(front) => front,
            None => self.front.insert(FrontEnd::open(out, run.step(), run.total(), view.headline)?),
        };
        front.show(view.show, run.total());
        let driven = minnow_train::drive(run, cadence, Some(&self.checkpoint), &mut (&mut *front, view.observer));
        front.finish();
        driven
    }

    fn record(&mut self, step: u64, metrics: &[(&'static str, f64)]) -> minnow_train::Result<()> {
        match &mut self.front {
            Some(front) => front.observe(Event::Eval { step, metrics }),
            None => Ok(()),
        }
    }

    fn write(&self, file: &str, contents: &[u8]) -> Result<(), TaskError> {
        match self.placed_out()? {
            Some(out) => Ok(minnow_nn::write_atomically(&out.join(file), contents)?),
            None => Ok(()),
        }
    }

    fn plot(&self, file: &str, title: &str, series: &[(&str, &[(f64, f64)])]) -> Result<(), TaskError> {
        let Some(out) = self.placed_out()? else { return Ok(()) };
        let series: Vec<_> = series.iter().map(|&(title, points)| crate::plot::Series { title, points }).collect();
        Ok(crate::plot::learning_curves(&out.join(file), title, &series)?)
    }

    fn progress(&self) -> &dyn Progress {
        &crate::Bars
    }
}

impl std::fmt::Debug for CliSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CliSession").field("out", &self.out).field("resuming", &self.resuming).finish_non_exhaustive()
    }
}
