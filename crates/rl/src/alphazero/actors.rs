//! Distributed self-play over a process group: rank 0 is the learner
//! (replay, training, checkpoints, evaluation), every other rank an actor
//! running the ordinary self-play workers.
//!
//! A round is one iteration. The learner broadcasts a header (go or stop,
//! the iteration) and then the snapshot's parameters as one flat buffer;
//! each actor plays its games with them while the learner trains on the
//! replay as it stood; each actor then sends its positions to the learner
//! (one gather, in rank order) and picks up the next snapshot between
//! games. So an actor plays with the learner's parameters of one version
//! ago, never older, and waits only while the learner finishes that
//! version's updates. The learner runs `steps_per_iteration` updates per
//! actor per round, so its replay ratio (updates per new position) is the
//! configured one at any number of actors. Game seeds derive from (seed,
//! iteration, actor, worker), and with one actor from exactly the streams
//! the one-process run uses: a learner and one actor train the same bits
//! as one process.

use super::round::{FIRST_WORKER_STREAM, derive_seed, play_round};
use super::{AzConfig, Positions, SelfPlayStats, SelfPlayWorker, network_config};
use crate::{Result, RlError};
use minnow_autodiff::Params;
use minnow_dist::{Collective, DistError};
use minnow_envs::Game;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::rc::Rc;
use std::sync::Arc;

/// Header values: play a round, or stop.
const GO: u32 = 1;
const STOP: u32 = 0;

/// The learner's side of the rounds: starts them and collects their
/// positions.
#[derive(Debug)]
pub(super) struct Actors {
    comm: Rc<dyn Collective>,
    /// The snapshot's values as sent (the broadcast needs a mutable buffer).
    weights: Vec<f32>,
    /// Whether the actors are playing a round the learner has not collected.
    playing: bool,
    /// Whether the actors were told to stop.
    stopped: bool,
}

impl Actors {
    /// The learner of `comm` (its rank 0), every other rank an actor.
    pub(super) fn new(comm: Rc<dyn Collective>, params: &Params) -> Result<Self> {
        if comm.size() < 2 {
            return Err(RlError::TooFewRanks { ranks: comm.size() });
        }
        assert_eq!(comm.rank(), 0, "Actors: the learner is rank 0");
        Ok(Self { weights: params.values().to_vec(), comm, playing: false, stopped: false })
    }

    /// Ranks that play.
    pub(super) fn count(&self) -> usize {
        self.comm.size() - 1
    }

    /// Sends the actors iteration `iteration` and the snapshot to play it
    /// with; nothing if a round is under way.
    pub(super) fn start_round(&mut self, iteration: u64, snapshot: &Params) {
        if self.playing || self.stopped {
            return;
        }
        self.comm.broadcast(&mut header(GO, iteration));
        self.weights.copy_from_slice(snapshot.values());
        self.comm.broadcast(&mut self.weights);
        self.playing = true;
    }

    /// Waits for the round's games: actor `a`'s positions into `outputs[a]`
    /// (one per actor), their counts summed.
    pub(super) fn collect(&mut self, outputs: &mut [Positions], obs: usize, actions: usize) -> Result<SelfPlayStats> {
        assert!(self.playing, "Actors::collect: no round was started");
        self.playing = false;
        let gathered = self.comm.gather_bytes(&[]);
        let mut stats = SelfPlayStats::default();
        for (rank, bytes) in gathered.iter().enumerate().skip(1) {
            let out = &mut outputs[rank - 1];
            let played = decode(bytes, out, obs, actions).map_err(|detail| DistError::Decode { rank, detail })?;
            stats.add(&played);
        }
        Ok(stats)
    }

    /// Ends the actors' loops: waits out a round under way (its games are
    /// dropped), then tells them to stop. Once; later calls do nothing.
    pub(super) fn stop(&mut self) {
        if self.stopped {
            return;
        }
        if self.playing {
            self.playing = false;
            self.comm.gather_bytes(&[]);
        }
        self.comm.broadcast(&mut header(STOP, 0));
        self.stopped = true;
    }
}

/// What an actor did over its whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActorReport {
    /// Rounds played.
    pub rounds: u64,
    /// Everything its workers played.
    pub self_play: SelfPlayStats,
}

/// Runs one actor of a distributed self-play run ([`Learner`](super::Learner) on rank 0) until the learner says stop: `config.self_play.workers`
/// threads play `games_per_iteration` games each per round with the
/// snapshot the learner sent. Every rank must run the same config.
pub fn play_for_learner<G: Game + Default + Send>(config: &AzConfig, comm: &dyn Collective) -> Result<ActorReport> {
    config.validate()?;
    if comm.size() < 2 {
        return Err(RlError::TooFewRanks { ranks: comm.size() });
    }
    assert!(comm.rank() > 0, "play_for_learner: rank 0 is the learner");
    // The layout only: the learner's parameters arrive before any game.
    let mut params = Params::new();
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let net = network_config::<G>(&config.network).init(&mut params, "az", &mut rng)?;
    let snapshot = Arc::new(params.clone());
    let workers = config.self_play.workers;
    let mut players = (0..workers)
        .map(|_| SelfPlayWorker::<G>::new(&net, snapshot.clone(), &config.mcts, &config.self_play))
        .collect::<Result<Vec<_>>>()?;
    let mut outputs: Vec<Positions> = (0..workers).map(|_| Positions::default()).collect();
    let first_stream = FIRST_WORKER_STREAM + ((comm.rank() - 1) * workers) as u64;
    let mut send = Vec::new();
    let mut report = ActorReport::default();
    loop {
        let mut head = header(STOP, 0);
        comm.broadcast(&mut head);
        let (command, iteration) = read_header(&head);
        if command != GO {
            return Ok(report);
        }
        comm.broadcast(params.values_mut());
        let snapshot = Arc::new(params.clone());
        for w in &mut players {
            w.set_params(snapshot.clone())?;
        }
        let seed = |w: usize| derive_seed(config.seed, iteration, first_stream + w as u64);
        let games = config.self_play.games_per_iteration;
        let (played, ()) = play_round(&mut players, &mut outputs, games, seed, || ());
        let stats = played?;
        encode(&stats, &outputs, &mut send);
        comm.gather_bytes(&send);
        report.rounds += 1;
        report.self_play.add(&stats);
    }
}

