//! Liveness of a hard circuit: which rows and channels channel 0 depends
//! on over any number of steps, a gate reading only the inputs its op
//! depends on.

use crate::ca::{Circuit, TAPS};
use crate::gates::reads;

/// Marks in `live` (one per circuit row) the rows channel 0 depends on,
/// with parameter gate p fixed to `ops[p]`; `live_channels` (one per
/// channel) ends holding the channels it depends on. Allocates nothing.
pub(crate) fn mark_live(circuit: &Circuit, ops: &[u8], live: &mut [bool], live_channels: &mut [bool]) {
    live_channels.fill(false);
    live_channels[0] = true;
    loop {
        live.fill(false);
        for c in 0..circuit.channels {
            live[circuit.outputs + c] = live_channels[c];
        }
        for stage in circuit.stages.iter().rev() {
            for (i, g) in stage.gates.iter().enumerate() {
                if live[stage.out_start + i] {
                    let (ra, rb) = reads(ops[g.param as usize]);
                    live[g.a as usize] |= ra;
                    live[g.b as usize] |= rb;
                }
            }
        }
        if !wake_tap_channels(&live[..circuit.taps], live_channels) {
            break;
        }
    }
}

/// Marks live the channel of every live tap (tap row `c * 9 + d` reads
/// channel c); returns whether that woke a channel, so that its own
/// outputs must be followed too.
pub(super) fn wake_tap_channels(live_taps: &[bool], live_channels: &mut [bool]) -> bool {
    let mut changed = false;
    for (t, _) in live_taps.iter().enumerate().filter(|&(_, &live)| live) {
        if !live_channels[t / TAPS] {
            live_channels[t / TAPS] = true;
            changed = true;
        }
    }
    changed
}

/// Gates on the paths channel 0 depends on that do real work: neither a
/// pass-through (A, B) nor a constant, following each op's true inputs.
pub fn active_gates(circuit: &Circuit, ops: &[u8]) -> usize {
    let mut live = vec![false; circuit.rows];
    let mut live_channels = vec![false; circuit.channels];
    mark_live(circuit, ops, &mut live, &mut live_channels);
    circuit
        .stages
        .iter()
        .flat_map(|s| s.gates.iter().enumerate().map(move |(i, g)| (s.out_start + i, g)))
        .filter(|&(row, g)| live[row] && reads(ops[g.param as usize]) == (true, true))
        .count()
}
