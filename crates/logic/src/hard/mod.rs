//! Hard circuits: each gate fixed to its argmax op, simplified, and run
//! bit-parallel.
//!
//! A grid is stored as channel-major bit planes ([`BitGrid`]): each grid
//! row takes whole `u64` words, bit j of word q is column 64q + j, bits
//! past the last column stay 0. A CA step goes over the planes in tiles
//! of 64 consecutive words: it computes every tap of a tile as a word
//! shift of the old plane (the zero boundary comes in as the zero bits
//! past the edges), then each gate as one bitwise op per word, all in a
//! scratch that stays in L1.
//!
//! A [`HardProgram`] is built from the circuit and the ops either exactly
//! (`Prune::None`: every gate, every channel, the soft network's hard
//! forward one to one) or pruned (`Prune::Channel0`): pass-through gates
//! become wires, constants fold, negations fold into the gates that read
//! them, equal gates merge, and only what channel 0 depends on (over any
//! number of steps) is kept.
//!
//! One file per idea: [`BitGrid`] (`bit_grid`), the circuit compiler
//! ([`HardProgram::new`], `compile`), the bit-parallel interpreter
//! ([`HardProgram::step`], `interpret`) and the text form
//! ([`HardProgram::to_text`], `text`), and which gates channel 0 depends
//! on ([`active_gates`], `live`).

mod bit_grid;
mod compile;
mod interpret;
mod live;
mod text;

pub use bit_grid::BitGrid;
pub use compile::{HardProgram, Instr, Output, Prune};
pub use interpret::HardScratch;
pub(crate) use interpret::TILE;
pub use live::active_gates;
pub(crate) use live::mark_live;
