//! A logic-CA run in the run-checkpoint layout (`docs/CHECKPOINT.md`):
//! one file for the whole population. Slot s's member keeps its logits
//! under `slot.<s>.model.`, AdamW's moments in the logits' shapes under
//! `slot.<s>.optimizer.` and its data generator as `rng.slot.<s>.data`;
//! the population adds which member each slot holds, the first perfect
//! step and the kept circuit. A run resumed from one continues
//! bit-identically, across restarts too.

use crate::ca::LogicCaConfig;
use crate::population::{Member, member_of_slot, member_seed};
use crate::trainer::PatternTrainer;
use crate::{CheckerboardConfig, HardProgram, Kept, LogicCa, Population, Prune};
use minnow_train::{Result, RunCheckpoint, RunCheckpointWriter, TrainError};
use serde::{Deserialize, Serialize};

/// The task of a logic-CA run checkpoint.
pub const TASK: &str = "logic-ca";

/// The tensor of the kept circuit's ops, one per parameter gate.
const KEPT_OPS: &str = "kept.ops";

/// The shape of a circuit in words: what two runs must share for one's
/// logits to mean anything to the other (written beside the config for
/// whoever reads the file; the config identity is what a resume checks).
pub fn circuit_shape(ca: &LogicCaConfig) -> String {
    format!(
        "{}x{} grid, {} channels, {} kernels, perception {:?}, update {:?}, {:?} boundary",
        ca.height, ca.width, ca.channels, ca.kernels, ca.perception, ca.update, ca.boundary
    )
}

/// The kept circuit apart from its ops (a tensor of their own) and its
/// seed (the member's).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptRecord {
    member: usize,
    step: usize,
    score: f64,
}

/// The kept circuit's ops, one per gate of a circuit of `gates`, each
/// checked to name a gate.
fn kept_ops(checkpoint: &RunCheckpoint, gates: usize) -> Result<Vec<u8>> {
    let ops = checkpoint
        .raw()
        .tensor(KEPT_OPS)
        .ok_or_else(|| minnow_nn::NnError::MissingTensor { name: KEPT_OPS.to_string() })?;
    if ops.len() != gates {
        let detail = format!("ops: expected one op per gate ({gates} values), found {} values", ops.len());
        return Err(bad("kept", detail));
    }
    let op_range = 0.0..crate::gates::OPS as f32;
    if let Some(op) = ops.iter().find(|&&op| !(op_range.contains(&op) && op.fract() == 0.0)) {
        return Err(bad("kept", format!("ops: expected ops 0..{}, found {op}", crate::gates::OPS)));
    }
    Ok(ops.iter().map(|&op| op as u8).collect())
}

/// The circuit a run kept, read back from its run checkpoint (or from the
/// weights alone, `RunCheckpoint::write_agent` keeping `kept.`): the run's
/// config and the kept member's hard program, pruned as `prune`. The
/// wiring is rebuilt from the member's seed, so the file needs only the
/// ops. An error if the run kept no circuit.
pub fn kept_program(checkpoint: &RunCheckpoint, prune: Prune) -> Result<(CheckerboardConfig, HardProgram)> {
    let config: CheckerboardConfig = checkpoint.json("config")?;
    config.validate().map_err(TrainError::task)?;
    let Some(record) = checkpoint.json::<Option<KeptRecord>>("kept")? else {
        return Err(bad("kept", "the run kept no circuit (no step reached 100%)".to_string()));
    };
    let ca = LogicCa::new(&config.ca, member_seed(config.seed, record.member)).map_err(TrainError::task)?;
    let ops = kept_ops(checkpoint, ca.circuit().params)?;
    let program = HardProgram::new(ca.circuit(), &ops, config.ca.boundary, prune);
    Ok((config, program))
}

fn slot_group(slot: usize, part: &str) -> String {
    format!("slot.{slot}.{part}")
}

fn bad(key: &str, detail: String) -> TrainError {
    TrainError::BadState { key: key.to_string(), detail }
}

impl PatternTrainer {
    /// Writes this member's logits, AdamW state and data generator as
    /// slot `slot`'s.
    fn save_slot(&self, slot: usize, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        let params = self.ca.params();
        checkpoint
            .params(&slot_group(slot, "model"), params)
            .optimizer(&slot_group(slot, "optimizer"), &self.optimizer, params)?
            .rng(&slot_group(slot, "data"), &self.rng);
        Ok(())
    }

