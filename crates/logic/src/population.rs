//! Several trainings run side by side, and the one policy that picks the
//! circuit a run keeps.
//!
//! Whether one wiring and initialisation reaches 100% within a budget is
//! partly luck; trained side by side, the first member to find a circuit
//! that is 100% right on its batch and holds on held-out grids ends the
//! run. The soft circuits are small and the hard check nearly free, so a
//! few members cost a few times one step and make the result a property of
//! the method rather than of the seed. Members that have not ended the run
//! after `restart_after` steps start afresh with the next member seeds:
//! slot s runs member s, then s + size, s + 2 size, ...
//!
//! The population drives any [`Member`]: it steps the members, restarts
//! them and keeps the best circuit they offer; what a member trains and
//! how it scores a circuit are the member's (the checkerboard trainer,
//! `PatternTrainer`, is one).

use crate::Result;
use minnow_config::Check;

/// One training a [`Population`] runs: it starts from its member number,
/// steps, reports, and offers the circuits it finds worth keeping.
pub trait Member: Sized {
    /// The run's config; every member trains it with its own seed
    /// ([`member_seed`]).
    type Config: Clone;
    /// What one step measured.
    type Report;

    /// The population settings of `config`, which is validated first.
    fn population(config: &Self::Config) -> Result<PopulationConfig>;

    /// Member `member` ([`member_of_slot`]) of a run of `config`, fresh,
    /// counting the run's steps from `step` (a restarted member starts
    /// mid-run, so that its reports and checkpoints count as the run
    /// does).
    fn start(config: &Self::Config, member: usize, step: usize) -> Result<Self>;

    /// Training steps taken, counted as the run counts them.
    fn steps_done(&self) -> usize;

    /// One training step. Each circuit worth keeping that it finds goes
    /// to `offer`, scored, in the order found; the report describes the
    /// step.
    fn train_step(&mut self, offer: &mut dyn FnMut(Candidate<'_>)) -> Result<Self::Report>;
}

/// A circuit a member offers to be kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate<'a> {
    /// The training step (0-based) whose circuit this is.
    pub step: usize,
    /// How good it is on grids it was not trained on, in [0, 1]: the
    /// member's judgement (for the pattern trainer, [`selection_score`](crate::selection_score)).
    pub score: f64,
    /// The hard op of every parameter gate.
    pub ops: &'a [u8],
}

/// How a run lays out its members: the population's part of a config.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PopulationConfig {
    /// Members trained side by side (slots), at least 1.
    pub size: usize,
    /// Steps after which every slot starts its next member afresh; 0
    /// never restarts.
    pub restart_after: usize,
    /// A kept circuit scoring at least this ends the run; above 1 it
    /// never ends early.
    pub stop_score: f64,
    /// The run's seed, member 0's ([`member_seed`]).
    pub seed: u64,
}

