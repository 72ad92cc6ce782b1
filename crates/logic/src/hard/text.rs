//! The text form of a [`HardProgram`]: one line per tap, gate and output.

use super::{HardProgram, Instr, Output};
use crate::ca::TAPS;
use crate::gates::OP_NAMES;
use crate::{LogicError, Result};
use minnow_config::Check;

impl HardProgram {
    /// A readable text form: one line per tap, gate and output.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        s.push_str("# minnow-logic hard circuit: slots are taps (channel, 3x3 position,\n");
        s.push_str("# row-major, centre 4), then gates; outputs are the next state.\n");
        s.push_str(&format!("channels {}\n", self.channels));
        s.push_str(&format!("boundary {}\n", if self.periodic { "periodic" } else { "zero" }));
        for (i, &(c, d)) in self.taps.iter().enumerate() {
            s.push_str(&format!("s{i} = tap c{c} {d}\n"));
        }
        for (i, ins) in self.instrs.iter().enumerate() {
            let slot = self.taps.len() + i;
            s.push_str(&format!("s{slot} = {} s{} s{}\n", OP_NAMES[ins.op as usize], ins.a, ins.b));
        }
        for (c, out) in self.outputs.iter().enumerate() {
            let v = match *out {
                Output::Slot { slot, negated: false } => format!("s{slot}"),
                Output::Slot { slot, negated: true } => format!("NOT s{slot}"),
                Output::Const(x) => format!("{}", x as u8),
                Output::Dead => "dead".to_string(),
            };
            s.push_str(&format!("out c{c} = {v}\n"));
        }
        s
    }

    /// Parses [`to_text`](Self::to_text)'s form.
    pub fn from_text(text: &str) -> Result<Self> {
        let bad = |line: usize| {
            LogicError::from(Check("HardProgram text").count(
                "line",
                "a line of the form `to_text` writes",
                line as u64 + 1,
            ))
        };
        let mut p = Self::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let slot = |w: &str| -> Result<u32> { w.strip_prefix('s').and_then(|v| v.parse().ok()).ok_or(bad(n)) };
            match words.as_slice() {
                ["channels", c] => p.channels = c.parse().map_err(|_| bad(n))?,
                ["boundary", b] => {
                    p.periodic = match *b {
                        "periodic" => true,
                        "zero" => false,
                        _ => return Err(bad(n)),
                    }
                }
                [s, "=", "tap", c, d] => {
                    let c: u16 = c.strip_prefix('c').and_then(|v| v.parse().ok()).ok_or(bad(n))?;
                    let d: u8 = d.parse().map_err(|_| bad(n))?;
                    if slot(s)? as usize != p.taps.len()
                        || !p.instrs.is_empty()
                        || d as usize >= TAPS
                        || c as usize >= p.channels
                    {
                        return Err(bad(n));
                    }
                    p.taps.push((c, d));
                }
                [s, "=", op, a, b] => {
                    let op = OP_NAMES.iter().position(|o| o == op).ok_or(bad(n))? as u8;
                    let here = p.taps.len() + p.instrs.len();
                    let (a, b) = (slot(a)?, slot(b)?);
                    if slot(s)? as usize != here || a as usize >= here || b as usize >= here {
                        return Err(bad(n));
                    }
                    p.instrs.push(Instr { op, a, b });
                }
                ["out", c, "=", rest @ ..] => {
                    let c: usize = c.strip_prefix('c').and_then(|v| v.parse().ok()).ok_or(bad(n))?;
                    if c != p.outputs.len() {
                        return Err(bad(n));
                    }
                    let slots = p.taps.len() + p.instrs.len();
                    let out = match rest {
                        ["dead"] => Output::Dead,
                        ["0"] => Output::Const(false),
                        ["1"] => Output::Const(true),
                        ["NOT", s] => Output::Slot { slot: slot(s)?, negated: true },
                        [s] => Output::Slot { slot: slot(s)?, negated: false },
                        _ => return Err(bad(n)),
                    };
                    if let Output::Slot { slot, .. } = out
                        && slot as usize >= slots
                    {
                        return Err(bad(n));
                    }
                    p.outputs.push(out);
                }
                _ => return Err(bad(n)),
            }
        }
        if p.channels == 0 || p.outputs.len() != p.channels {
            return Err(LogicError::DataLength {
                what: "HardProgram text outputs",
                expected: p.channels,
                found: p.outputs.len(),
            });
        }
        Ok(p)
    }
}