/// A header: the command and the iteration, as bit patterns (a broadcast
/// copies bits; no value is read as a number on the way).
fn header(command: u32, iteration: u64) -> [f32; 3] {
    [f32::from_bits(command), f32::from_bits(iteration as u32), f32::from_bits((iteration >> 32) as u32)]
}

fn read_header(h: &[f32; 3]) -> (u32, u64) {
    (h[0].to_bits(), h[1].to_bits() as u64 | (h[2].to_bits() as u64) << 32)
}

/// Counts in an actor's message before its positions: positions, games,
/// moves, simulations and the three results.
const COUNTS: usize = 7;

/// An actor's round as bytes: the counts (little-endian u64), then every
/// worker's observations, policies and values (little-endian f32), each
/// array whole in worker order. `out` keeps its memory between rounds.
fn encode(stats: &SelfPlayStats, outputs: &[Positions], out: &mut Vec<u8>) {
    out.clear();
    let positions: usize = outputs.iter().map(Positions::len).sum();
    let counts = [positions as u64, stats.games, stats.moves, stats.simulations];
    for c in counts.iter().chain(&stats.results) {
        out.extend_from_slice(&c.to_le_bytes());
    }
    let arrays = outputs.iter().map(|p| &p.obs).chain(outputs.iter().map(|p| &p.policy));
    for array in arrays.chain(outputs.iter().map(|p| &p.value)) {
        for v in array {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Reads what [`encode`] wrote into `out` (cleared first), checking every
/// length against the game's `obs` and `actions`.
fn decode(bytes: &[u8], out: &mut Positions, obs: usize, actions: usize) -> Result<SelfPlayStats, String> {
    out.clear();
    if bytes.len() < COUNTS * 8 {
        return Err(format!("{} bytes, fewer than the {} of the counts", bytes.len(), COUNTS * 8));
    }
    let (head, body) = bytes.split_at(COUNTS * 8);
    let mut counts = head.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
    let mut next = || counts.next().expect("COUNTS values");
    let n = next() as usize;
    let stats = SelfPlayStats { games: next(), moves: next(), simulations: next(), results: [next(), next(), next()] };
    let expected = n.checked_mul(4 * (obs + actions + 1));
    if expected != Some(body.len()) {
        return Err(format!(
            "{n} positions of {obs} + {actions} + 1 values need {expected:?} bytes, found {}",
            body.len()
        ));
    }
    let mut values = body.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")));
    out.obs.extend(values.by_ref().take(n * obs));
    out.policy.extend(values.by_ref().take(n * actions));
    out.value.extend(values);
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_decodes_as_it_was_encoded() {
        let worker = |k: f32| Positions {
            obs: vec![k, k + 1.0, k + 2.0, k + 3.0],
            policy: vec![0.25 * k, 1.0 - 0.25 * k],
            value: vec![-k, k],
        };
        let stats = SelfPlayStats { games: 3, moves: 40, simulations: 1 << 40, results: [1, 1, 1] };
        let mut bytes = Vec::new();
        encode(&stats, &[worker(1.0), worker(2.0)], &mut bytes);
        let mut out = Positions::default();
        assert_eq!(decode(&bytes, &mut out, 2, 1), Ok(stats));
        assert_eq!(out.obs, [1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(out.policy, [0.25, 0.75, 0.5, 0.5]);
        assert_eq!(out.value, [-1.0, 1.0, -2.0, 2.0]);
        let err = decode(&bytes[..bytes.len() - 4], &mut out, 2, 1).unwrap_err();
        assert!(err.contains("4 positions") && err.contains("found 60"), "{err}");
        assert!(decode(&bytes[..10], &mut out, 2, 1).unwrap_err().contains("fewer than"));
    }

    #[test]
    fn a_header_carries_any_iteration() {
        for it in [0, 1, 41, u32::MAX as u64 + 5, u64::MAX] {
            assert_eq!(read_header(&header(GO, it)), (GO, it));
        }
    }

    #[test]
    fn one_process_is_not_a_distributed_run() {
        let err = play_for_learner::<minnow_envs::TicTacToe>(&AzConfig::default(), &minnow_dist::Solo).unwrap_err();
        assert!(err.to_string().contains("at least 2 ranks"), "{err}");
    }
}