/// Member m's seed: member 0 is the run's own seed, the others are spread
/// by the golden-ratio increment so that the members of nearby seeds'
/// runs do not coincide.
pub fn member_seed(seed: u64, member: usize) -> u64 {
    seed.wrapping_add((member as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The member that slot `slot` of a population laid out as `config`
/// trains after `steps` steps of the run: the restarts so far each moved
/// it on by the population size. A restart happens as step
/// `k * restart_after` begins.
pub fn member_of_slot(config: &PopulationConfig, slot: usize, steps: usize) -> usize {
    let restarts = match config.restart_after {
        0 => 0,
        every => steps.saturating_sub(1) / every,
    };
    slot + restarts * config.size
}

/// The circuit a run keeps: of the (member, step) pairs offered, the one
/// with the best score (the first of equals). Later updates can move a
/// member away from a good circuit, so the final circuits are only the
/// fallback.
#[derive(Clone, Debug, PartialEq)]
pub struct Kept {
    /// The member ([`member_of_slot`]) whose circuit this is.
    pub member: usize,
    /// The member's seed ([`member_seed`]).
    pub seed: u64,
    /// The training step (0-based) whose circuit this is.
    pub step: usize,
    /// Its score, in [0, 1].
    pub score: f64,
    /// The hard op of every parameter gate.
    pub ops: Vec<u8>,
}

/// The members of a run and what it has kept.
#[derive(Debug)]
pub struct Population<M: Member> {
    slots: PopulationConfig,
    config: M::Config,
    members: Vec<M>,
    reports: Vec<M::Report>,
    kept: Option<Kept>,
    /// The first step whose circuit some member offered.
    first_perfect: Option<usize>,
}

impl<M: Member> Population<M> {
    /// [`size`](PopulationConfig::size) members of a run of `config`,
    /// fresh.
    pub fn new(config: &M::Config) -> Result<Self> {
        let slots = Self::slots_of(config)?;
        let members = (0..slots.size).map(|m| M::start(config, m, 0)).collect::<Result<Vec<_>>>()?;
        Self::from_members(config, members)
    }

    /// A population of members already built (say, resumed from
    /// checkpoints: slot s holds [`member_of_slot`]), keeping nothing yet.
    pub fn from_members(config: &M::Config, members: Vec<M>) -> Result<Self> {
        let slots = Self::slots_of(config)?;
        let reports = Vec::with_capacity(members.len());
        Ok(Self { slots, config: config.clone(), members, reports, kept: None, first_perfect: None })
    }

    /// The member's settings, with a population of none refused even if
    /// the member's config let it through.
    fn slots_of(config: &M::Config) -> Result<PopulationConfig> {
        let slots = M::population(config)?;
        if slots.size == 0 {
            return Err(Check("PopulationConfig").count("size (the population)", "at least 1 member", 0).into());
        }
        Ok(slots)
    }

    /// The run's config (members differ from it only in their seeds).
    pub fn config(&self) -> &M::Config {
        &self.config
    }

    /// How the run lays out its members.
    pub fn population_config(&self) -> &PopulationConfig {
        &self.slots
    }

    /// The members now training, one per slot.
    pub fn members(&self) -> &[M] {
        &self.members
    }

    /// Training steps each member has taken.
    pub fn steps_done(&self) -> usize {
        self.members.first().map_or(0, M::steps_done)
    }

    /// The best circuit kept so far; `None` until some member offered one.
    pub fn kept(&self) -> Option<&Kept> {
        self.kept.as_ref()
    }

    /// The first step (0-based) whose circuit some member offered (for
    /// the pattern trainer: whose batch came out 100% right).
    pub fn first_perfect(&self) -> Option<usize> {
        self.first_perfect
    }

    /// Restores what a resumed run had kept.
    pub fn restore(&mut self, first_perfect: Option<usize>, kept: Option<Kept>) {
        self.first_perfect = first_perfect;
        self.kept = kept;
    }

    /// Whether the kept circuit is good enough to end the run
    /// ([`stop_score`](PopulationConfig::stop_score)).
    pub fn done(&self) -> bool {
        self.kept.as_ref().is_some_and(|k| k.score >= self.slots.stop_score)
    }

    /// One training step of every member, in slot order, each restarted
    /// first if one is due; the circuits they offer go to the keeper. The
    /// reports, one per member, are the members'. Allocates nothing the
    /// members do not, unless a circuit is offered or the members restart.
    pub fn step(&mut self) -> Result<&[M::Report]> {
        let done = self.steps_done();
        let every = self.slots.restart_after;
        if every > 0 && done > 0 && done.is_multiple_of(every) {
            for slot in 0..self.members.len() {
                let member = member_of_slot(&self.slots, slot, done + 1);
                self.members[slot] = M::start(&self.config, member, done)?;
            }
        }
        let Self { slots, members, reports, kept, first_perfect, .. } = self;
        reports.clear();
        for (slot, trainer) in members.iter_mut().enumerate() {
            let member = member_of_slot(slots, slot, done + 1);
            let report = trainer.train_step(&mut |found| {
                first_perfect.get_or_insert(found.step);
                keep(kept, slots, member, found);
            })?;
            reports.push(report);
        }
        Ok(&self.reports)
    }

    /// Offers a circuit as slot `slot`'s member, as one its training found
    /// does (the policy on its own, for tests and tools).
    pub fn offer(&mut self, slot: usize, found: Candidate<'_>) {
        let member = member_of_slot(&self.slots, slot, self.steps_done());
        keep(&mut self.kept, &self.slots, member, found);
    }

    /// The members as they stand and the circuit kept, ending the run.
    pub fn into_parts(self) -> (Vec<M>, Option<Kept>) {
        (self.members, self.kept)
    }
}

/// Keeps `found`, member `member`'s, if it scores better than the circuit
/// kept.
fn keep(kept: &mut Option<Kept>, slots: &PopulationConfig, member: usize, found: Candidate<'_>) {
    if kept.as_ref().is_none_or(|k| found.score > k.score) {
        let seed = member_seed(slots.seed, member);
        *kept = Some(Kept { member, seed, step: found.step, score: found.score, ops: found.ops.to_vec() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A member with nothing to train: it reports (member, step) and, at
    /// every odd step, offers a one-gate circuit scored member / 10.
    #[derive(Debug)]
    struct Counter {
        member: usize,
        step: usize,
    }

    impl Member for Counter {
        type Config = PopulationConfig;
        type Report = (usize, usize);

        fn population(config: &PopulationConfig) -> Result<PopulationConfig> {
            Ok(*config)
        }

        fn start(_: &PopulationConfig, member: usize, step: usize) -> Result<Self> {
            Ok(Self { member, step })
        }

        fn steps_done(&self) -> usize {
            self.step
        }

        fn train_step(&mut self, offer: &mut dyn FnMut(Candidate<'_>)) -> Result<(usize, usize)> {
            let report = (self.member, self.step);
            if self.step % 2 == 1 {
                offer(Candidate { step: self.step, score: self.member as f64 / 10.0, ops: &[self.member as u8] });
            }
            self.step += 1;
            Ok(report)
        }
    }

    #[test]
    fn drives_any_member_through_restarts_and_keeps_the_best() {
        let config = PopulationConfig { size: 2, restart_after: 2, stop_score: 0.3, seed: 7 };
        let mut population = Population::<Counter>::new(&config).unwrap();
        let mut reports = Vec::new();
        while !population.done() {
            reports.push(population.step().unwrap().to_vec());
        }
        // Slot s runs member s for steps 0-1, then member s + 2 from step
        // 2, counting the run's steps; member 3's 0.3 ends the run.
        assert_eq!(reports, [[(0, 0), (1, 0)], [(0, 1), (1, 1)], [(2, 2), (3, 2)], [(2, 3), (3, 3)]]);
        assert_eq!((population.steps_done(), population.first_perfect()), (4, Some(1)));
        let kept = Kept { member: 3, seed: member_seed(7, 3), step: 3, score: 0.3, ops: vec![3] };
        assert_eq!(population.kept(), Some(&kept));
        // The first of equals stays.
        population.offer(0, Candidate { step: 9, score: 0.3, ops: &[9] });
        assert_eq!(population.kept(), Some(&kept));
        let (members, _) = population.into_parts();
        assert_eq!(members.iter().map(|m| m.member).collect::<Vec<_>>(), [2, 3]);

        let none = PopulationConfig { size: 0, ..config };
        let e = Population::<Counter>::new(&none).unwrap_err();
        assert!(e.to_string().contains("at least 1 member"), "{e}");
    }
}
