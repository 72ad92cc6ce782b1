//! A trained agent read back from a run's checkpoint for evaluation or
//! play: the network, its parameters and the run's config, without the
//! optimiser, the replay buffer or the self-play workers.

use super::run::network_label;
use super::{AzConfig, network_config};
use crate::{Result, RlError};
use minnow_autodiff::Params;
use minnow_envs::Game;
use minnow_nn::{Checkpoint, PolicyValueNet};
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
    pub net: PolicyValueNet,
    pub params: Arc<Params>,
    /// Iterations the run had finished when it was saved.
    pub iteration: u64,
}

impl AzAgent {
    /// Reads the agent for game `G` from a checkpoint written by
    /// [`AzRun::save`](super::AzRun::save). A checkpoint of another task or
    /// game, or one whose network does not match its own config, is an
    /// error naming what was found and what was expected.
    pub fn load<G: Game>(path: &Path) -> Result<Self> {
        let ckpt = Checkpoint::load(path)?;
        let fail = |what: String| RlError::Resume(format!("{}: {what}", path.display()));
        let task = ckpt.require_meta("task")?;
        if task != "alphazero" {
            return Err(fail(format!("the checkpoint is of a '{task}' run, expected an AlphaZero run")));
        }
        let game = ckpt.require_meta("game")?;
        if game != G::NAME {
            return Err(fail(format!("the checkpoint is of game '{game}', expected '{}'", G::NAME)));
        }
        let config: AzConfig = serde_json::from_str(ckpt.require_meta("config")?)
            .map_err(|e| fail(format!("unreadable metadata 'config' (a checkpoint of an older version?): {e}")))?;
        let label = network_label::<G>(&config);
        let saved = ckpt.require_meta("network")?;
        if saved != label {
            return Err(fail(format!("the checkpoint holds network {saved}, its config describes {label}")));
        }
        let iteration = ckpt
            .require_meta("iteration")?
            .parse()
            .map_err(|_| fail("metadata 'iteration' is not a number".to_string()))?;
        let mut params = Params::new();
        // The initial values are overwritten by the checkpoint's.
        let net = network_config::<G>(&config.network).init(&mut params, "az", &mut Pcg64Mcg::seed_from_u64(0))?;
        ckpt.restore_params(&mut params)?;
        Ok(Self { config, net, params: Arc::new(params), iteration })
    }
}
