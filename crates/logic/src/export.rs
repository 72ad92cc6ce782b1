//! A hard circuit as Verilog and as C, beside the text form of
//! [`HardProgram::to_text`]: the same slots (live taps, then one wire per
//! gate, each defined once before it is read), so the three stay in step.
//!
//! - Verilog: one combinational module per cell, `taps[c*9 + d]` in
//!   (channel c, 3x3 neighbour d row-major, centre 4), `next[c]` out.
//! - C: a function stepping a whole grid bit-parallel, one `uint64_t` per
//!   grid row (so widths up to 64), channel-major planes, with the
//!   circuit's boundary (zero or periodic).

use crate::ca::{Boundary, TAPS};
use crate::hard::{HardProgram, Output};
use std::fmt::Write;

/// One gate as an expression over two operands, in the syntax Verilog and
/// C share (`~`, `&`, `|`, `^`); constants by the caller's spelling.
fn expression(op: u8, a: &str, b: &str, zero: &str, one: &str) -> String {
    match op {
        0 => zero.to_string(),
        1 => format!("{a} & {b}"),
        2 => format!("{a} & ~{b}"),
        3 => a.to_string(),
        4 => format!("~{a} & {b}"),
        5 => b.to_string(),
        6 => format!("{a} ^ {b}"),
        7 => format!("{a} | {b}"),
        8 => format!("~({a} | {b})"),
        9 => format!("~({a} ^ {b})"),
        10 => format!("~{b}"),
        11 => format!("{a} | ~{b}"),
        12 => format!("~{a}"),
        13 => format!("~{a} | {b}"),
        14 => format!("~({a} & {b})"),
        _ => one.to_string(),
    }
}

/// A name usable as a Verilog module or C function: letters, digits and
/// `_`, not starting with a digit.
fn identifier(name: &str) -> String {
    let mut id: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    id
}

impl HardProgram {
    /// The circuit as a Verilog module `name` computing one cell's next
    /// state from its neighbourhood.
    pub fn to_verilog(&self, name: &str) -> String {
        let name = identifier(name);
        let (c_n, taps) = (self.channels(), self.taps().len());
        let mut v = String::new();
        let _ = writeln!(
            v,
            "// minnow-logic hard circuit: {} gates. One cell's next state from its 3x3",
            self.gate_count()
        );
        let _ = writeln!(v, "// neighbourhood: taps[c*9 + d] is channel c of neighbour d (row-major, centre 4).");
        let _ = writeln!(v, "// The grid's boundary is {:?}: the caller wires the taps.", self.boundary());
        let _ = writeln!(v, "module {name} (");
        let _ = writeln!(v, "    input  wire [{}:0] taps,", c_n * TAPS - 1);
        let _ = writeln!(v, "    output wire [{}:0] next", c_n - 1);
        let _ = writeln!(v, ");");
        for (i, &(c, d)) in self.taps().iter().enumerate() {
            let _ = writeln!(v, "    wire s{i} = taps[{}];", c as usize * TAPS + d as usize);
        }
        for (i, ins) in self.instrs().iter().enumerate() {
            let (a, b) = (format!("s{}", ins.a), format!("s{}", ins.b));
            let _ = writeln!(v, "    wire s{} = {};", taps + i, expression(ins.op, &a, &b, "1'b0", "1'b1"));
        }
        for (c, out) in self.outputs().iter().enumerate() {
            let value = match *out {
                Output::Slot { slot, negated: false } => format!("s{slot}"),
                Output::Slot { slot, negated: true } => format!("~s{slot}"),
                Output::Const(x) => format!("1'b{}", x as u8),
                Output::Dead => "1'b0".to_string(),
            };
            let _ = writeln!(v, "    assign next[{c}] = {value};");
        }
        v.push_str("endmodule\n");
        v
    }

    /// The circuit as C: `void name_step(const uint64_t *src, uint64_t
    /// *dst, int height, int width)` steps a grid of `width <= 64` columns
    /// (`channels` planes of `height` words; bit j of word r is cell (r,
    /// j)); dead channels come out 0.
    pub fn to_c(&self, name: &str) -> String {
        let name = identifier(name);
        let periodic = self.boundary() == Boundary::Periodic;
        let taps = self.taps().len();
        let mut c = String::new();
        let _ =
            writeln!(c, "/* minnow-logic hard circuit: {} gates, {:?} boundary.", self.gate_count(), self.boundary());
        let _ = writeln!(
            c,
            " * {name}_step: one synchronous step of a grid of {} channels, height rows and",
            self.channels()
        );
        let _ = writeln!(c, " * width <= 64 columns: src and dst hold one plane per channel of height words,");
        let _ = writeln!(c, " * bit j of word r being cell (r, j). */");
        c.push_str("#include <stdint.h>\n\n");
        let _ = writeln!(
            c,
            "static inline uint64_t {name}_tap(const uint64_t *plane, int height, int width, int r, int dr, int dc) {{"
        );
        c.push_str("    const uint64_t mask = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);\n");
        c.push_str("    int rr = r + dr;\n");
        if periodic {
            c.push_str("    rr = (rr + height) % height;\n");
        } else {
            c.push_str("    if (rr < 0 || rr >= height) return 0;\n");
        }
        c.push_str("    const uint64_t row = plane[rr];\n");
        if periodic {
            c.push_str("    if (dc < 0) return ((row << 1) | (row >> (width - 1))) & mask;\n");
            c.push_str("    if (dc > 0) return (row >> 1) | ((row & 1) << (width - 1));\n");
        } else {
            c.push_str("    if (dc < 0) return (row << 1) & mask;\n");
            c.push_str("    if (dc > 0) return row >> 1;\n");
        }
        c.push_str("    return row;\n}\n\n");
        let _ = writeln!(c, "void {name}_step(const uint64_t *src, uint64_t *dst, int height, int width) {{");
        c.push_str("    const uint64_t mask = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);\n");
        c.push_str("    (void)mask;\n");
        c.push_str("    for (int r = 0; r < height; r++) {\n");
        for (i, &(ch, d)) in self.taps().iter().enumerate() {
            let (dr, dc) = (d as i32 / 3 - 1, d as i32 % 3 - 1);
            let _ = writeln!(
                c,
                "        const uint64_t s{i} = {name}_tap(src + {ch} * height, height, width, r, {dr}, {dc});"
            );
        }
        for (i, ins) in self.instrs().iter().enumerate() {
            let (a, b) = (format!("s{}", ins.a), format!("s{}", ins.b));
            let _ = writeln!(
                c,
                "        const uint64_t s{} = {};",
                taps + i,
                expression(ins.op, &a, &b, "(uint64_t)0", "~(uint64_t)0")
            );
        }
        for (ch, out) in self.outputs().iter().enumerate() {
            let value = match *out {
                Output::Slot { slot, negated: false } => format!("s{slot} & mask"),
                Output::Slot { slot, negated: true } => format!("~s{slot} & mask"),
                Output::Const(true) => "mask".to_string(),
                Output::Const(false) | Output::Dead => "0".to_string(),
            };
            let _ = writeln!(c, "        dst[{ch} * height + r] = {value};");
        }
        c.push_str("    }\n}\n");
        c
    }
}
