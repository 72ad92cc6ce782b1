//! A run of several members trained side by side, and the one policy that
//! picks the circuit a run keeps.
//!
//! Whether one wiring and initialisation reaches 100% within a budget is
//! partly luck; trained side by side, the first member to find a circuit
//! that is 100% right on its batch and holds on held-out grids ends the
//! run. The soft circuits are small and the hard check nearly free, so a
//! few members cost a few times one step and make the result a property of
//! the method rather than of the seed. Members that have not ended the run
//! after `restart_after` steps start afresh with the next member seeds:
//! slot s runs member s, then s + population, s + 2 population, ...

use crate::config::{CheckerboardConfig, Variant};
use crate::hard::{HardProgram, Prune};
use crate::life::hard_life_accuracy;
use crate::robustness::{Disturbance, RobustnessConfig, rollout_accuracy};
use crate::trainer::{PatternTrainer, StepReport};
use crate::{LogicCa, Result};

/// Seeds of the held-out grids of [`selection_score`], apart from those of
/// the reported checks.
pub const SELECTION_SEED: u64 = 1234;

/// Member m's seed: member 0 is the run's own seed, the others are spread
/// by the golden-ratio increment so that the members of nearby seeds'
/// runs do not coincide.
pub fn member_seed(seed: u64, member: usize) -> u64 {
    seed.wrapping_add((member as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The member that slot `slot` of a population of `config` trains after
/// `steps` steps of the run: the restarts so far each moved it on by the
/// population size. A restart happens as step `k * restart_after` begins.
pub fn member_of_slot(config: &CheckerboardConfig, slot: usize, steps: usize) -> usize {
    let restarts = match config.restart_after {
        0 => 0,
        every => steps.saturating_sub(1) / every,
    };
    slot + restarts * config.population
}

/// How good a circuit is on grids it was not trained on, in [0, 1]: for
/// the checkerboard the worse of the 64x64 check and the damaged 64x64
/// check (8 grids each), for the asynchronous variant fresh grids of its
/// training size with asynchronous updates, for the Game of Life the worse
/// of the share of the 512 boards right and of the cells right on larger
/// grids.
pub fn selection_score(config: &CheckerboardConfig, program: &HardProgram) -> f64 {
    let check = RobustnessConfig { trials: 8, seed: SELECTION_SEED, ..RobustnessConfig::default() };
    let (side, steps) = (check.side, check.steps);
    match config.variant {
        Variant::Checkerboard => {
            let large = rollout_accuracy(program, side, side, steps, check.trials, check.seed, Disturbance::None);
            let damage = Disturbance::Damage { side: check.damage_side, steps: check.damage_steps };
            large.min(rollout_accuracy(program, side, side, steps, check.trials, check.seed + 1, damage))
        }
        Variant::Async => {
            let fire = Disturbance::Async { fire_rate: config.fire_rate };
            let (h, w, n) = (config.ca.height, config.ca.width, config.ca_steps);
            rollout_accuracy(program, h, w, n, 8 * check.trials, check.seed, fire)
        }
        Variant::GameOfLife => {
            let life = hard_life_accuracy(program, 1, SELECTION_SEED);
            (life.boards_right as f64 / crate::life::BOARDS as f64).min(life.large_grids)
        }
    }
}

/// The circuit a run keeps: of the (member, step) pairs whose batch came
/// out 100% right, the one with the best [`selection_score`] (the first of
/// equals). Later updates can move a member away from a good circuit, so
/// the final circuits are only the fallback.
#[derive(Clone, Debug, PartialEq)]
pub struct Kept {
    /// The member ([`member_of_slot`]) whose circuit this is.
    pub member: usize,
    /// The member's seed ([`member_seed`]).
    pub seed: u64,
    /// The training step (0-based) whose circuit this is.
    pub step: usize,
    /// Its [`selection_score`], in [0, 1].
    pub score: f64,
    /// The hard op of every parameter gate.
    pub ops: Vec<u8>,
}

/// The members of a run and what it has kept.
#[derive(Debug)]
pub struct Population {
    config: CheckerboardConfig,
    members: Vec<PatternTrainer>,
    reports: Vec<StepReport>,
    program: HardProgram,
    kept: Option<Kept>,
    /// The first step at which some member's batch came out 100% right.
    first_perfect: Option<usize>,
}

/// A slot's member restarted at step `step` of the run: a fresh member that
/// counts the run's steps (so reports, repairs and checkpoints do).
fn fresh_member(config: &CheckerboardConfig, member: usize, step: usize) -> Result<PatternTrainer> {
    let mut trainer = PatternTrainer::new(&Population::member_config(config, member))?;
    trainer.step = step;
    Ok(trainer)
}

impl Population {
    /// `config.population` members, member m built from `config` with
    /// [`member_seed`]`(config.seed, m)`.
    pub fn new(config: &CheckerboardConfig) -> Result<Self> {
        config.validate()?;
        let members = (0..config.population)
            .map(|m| PatternTrainer::new(&Self::member_config(config, m)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self::from_members(config, members))
    }

    /// A population of members already built (say, resumed from
    /// checkpoints: slot s holds [`member_of_slot`]), keeping nothing yet.
    pub fn from_members(config: &CheckerboardConfig, members: Vec<PatternTrainer>) -> Self {
        let reports = Vec::with_capacity(members.len());
        Self {
            config: config.clone(),
            members,
            reports,
            program: HardProgram::default(),
            kept: None,
            first_perfect: None,
        }
    }

    /// The config of member m ([`member_of_slot`]): the run's with the
    /// member's seed.
    pub fn member_config(config: &CheckerboardConfig, member: usize) -> CheckerboardConfig {
        CheckerboardConfig { seed: member_seed(config.seed, member), ..config.clone() }
    }

    /// The run's config (members differ from it only in their seeds).
    pub fn config(&self) -> &CheckerboardConfig {
        &self.config
    }

    /// The members now training, one per slot.
    pub fn members(&self) -> &[PatternTrainer] {
        &self.members
    }

    /// Training steps each member has taken.
    pub fn steps_done(&self) -> usize {
        self.members.first().map_or(0, PatternTrainer::steps_done)
    }

    /// The best circuit kept so far; `None` until some batch came out
    /// 100% right.
    pub fn kept(&self) -> Option<&Kept> {
        self.kept.as_ref()
    }

    /// The first step (0-based) at which some member's batch came out
    /// 100% right.
    pub fn first_perfect(&self) -> Option<usize> {
        self.first_perfect
    }

    /// Restores what a resumed run had kept.
    pub fn restore(&mut self, first_perfect: Option<usize>, kept: Option<Kept>) {
        self.first_perfect = first_perfect;
        self.kept = kept;
    }

    /// Whether the kept circuit is good enough to end the run
    /// (`stop_score`).
    pub fn done(&self) -> bool {
        self.kept.as_ref().is_some_and(|k| k.score >= self.config.stop_score)
    }

    /// One training step of every member, in member order; a member whose
    /// batch came out 100% right offers its circuit to the keeper. The
    /// reports, one per member, describe the circuits before the update.
    /// A member due a repair ([`PatternTrainer::repair_if_due`]) is
    /// repaired after its update, and a repaired circuit with no cell
    /// wrong is offered as the next step's. Allocates nothing unless a
    /// circuit is offered or the members restart.
    pub fn step(&mut self) -> Result<&[StepReport]> {
        let done = self.steps_done();
        if self.config.restart_after > 0 && done > 0 && done.is_multiple_of(self.config.restart_after) {
            for slot in 0..self.members.len() {
                let member = member_of_slot(&self.config, slot, done + 1);
                self.members[slot] = fresh_member(&self.config, member, done)?;
            }
        }
        self.reports.clear();
        for (slot, member) in self.members.iter_mut().enumerate() {
            let m = member_of_slot(&self.config, slot, done + 1);
            let report = member.step()?;
            self.reports.push(report);
            if report.hard_errors == 0 {
                self.first_perfect.get_or_insert(report.step);
                Self::offer_to(&self.config, &mut self.program, &mut self.kept, member, m, report.step, None);
            }
            // A repaired circuit with no cell wrong on its (larger) set
            // counts as the next step's circuit being right.
            if let Some(outcome) = member.repair_if_due()
                && outcome.errors_after == 0
            {
                let step = report.step + 1;
                self.first_perfect.get_or_insert(step);
                let ops = member.repaired_ops();
                Self::offer_to(&self.config, &mut self.program, &mut self.kept, member, m, step, Some(ops));
            }
        }
        Ok(&self.reports)
    }

    /// Offers the circuit `ops` of slot `slot`'s member at training step
    /// `step` to the keeper, as a step whose batch came out 100% right does
    /// (the policy on its own, for tests and tools).
    pub fn offer(&mut self, slot: usize, step: usize, ops: &[u8]) {
        let (trainer, member) = (&self.members[slot], member_of_slot(&self.config, slot, self.steps_done()));
        Self::offer_to(&self.config, &mut self.program, &mut self.kept, trainer, member, step, Some(ops));
    }

    /// Keeps the circuit (`ops`, or the member's last) if it scores better
    /// than the one kept.
    fn offer_to(
        config: &CheckerboardConfig,
        program: &mut HardProgram,
        kept: &mut Option<Kept>,
        trainer: &PatternTrainer,
        member: usize,
        step: usize,
        ops: Option<&[u8]>,
    ) {
        let ops = ops.unwrap_or(trainer.last_ops());
        program.rebuild(trainer.model().circuit(), ops, config.ca.boundary, Prune::Channel0);
        let score = selection_score(config, program);
        if kept.as_ref().is_none_or(|k| score > k.score) {
            let seed = trainer.config().seed;
            *kept = Some(Kept { member, seed, step, score, ops: ops.to_vec() });
        }
    }

    /// The kept circuit's ops and model (whose wiring they run on: its
    /// member's last logits, or the member's first if it was restarted
    /// since), or, if nothing was kept, slot 0's final circuit.
    pub fn into_result(self) -> Result<(LogicCa, Vec<u8>, Option<Kept>)> {
        let steps = self.steps_done();
        let Self { config, members, kept, .. } = self;
        let slot = kept.as_ref().map_or(0, |k| k.member % config.population);
        let model = match &kept {
            Some(k) if member_of_slot(&config, slot, steps) != k.member => LogicCa::new(&config.ca, k.seed)?,
            _ => members.into_iter().nth(slot).expect("a population has at least one member").into_model(),
        };
        let ops = match &kept {
            Some(k) => k.ops.clone(),
            None => {
                let mut ops = vec![0; model.circuit().params];
                model.hard_ops(&mut ops);
                ops
            }
        };
        Ok((model, ops, kept))
    }
}
