//! Checkpoints of a logic-CA run, in minnow's safetensors format
//! (`minnow_nn::Checkpoint`, written atomically): every layer's logits,
//! AdamW's moments, and as metadata the config, the circuit's shape, the
//! step, AdamW's step count and the data generator's state. A run resumed
//! from one continues bit-identically.

use crate::ca::LogicCaConfig;
use crate::population::{member_of_slot, member_seed};
use crate::train::CheckerboardTrainer;
use crate::{CheckerboardConfig, Kept, LogicError, Population, Result};
use minnow_nn::{Checkpoint, CheckpointWriter};
use minnow_optim::{Optimizer, load_state_by_param, state_by_param};
use std::path::Path;

/// The `task` metadata of a logic-CA checkpoint.
pub const TASK: &str = "logic-ca";

/// The shape of a circuit in words: what two runs must share for one's
/// logits to mean anything to the other.
pub fn circuit_shape(ca: &LogicCaConfig) -> String {
    format!(
        "{}x{} grid, {} channels, {} kernels, perception {:?}, update {:?}, {:?} boundary",
        ca.height, ca.width, ca.channels, ca.kernels, ca.perception, ca.update, ca.boundary
    )
}

fn bad(detail: impl std::fmt::Display) -> LogicError {
    LogicError::Checkpoint(detail.to_string())
}

impl CheckerboardTrainer {
    /// A checkpoint of the run so far, to save as is or with more
    /// metadata and tensors of the caller's.
    pub fn checkpoint(&self) -> Result<CheckpointWriter> {
        let params = self.ca.params();
        let mut writer = CheckpointWriter::new().params(params);
        for (name, values) in state_by_param(&self.optimizer, params)? {
            // "adamw.m.<layer>": the moments have their layer's shape.
            let layer = name.splitn(3, '.').nth(2).unwrap_or_default();
            let dims = params.find(layer).map_or(vec![values.len()], |id| params.shape(id).dims().to_vec());
            writer = writer.tensor(&name, &dims, values);
        }
        let rng = serde_json::to_string(&self.rng).map_err(bad)?;
        Ok(writer
            .meta("task", TASK)
            .meta("circuit", circuit_shape(&self.config.ca))
            .meta("config", self.config.to_json())
            .meta("identity", self.config.identity().to_string())
            .meta("step", self.step.to_string())
            .meta("adam_steps", self.optimizer.step_count().to_string())
            .meta("rng", rng))
    }

    /// Writes [`checkpoint`](Self::checkpoint) to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        self.checkpoint()?.save(path).map_err(bad)
    }

    /// The run of `config` continued from `checkpoint`: an error naming
    /// the difference if the checkpoint holds another circuit shape or was
    /// trained with other settings (only `train_steps` and
    /// `checkpoint_every` may change), or if anything is missing.
    pub fn from_checkpoint(config: &CheckerboardConfig, checkpoint: &Checkpoint) -> Result<Self> {
        config.validate()?;
        let meta = |key: &str| checkpoint.require_meta(key).map_err(bad);
        let task = meta("task")?;
        if task != TASK {
            return Err(bad(format!("expected a {TASK} checkpoint, found one of task '{task}'")));
        }
        let (saved, ours) = (meta("circuit")?, circuit_shape(&config.ca));
        if saved != ours {
            return Err(bad(format!("the checkpoint holds a circuit of {saved}; this run builds {ours}")));
        }
        let saved: serde_json::Value = serde_json::from_str(meta("identity")?).map_err(bad)?;
        let ours = config.identity();
        if saved != ours {
            let differ: Vec<String> = match (&saved, &ours) {
                (serde_json::Value::Object(a), serde_json::Value::Object(b)) => b
                    .iter()
                    .filter(|(k, v)| a.get(*k) != Some(*v))
                    .map(|(k, v)| format!("{k} {} (this run: {v})", a.get(k).unwrap_or(&serde_json::Value::Null)))
                    .collect(),
                _ => vec!["unreadable settings".to_string()],
            };
            return Err(bad(format!("the checkpoint was trained with other settings: {}", differ.join(", "))));
        }
        let number = |key: &str| -> Result<u64> {
            meta(key)?.parse().map_err(|_| bad(format!("metadata '{key}' is not a whole number")))
        };
        let (step, adam_steps) = (number("step")?, number("adam_steps")?);
        let rng: rand_pcg::Pcg64 = serde_json::from_str(meta("rng")?).map_err(|e| bad(format!("rng: {e}")))?;

        let mut trainer = Self::new(config)?;
        checkpoint.restore_params(trainer.ca.params_mut()).map_err(bad)?;
        load_state_by_param(&mut trainer.optimizer, trainer.ca.params(), |name| checkpoint.tensor(name))?;
        trainer.optimizer.set_step_count(adam_steps);
        trainer.step = step as usize;
        trainer.rng = rng;
        Ok(trainer)
    }

    /// [`from_checkpoint`](Self::from_checkpoint) of the file at `path`.
    pub fn resume(config: &CheckerboardConfig, path: &Path) -> Result<Self> {
        let checkpoint = Checkpoint::load(path).map_err(bad)?;
        Self::from_checkpoint(config, &checkpoint)
    }
}