    /// Reads slot `slot`'s state into this freshly built member.
    fn restore_slot(&mut self, slot: usize, checkpoint: &RunCheckpoint) -> Result<()> {
        checkpoint.restore_params(&slot_group(slot, "model"), self.ca.params_mut())?;
        checkpoint.restore_optimizer(&slot_group(slot, "optimizer"), &mut self.optimizer, self.ca.params())?;
        self.rng = checkpoint.rng(&slot_group(slot, "data"))?;
        Ok(())
    }
}

impl Population<PatternTrainer> {
    /// Writes every member's state, which member each slot holds
    /// (`members`), the first perfect step and the kept circuit.
    pub fn save_state(&self, checkpoint: &mut RunCheckpointWriter) -> Result<()> {
        let (config, slots, steps) = (self.config(), self.population_config(), self.steps_done());
        for (slot, member) in self.members().iter().enumerate() {
            member.save_slot(slot, checkpoint)?;
        }
        let members: Vec<usize> = (0..slots.size).map(|s| member_of_slot(slots, s, steps)).collect();
        checkpoint
            .json("config", config)
            .meta("circuit", circuit_shape(&config.ca))
            .json("members", &members)
            .json("first_perfect", &self.first_perfect());
        let kept = self.kept().map(|k| KeptRecord { member: k.member, step: k.step, score: k.score });
        checkpoint.json("kept", &kept);
        if let Some(k) = self.kept() {
            let ops: Vec<f32> = k.ops.iter().map(|&op| op as f32).collect();
            checkpoint.tensor(KEPT_OPS, &[ops.len()], &ops);
        }
        Ok(())
    }

    /// The inverse of [`save_state`](Self::save_state), into a population
    /// freshly built from the same config. Every value is checked against
    /// this run (a crafted one is an error naming its key, never a panic
    /// later), and nothing is replaced unless all of it restores.
    pub fn restore_state(&mut self, checkpoint: &RunCheckpoint) -> Result<()> {
        let (config, slots) = (self.config().clone(), *self.population_config());
        let steps = checkpoint.step()? as usize;
        // Which members the slots hold depends on the restarts so far.
        let expected: Vec<usize> = (0..slots.size).map(|s| member_of_slot(&slots, s, steps)).collect();
        let members: Vec<usize> = checkpoint.json("members")?;
        if members != expected {
            let detail = format!("expected the members {expected:?} at step {steps}, found {members:?}");
            return Err(bad("members", detail));
        }
        let mut trainers = Vec::with_capacity(slots.size);
        for (slot, &member) in members.iter().enumerate() {
            let mut trainer = PatternTrainer::start(&config, member, steps).map_err(TrainError::task)?;
            trainer.restore_slot(slot, checkpoint)?;
            trainers.push(trainer);
        }
        // A repair after the last step offers its circuit as the next.
        let check_step = |key: &str, step: usize| match step <= steps {
            true => Ok(step),
            false => Err(bad(key, format!("expected a step up to {steps} (the run's), found {step}"))),
        };
        let first_perfect = match checkpoint.json::<Option<usize>>("first_perfect")? {
            Some(step) => Some(check_step("first_perfect", step)?),
            None => None,
        };
        let kept = match checkpoint.json::<Option<KeptRecord>>("kept")? {
            None => None,
            Some(record) => {
                // Every member trained so far, restarted ones included.
                let trained = expected[slots.size - 1] + 1;
                if record.member >= trained {
                    let detail = format!("member: expected a member below {trained}, found {}", record.member);
                    return Err(bad("kept", detail));
                }
                if !(0.0..=1.0).contains(&record.score) {
                    return Err(bad("kept", format!("score: expected a score in [0, 1], found {}", record.score)));
                }
                let step = check_step("kept", record.step)?;
                let ops = kept_ops(checkpoint, trainers[0].ca.circuit().params)?;
                let seed = member_seed(slots.seed, record.member);
                Some(Kept { member: record.member, seed, step, score: record.score, ops })
            }
        };
        *self = Population::from_members(&config, trainers).map_err(TrainError::task)?;
        self.restore(first_perfect, kept);
        Ok(())
    }
}
