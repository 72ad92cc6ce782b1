//! The run checkpoint: one safetensors file per run, laid out the same way
//! for every task (`docs/CHECKPOINT.md`). Parameters and optimiser state
//! are tensors in the parameters' own shapes; counters, RNG streams and
//! other small state are metadata; the format tag, the task and the
//! config identity are checked before anything is restored.
//!
//! Writing goes through [`minnow_nn::CheckpointWriter`] (temporary file,
//! fsync, rename), so a crash leaves the previous checkpoint or the new one.

use crate::{Result, TrainError};
use minnow_config::Found;
use minnow_nn::{Checkpoint, CheckpointWriter, Params};
use minnow_optim::{Optimizer, load_state_by_param};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// The value of the `format` metadata key of this layout.
pub const FORMAT: &str = "minnow-run/1";

/// A run checkpoint being assembled. The driver creates it with the
/// header (format, task, config identity, step); the run adds its state.
#[derive(Debug)]
pub struct RunCheckpointWriter {
    inner: Option<CheckpointWriter>,
}

impl RunCheckpointWriter {
    /// An empty checkpoint of `task` at `step`, trained under `identity`.
    pub fn new(task: &str, identity: &str, step: u64) -> Self {
        let inner = CheckpointWriter::new()
            .meta("format", FORMAT)
            .meta("task", task)
            .meta("config_identity", identity)
            .meta("step", step.to_string());
        Self { inner: Some(inner) }
    }

    fn with(&mut self, f: impl FnOnce(CheckpointWriter) -> CheckpointWriter) -> &mut Self {
        self.inner = self.inner.take().map(f);
        self
    }

    /// Every parameter of `params` as `group.<parameter name>`.
    pub fn params(&mut self, group: &str, params: &Params) -> &mut Self {
        self.with(|w| w.params_prefixed(group, params))
    }

    /// The optimiser's state buffers, each split per parameter and saved
    /// in the parameter's shape as `group.<state>.<parameter name>`
    /// (`optimizer.adam.m.mlp.0.weight`), and its step count as the counter
    /// `group.step_count`.
    pub fn optimizer<O: Optimizer + ?Sized>(
        &mut self,
        group: &str,
        optimizer: &O,
        params: &Params,
    ) -> Result<&mut Self> {
        let total = params.values().len();
        for (state, flat) in optimizer.state() {
            if flat.len() != total {
                return Err(
                    minnow_optim::OptimError::StateLength { name: state, expected: total, found: flat.len() }.into()
                );
            }
            for id in params.ids() {
                let name = format!("{group}.{state}.{}", params.name(id));
                let values = &flat[params.range(id)];
                self.with(|w| w.tensor(&name, params.shape(id).dims(), values));
            }
        }
        Ok(self.counter(&format!("{group}.step_count"), optimizer.step_count()))
    }

    /// A tensor of shape `dims` (replay buffers, tables).
    pub fn tensor(&mut self, name: &str, dims: &[usize], values: &[f32]) -> &mut Self {
        self.with(|w| w.tensor(name, dims, values))
    }

    /// A counter, as the metadata `counter.<name>`.
    pub fn counter(&mut self, name: &str, value: u64) -> &mut Self {
        self.with(|w| w.meta(&format!("counter.{name}"), value.to_string()))
    }

    /// An RNG stream (any serde generator, such as `rand_pcg`'s), as the
    /// metadata `rng.<name>`.
    pub fn rng<R: Serialize>(&mut self, name: &str, rng: &R) -> &mut Self {
        self.json(&format!("rng.{name}"), rng)
    }

    /// Any other small state, as a JSON document under `key`.
    pub fn json<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> &mut Self {
        let text = serde_json::to_string(value).expect("run state is plain data and always serialises");
        self.meta(key, text)
    }

    /// A metadata string as it is (already encoded state).
    pub fn meta(&mut self, key: &str, value: impl Into<String>) -> &mut Self {
        let value = value.into();
        self.with(|w| w.meta(key, value))
    }

    /// Writes the file atomically.
    pub fn save(&mut self, path: &Path) -> Result<()> {
        let inner = self.inner.take().unwrap_or_default();
        Ok(inner.save(path)?)
    }

    /// The file's bytes, as [`save`](Self::save) writes them.
    pub fn into_bytes(&mut self) -> Result<Vec<u8>> {
        Ok(self.inner.take().unwrap_or_default().into_bytes()?)
    }
}

/// A run checkpoint read back, its header checked.
#[derive(Debug)]
pub struct RunCheckpoint {
    inner: Checkpoint,
    path: PathBuf,
}