impl Population {
    /// Restores what the population had found from the metadata of member
    /// 0's checkpoint (`first_perfect`; the kept circuit as `best_ops`,
    /// `best_member`, `best_step`, `best_score`), every field checked
    /// against this run (a crafted value is an error naming the field,
    /// never a panic later). Call on a population whose members are
    /// already resumed.
    pub fn restore_kept(&mut self, checkpoint: &Checkpoint) -> Result<()> {
        let steps = self.steps_done();
        let field = |key: &str, expected: &str, found: &str| {
            bad(format!("metadata '{key}': expected {expected}, found '{found}'"))
        };
        let step = |key: &str| -> Result<usize> {
            let text = checkpoint.require_meta(key).map_err(bad)?;
            // A repair after the last step offers its circuit as the next.
            let expected = format!("a step up to {steps} (the run's)");
            text.parse::<usize>().ok().filter(|&s| s <= steps).ok_or_else(|| field(key, &expected, text))
        };
        let first_perfect = match checkpoint.meta("first_perfect") {
            None | Some("none") => None,
            Some(_) => Some(step("first_perfect")?),
        };
        let kept = match checkpoint.tensor("best_ops") {
            None => None,
            Some(ops) => {
                // Every member trained so far, restarted ones included.
                let config = self.config();
                let members = member_of_slot(config, config.population - 1, steps) + 1;
                let text = checkpoint.require_meta("best_member").map_err(bad)?;
                let expected = format!("a member below {members}");
                let member = text.parse::<usize>().ok().filter(|&m| m < members);
                let member = member.ok_or_else(|| field("best_member", &expected, text))?;
                let text = checkpoint.require_meta("best_score").map_err(bad)?;
                let score = text.parse::<f64>().ok().filter(|s| (0.0..=1.0).contains(s));
                let score = score.ok_or_else(|| field("best_score", "a score in [0, 1]", text))?;
                let step = step("best_step")?;
                let gates = self.members()[0].ca.circuit().params;
                if ops.len() != gates {
                    let expected = format!("one op per gate ({gates} values)");
                    return Err(field("best_ops", &expected, &format!("{} values", ops.len())));
                }
                let op_range = 0.0..crate::gates::OPS as f32;
                if let Some(op) = ops.iter().find(|&&op| !(op_range.contains(&op) && op.fract() == 0.0)) {
                    return Err(field("best_ops", &format!("ops 0..{}", crate::gates::OPS), &op.to_string()));
                }
                let seed = member_seed(self.config().seed, member);
                Some(Kept { member, seed, step, score, ops: ops.iter().map(|&op| op as u8).collect() })
            }
        };
        self.restore(first_perfect, kept);
        Ok(())
    }
}
