//! Crafted DQN run-checkpoint metadata (RNG streams, counters, the replay,
//! prioritized-replay and n-step state, recent episodes): every value of
//! every key replaced by arbitrary text, out-of-range numbers or JSON of
//! another shape. Resuming is an error or a run that steps on, never a
//! panic.

use minnow_envs::{CartPole, CartPoleConfig};
use minnow_nn::Checkpoint;
use minnow_rl::dqn::{DqnConfig, DqnRun, MemoryConfig, QNetworkConfig};
use minnow_tasks::{CartPoleDqn, presets};
use proptest::prelude::*;
use std::path::PathBuf;
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

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minnow-hostile-dqn-meta-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A checkpoint of a short run at its first boundary, made once.
fn saved() -> &'static Checkpoint {
    static SAVED: OnceLock<Checkpoint> = OnceLock::new();
    SAVED.get_or_init(|| {
        let path = scratch().join("clean.safetensors");
        let mut run = DqnRun::new(&config(), cartpole()).unwrap();
        while !run.at_boundary() || run.env_steps() == 0 {
            run.step().unwrap();
        }
        run.save(&path).unwrap();
        Checkpoint::load(&path).unwrap()
    })
}

fn crafted(original: String) -> impl Strategy<Value = String> {
    let edited = original.clone();
    prop_oneof![
        Just(String::new()),
        Just("18446744073709551616".to_string()),
        Just("-1".to_string()),
        Just("{}".to_string()),
        Just("[]".to_string()),
        Just("null".to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        "\\PC{0,40}",
        // A JSON document with one number changed (a length, an index, a
        // priority, a counter inside the state).
        (0..original.len().max(1), 0u64..100_000).prop_map(move |(at, n)| {
            let digits: Vec<usize> =
                edited.char_indices().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
            match digits.get(at % digits.len().max(1)) {
                Some(&i) => format!("{}{n}{}", &edited[..i], &edited[i + 1..]),
                None => n.to_string(),
            }
        }),
    ]
}

fn key_and_value() -> impl Strategy<Value = (String, String)> {
    let keys: Vec<String> =
        saved().metadata().iter().map(|(k, _)| k.to_string()).filter(|k| k != minnow_nn::CHECKSUM_KEY).collect();
    proptest::sample::select(keys).prop_flat_map(|key| {
        let original = saved().meta(&key).unwrap().to_string();
        (Just(key), crafted(original))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn crafted_dqn_metadata_resumes_or_is_refused_never_panics((key, value) in key_and_value()) {
        let path = scratch().join(format!("crafted-{:?}.safetensors", std::thread::current().id()));
        saved().rewrite(&[&key]).meta(&key, value.clone()).save(&path).unwrap();
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