impl RunCheckpoint {
    /// Reads `path` and checks that it is a run checkpoint of `task` whose
    /// config identity is `identity`; an error names what differs.
    pub fn load(path: &Path, task: &str, identity: &str) -> Result<Self> {
        let checkpoint = Self::read(path, task)?;
        let saved = checkpoint.identity()?;
        if saved != identity {
            return Err(mismatch(saved, identity));
        }
        Ok(checkpoint)
    }

    /// Reads `path` and checks that it is a run checkpoint of `task`, under
    /// whatever config (to evaluate a saved model, not to resume).
    pub fn read(path: &Path, task: &str) -> Result<Self> {
        let inner = Checkpoint::load(path)?;
        let found = inner.meta("format");
        if found != Some(FORMAT) {
            return Err(TrainError::CheckpointFormat {
                path: path.to_path_buf(),
                found: found.map_or_else(|| "no format tag (an older layout)".to_string(), |f| format!("'{f}'")),
            });
        }
        let saved = inner.require_meta("task")?;
        if saved != task {
            return Err(TrainError::WrongTask { saved: saved.to_string(), current: task.to_string() });
        }
        Ok(Self { inner, path: path.to_path_buf() })
    }

    /// Where it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The identity of the config it was trained with
    /// ([`config_identity`]).
    pub fn identity(&self) -> Result<&str> {
        Ok(self.inner.require_meta("config_identity")?)
    }

    /// The step the run had reached.
    pub fn step(&self) -> Result<u64> {
        self.number("step")
    }

    fn number(&self, key: &str) -> Result<u64> {
        self.inner.require_meta(key)?.parse().map_err(|_| TrainError::BadCounter { key: key.to_string() })
    }

    /// Copies the parameters saved under `group.` into `params` (all names
    /// and shapes checked first).
    pub fn restore_params(&self, group: &str, params: &mut Params) -> Result<()> {
        Ok(self.inner.restore_prefixed(group, params)?)
    }

    /// Loads the optimiser state saved by
    /// [`RunCheckpointWriter::optimizer`], shapes checked, and its step count.
    pub fn restore_optimizer<O: Optimizer + ?Sized>(
        &self,
        group: &str,
        optimizer: &mut O,
        params: &Params,
    ) -> Result<()> {
        for (state, _) in optimizer.state() {
            for id in params.ids() {
                let name = format!("{group}.{state}.{}", params.name(id));
                match self.inner.shape(&name) {
                    None => return Err(minnow_nn::NnError::MissingTensor { name }.into()),
                    Some(found) if found != params.shape(id) => {
                        let expected = params.shape(id);
                        return Err(minnow_nn::NnError::TensorShape { name, expected, found }.into());
                    }
                    Some(_) => {}
                }
            }
        }
        load_state_by_param(optimizer, params, |name| self.inner.tensor(&format!("{group}.{name}")))?;
        optimizer.set_step_count(self.counter(&format!("{group}.step_count"))?);
        Ok(())
    }

    /// The counter `name`.
    pub fn counter(&self, name: &str) -> Result<u64> {
        self.number(&format!("counter.{name}"))
    }

    /// The RNG stream `name`.
    pub fn rng<R: DeserializeOwned>(&self, name: &str) -> Result<R> {
        self.json(&format!("rng.{name}"))
    }

    /// The JSON document under `key`, decoded.
    pub fn json<T: DeserializeOwned>(&self, key: &str) -> Result<T> {
        let text = self.inner.require_meta(key)?;
        serde_json::from_str(text).map_err(|e| TrainError::BadState { key: key.to_string(), detail: e.to_string() })
    }

    /// The underlying tensors and metadata (for components that restore
    /// themselves from named arrays).
    pub fn raw(&self) -> &Checkpoint {
        &self.inner
    }

    /// The underlying tensors and metadata, kept.
    pub fn into_inner(self) -> Checkpoint {
        self.inner
    }

    /// Writes the trained agent alone to `path`: the tensors whose names
    /// start with one of `keep` (`model.`), and the header and metadata,
    /// which say what the agent is; replay, optimiser state and every other
    /// tensor are left out. The file reads back as a run checkpoint of the
    /// same task, for evaluation and play (not to resume: the state is
    /// gone). Returns how many tensors were kept; keeping none is an error.
    pub fn write_agent(&self, keep: &[&str], path: &Path) -> Result<usize> {
        let leave_out: Vec<&str> = self.inner.names().filter(|n| !keep.iter().any(|k| n.starts_with(k))).collect();
        let kept = self.inner.names().count() - leave_out.len();
        if kept == 0 {
            let found = Found::Text(format!("{keep:?}, which match no tensor of {}", self.path.display()));
            let expected = "tensor prefixes that name the agent's weights";
            return Err(minnow_config::Check("write_agent").error("keep", expected, found).into());
        }
        self.inner.rewrite(&leave_out).meta("agent", "weights only").save(path)?;
        Ok(kept)
    }
}

