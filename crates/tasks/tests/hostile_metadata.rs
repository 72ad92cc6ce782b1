//! Crafted DQN run-checkpoint metadata (RNG streams, counters, the replay,
//! prioritized-replay and n-step state, recent episodes, the episodes
//! under way): every value of every key replaced by arbitrary text,
//! out-of-range numbers or JSON of another shape. Resuming is an error or
//! a run that steps on, never a panic.

use minnow_envs::{CartPole, CartPoleConfig};
use minnow_nn::Checkpoint;
use minnow_nn::testing::{ScratchDir, crafted_metadata, write_crafted};
use minnow_rl::dqn::{DqnConfig, DqnRun, MemoryConfig, QNetworkConfig};
use minnow_tasks::{CartPoleDqn, presets};
use proptest::prelude::*;
use std::sync::OnceLock;

fn config() -> DqnConfig {
    let base = presets::cartpole();
    DqnConfig {
        network: QNetworkConfig { hidden: vec![8], ..base.network.clone() },
        batch_size: 8,
        learning_starts: 16,
        env_steps: 400,
        checkpoint_every: 200,
        num_envs: 2,
        n_step: 3,
        replay: MemoryConfig { capacity: 300, prioritized: true, ..base.replay },
        ..base
    }
}

fn cartpole() -> CartPoleDqn {
    CartPoleDqn(CartPole::new(CartPoleConfig::default()).unwrap())
}

/// A checkpoint of a short run between boundaries (as a stop writes it:
/// episodes under way, n-step transitions pending), made once.
fn saved() -> &'static Checkpoint {
    static SAVED: OnceLock<Checkpoint> = OnceLock::new();
    SAVED.get_or_init(|| {
        let dir = ScratchDir::new("hostile-dqn-meta");
        let path = dir.join("clean.safetensors");
        let mut run = DqnRun::new(&config(), cartpole()).unwrap();
        while run.env_steps() < 300 {
            run.step().unwrap();
        }
        assert!(!run.at_boundary());
        run.save(&path).unwrap();
        Checkpoint::load(&path).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn crafted_dqn_metadata_resumes_or_is_refused_never_panics((key, value) in crafted_metadata(saved())) {
        let dir = ScratchDir::new("hostile-dqn-meta");
        let path = write_crafted(saved(), &key, value.clone(), &dir);
        if let Ok(mut run) = DqnRun::resume(&config(), cartpole(), &path) {
            // Accepted: it must step on to its end without panicking (an
            // error is a refusal too).
            while !run.is_done() {
                if run.step().is_err() {
                    break;
                }
            }
        }
    }
}
