//! A trained agent read back from a run's checkpoint for evaluation or
//! play: the network, its parameters and the run's config, without the
//! optimiser, the replay buffer or the self-play workers.

use super::driver::MODEL;
use super::run::network_label;
use super::{AzConfig, network_config, task_name};
use crate::{Result, RlError};
use minnow_autodiff::Params;
use minnow_envs::Game;
use minnow_nn::{Checkpoint, PolicyValueNet};
use minnow_train::RunCheckpoint;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::path::Path;
use std::sync::Arc;

/// The network of a saved AlphaZero run.
#[derive(Debug)]
pub struct AzAgent {
    /// The config the run was trained with (its `eval` section gives the
    /// evaluation budget).
    pub config: AzConfig,
    /// The network's layers.
    pub net: PolicyValueNet,
    /// The trained parameters.
    pub params: Arc<Params>,
    /// Iterations the run had finished when it was saved.
    pub iteration: u64,
}

impl AzAgent {
    /// Reads the agent for game `G` from a run checkpoint of task
    /// [`task_name`]`::<G>()`. A checkpoint of another task or game, or
    /// one whose network does not match its own config, is an error naming
    /// what was found and what was expected. Checkpoints of the layout
    /// before the run checkpoint (no `format` tag, task `alphazero`) are
    /// read too, so runs trained before it can still be evaluated (not
    /// resumed).
    pub fn load<G: Game>(path: &Path) -> Result<Self> {
        let fail = |what: String| RlError::Resume(format!("{}: {what}", path.display()));
        let raw = Checkpoint::load(path)?;
        let (checkpoint, prefix, iteration) = if raw.meta("format").is_none() && raw.meta("task") == Some("alphazero") {
            let game = raw.require_meta("game")?;
            if game != G::NAME {
                return Err(fail(format!("the checkpoint is of game '{game}', expected '{}'", G::NAME)));
            }
            let iteration = raw.require_meta("iteration")?;
            let iteration = iteration.parse().map_err(|_| fail(format!("metadata 'iteration' is {iteration}")))?;
            (raw, None, iteration)
        } else {
            let refused = |source| RlError::CheckpointFile { path: path.to_path_buf(), source };
            let run = RunCheckpoint::read(path, &task_name::<G>()).map_err(refused)?;
            let iteration = run.step().map_err(refused)?;
            (run.into_inner(), Some(MODEL), iteration)
        };
        let config: AzConfig = serde_json::from_str(checkpoint.require_meta("config")?)
            .map_err(|e| RlError::SavedConfig { path: path.to_path_buf(), source: e.into() })?;
        let label = network_label::<G>(&config);
        let saved = checkpoint.require_meta("network")?;
        if saved != label {
            return Err(fail(format!("the checkpoint holds network {saved}, its config describes {label}")));
        }
        let mut params = Params::new();
        // The initial values are overwritten by the checkpoint's.
        let net = network_config::<G>(&config.network).init(&mut params, "az", &mut Pcg64Mcg::seed_from_u64(0))?;
        match prefix {
            Some(prefix) => checkpoint.restore_prefixed(prefix, &mut params)?,
            None => checkpoint.restore_params(&mut params)?,
        }
        Ok(Self { config, net, params: Arc::new(params), iteration })
    }
}