/// A config's identity for [`Run::identity`](crate::Run::identity): the
/// config as JSON without the `free` keys (dotted paths for nested ones,
/// `eval.every`), which may change on a resume. A mismatch then names the
/// first differing key and both values.
pub fn config_identity<T: Serialize + ?Sized>(config: &T, free: &[&str]) -> String {
    // Through text, so that an f32 reads as written (0.001, not the f64
    // 0.0010000000474974513 that `to_value` would make of it).
    let text = serde_json::to_string(config).expect("a config is plain data and always serialises");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("serde_json reads what it wrote");
    for path in free {
        let (parents, last) = path.rsplit_once('.').map_or(("", *path), |(p, l)| (p, l));
        let parent = parents.split('.').filter(|k| !k.is_empty()).try_fold(&mut json, |v, k| v.get_mut(k));
        if let Some(serde_json::Value::Object(fields)) = parent {
            fields.remove(last);
        }
    }
    json.to_string()
}

/// The error for a config identity that differs from the checkpoint's:
/// for JSON identities, the first differing key and its two values;
/// otherwise the two identities whole.
fn mismatch(saved: &str, current: &str) -> TrainError {
    let (saved, current) = describe_difference(saved, current);
    TrainError::ConfigMismatch { saved, current }
}

/// How two config identities differ: for JSON, the first differing key
/// with each side's value (`seed = 0`, `seed = 99`); otherwise the two
/// texts whole.
pub fn describe_difference(a: &str, b: &str) -> (String, String) {
    let parsed = (serde_json::from_str(a), serde_json::from_str(b));
    if let (Ok(x), Ok(y)) = parsed
        && let Some((key, x, y)) = first_difference(&x, &y, String::new())
    {
        return (format!("{key} = {x}"), format!("{key} = {y}"));
    }
    (a.to_string(), b.to_string())
}

/// The first key path (`replay.capacity`) where two JSON values differ,
/// with both values (`absent` for a missing key).
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: String) -> Option<(String, String, String)> {
    use serde_json::Value::Object;
    match (a, b) {
        (Object(x), Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let key = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => first_difference(u, v, key),
                    (u, v) => {
                        let show = |w: Option<&serde_json::Value>| w.map_or("absent".to_string(), |w| w.to_string());
                        Some((key, show(u), show(v)))
                    }
                }
            })
        }
        _ if a == b => None,
        _ => Some((if path.is_empty() { "config".into() } else { path }, a.to_string(), b.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_identity_mismatch_names_the_first_differing_key() {
        let saved = r#"{"seed":3,"replay":{"capacity":100,"prioritized":true},"n_step":1}"#;
        let err = |current: &str| mismatch(saved, current).to_string();
        assert_eq!(
            err(r#"{"seed":3,"replay":{"capacity":200,"prioritized":true},"n_step":1}"#),
            "cannot resume: the checkpoint was trained with replay.capacity = 100, this run is replay.capacity = 200"
        );
        assert!(err(r#"{"seed":99,"replay":{"capacity":100,"prioritized":true},"n_step":1}"#).contains("seed = 3"));
        assert!(err(r#"{"seed":3,"replay":{"capacity":100,"prioritized":true}}"#).contains("n_step = absent"));
        // Not JSON: both whole.
        assert!(mismatch("width=4", "width=5").to_string().ends_with("with width=4, this run is width=5"));
    }

    #[test]
    fn a_config_identity_leaves_out_the_free_keys_at_any_depth() {
        let config = serde_json::json!({"seed": 1, "steps": 9, "eval": {"every": 5, "seed": 2}, "net": {"width": 4}});
        let identity = config_identity(&config, &["steps", "eval.every", "net.missing", "absent.key"]);
        let kept: serde_json::Value = serde_json::from_str(&identity).unwrap();
        assert_eq!(kept, serde_json::json!({"seed": 1, "eval": {"seed": 2}, "net": {"width": 4}}));
        let reseeded =
            serde_json::json!({"seed": 99, "steps": 1, "eval": {"every": 7, "seed": 2}, "net": {"width": 4}});
        let other = config_identity(&reseeded, &["steps", "eval.every"]);
        assert!(mismatch(&identity, &other).to_string().contains("seed = 1, this run is seed = 99"));
    }
}
