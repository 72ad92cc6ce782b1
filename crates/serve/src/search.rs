//! Searches run on tokio's blocking pool, a few at a time, each able to
//! stop early: a request whose client has gone drops its handler future,
//! which raises the search's stop flag, so the worker is freed within a
//! round instead of finishing a search nobody will read.

use crate::error::{ApiError, ApiResult};
use minnow_envs::Game;
use minnow_rl::alphazero::AzAgent;
use minnow_rl::mcts::{Evaluator, LeafBatch, MctsConfig, NetEvaluator, Search};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::Semaphore;

/// Raised when the request that asked for the work is gone.
#[derive(Debug)]
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` on the blocking pool once one of `permits` is free. `work`
/// is handed a flag that turns true if the request is dropped meanwhile.
/// A panic inside it is a 500, not the end of the server.
pub async fn on_blocking_pool<T: Send + 'static>(
    permits: &Arc<Semaphore>,
    work: impl FnOnce(&AtomicBool) -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    let permit =
        permits.clone().acquire_owned().await.map_err(|_| ApiError::internal("the server is shutting down"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let _raise_when_dropped = StopOnDrop(stop.clone());
    let joined = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&stop)
    })
    .await;
    joined.map_err(|e| ApiError::internal(format!("the computation stopped: {e}")))?
}

/// `simulations` of MCTS with `agent`'s network and search settings (no
/// noise) from `game`, seeded by `seed`; stops early, with an error, once
/// `stop` is raised.
pub fn search<G: Game>(
    agent: &AzAgent,
    game: &G,
    simulations: u32,
    seed: u64,
    stop: &AtomicBool,
) -> ApiResult<Search<G>> {
    let failed = |e: minnow_rl::RlError| ApiError::internal(format!("search: {e}"));
    let config = MctsConfig { simulations, dirichlet_fraction: 0.0, ..agent.config.mcts };
    let mut evaluator =
        NetEvaluator::<G>::with_inference(&agent.net, agent.params.clone(), config.inference).map_err(failed)?;
    let mut search = Search::new(&config, game).map_err(failed)?;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut batch = LeafBatch::new(config.leaves_per_round as usize);
    search.begin(false, &mut rng).map_err(failed)?;
    while !search.is_done() {
        if stop.load(Ordering::Relaxed) {
            return Err(ApiError::internal("search stopped: the request was dropped"));
        }
        batch.clear();
        search.collect(&mut batch, &mut rng);
        batch.evaluate(&mut evaluator);
        let (logits, values) = batch.outputs();
        search.absorb(logits, values, &mut rng);
    }
    Ok(search)
}

/// The network alone at `game`: the policy over the legal moves (a
/// softmax of the logits restricted to them, `None` elsewhere) and the
/// value for the player to move.
pub fn network_view<G: Game>(agent: &AzAgent, game: &G) -> ApiResult<(Vec<Option<f32>>, f32)> {
    let failed = |e: minnow_rl::RlError| ApiError::internal(format!("network: {e}"));
    let mut evaluator =
        NetEvaluator::<G>::with_inference(&agent.net, agent.params.clone(), agent.config.mcts.inference)
            .map_err(failed)?;
    let mut logits = vec![0.0; G::ACTIONS];
    let mut value = [0.0];
    evaluator.evaluate(std::slice::from_ref(game), &mut logits, &mut value);
    let mut legal = vec![0u16; G::MAX_LEGAL.max(1)];
    let n = game.legal_actions(&mut legal);
    let legal = &legal[..n];
    let top = legal.iter().map(|&a| logits[a as usize]).fold(f32::NEG_INFINITY, f32::max);
    let total: f32 = legal.iter().map(|&a| (logits[a as usize] - top).exp()).sum();
    let mut priors = vec![None; G::ACTIONS];
    for &a in legal {
        priors[a as usize] = Some((logits[a as usize] - top).exp() / total);
    }
    Ok((priors, value[0]))
}

/// The legal move the network's policy rates best (the network alone).
pub fn network_move(priors: &[Option<f32>]) -> ApiResult<usize> {
    let best = priors.iter().enumerate().filter_map(|(a, p)| p.map(|p| (a, p)));
    best.max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(a, _)| a)
        .ok_or_else(|| ApiError::refused("there is no legal move here"))
}
