//! The Verilog and C forms of a hard circuit: well formed (one definition
//! per wire, every wire defined before it is read, one assignment per
//! gate and output), and the C, compiled, steps grids exactly as the
//! bit-parallel program does.

use minnow_logic::{BitGrid, Boundary, HardProgram, HardScratch, LogicCa, LogicCaConfig, Prune};
use rand::{Rng, SeedableRng};
use std::collections::HashSet;

/// A random circuit (not the pass-through start), pruned or not.
fn random_program(boundary: Boundary, prune: Prune, seed: u64) -> HardProgram {
    let config = LogicCaConfig {
        height: 8,
        width: 8,
        channels: 3,
        kernels: 2,
        perception: vec![8, 4, 2],
        update: vec![16, 8, 4, 3],
        boundary,
        pass_logit: 10.0,
    };
    let ca = LogicCa::new(&config, seed).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let ops: Vec<u8> = (0..ca.circuit().params).map(|_| rng.random_range(0..16)).collect();
    HardProgram::new(ca.circuit(), &ops, boundary, prune)
}

/// The names `s<number>` in an expression.
fn wires(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes: Vec<char> = expr.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == '_');
        if bytes[i] == 's' && boundary && bytes.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            out.push(bytes[i..j].iter().collect());
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Checks definitions `<prefix> sN = expr;` in order; returns how many.
fn check_definitions(text: &str, prefix: &str, program: &HardProgram) -> usize {
    let mut defined = HashSet::new();
    let is_wire = |l: &&str| {
        l.strip_prefix(prefix).is_some_and(|r| r.starts_with('s') && r[1..].starts_with(|c: char| c.is_ascii_digit()))
    };
    for line in text.lines().map(str::trim).filter(is_wire) {
        let rest = &line[prefix.len()..];
        let (name, expr) = rest.split_once(" = ").unwrap_or_else(|| panic!("malformed line: {line}"));
        assert!(expr.ends_with(';'), "{line}");
        for w in wires(expr) {
            assert!(defined.contains(&w), "{w} read before it is defined: {line}");
        }
        assert!(defined.insert(name.to_string()), "{name} defined twice");
        assert_eq!(name, format!("s{}", defined.len() - 1), "wires are numbered in order");
    }
    assert_eq!(defined.len(), program.taps().len() + program.gate_count(), "one definition per tap and gate");
    defined.len()
}

#[test]
fn verilog_is_well_formed() {
    for (boundary, prune, seed) in [(Boundary::Zero, Prune::Channel0, 1), (Boundary::Periodic, Prune::None, 2)] {
        let program = random_program(boundary, prune, seed);
        assert!(program.gate_count() > 5, "a circuit worth checking");
        let v = program.to_verilog("cell");
        assert!(v.contains("module cell ("), "{v}");
        assert_eq!(v.matches("module ").count(), 1);
        assert!(v.trim_end().ends_with("endmodule"));
        assert!(v.contains(&format!("input  wire [{}:0] taps", 3 * 9 - 1)));
        let n = check_definitions(&v, "wire ", &program);
        let outputs: Vec<&str> = v.lines().map(str::trim).filter(|l| l.starts_with("assign next[")).collect();
        assert_eq!(outputs.len(), program.channels(), "one assignment per output");
        for (c, line) in outputs.iter().enumerate() {
            assert!(line.starts_with(&format!("assign next[{c}] = ")), "{line}");
            for w in wires(line) {
                let k: usize = w[1..].parse().unwrap();
                assert!(k < n, "{line}");
            }
        }
        assert_eq!(v.matches('(').count(), v.matches(')').count());
    }
}

#[test]
fn c_is_well_formed() {
    let program = random_program(Boundary::Zero, Prune::Channel0, 3);
    let c = program.to_c("board");
    assert!(c.contains("void board_step(const uint64_t *src, uint64_t *dst, int height, int width)"));
    check_definitions(&c, "const uint64_t ", &program);
    let stores = c.lines().filter(|l| l.trim().starts_with("dst[")).count();
    assert_eq!(stores, program.channels(), "one store per channel");
    assert_eq!(c.matches('{').count(), c.matches('}').count());
}

/// Compiles the C of `program` into a shared library-free executable
/// that reads grids on stdin and writes the next ones, and compares it
/// with `HardProgram::step` on random grids of a few widths.
fn check_c_against_program(program: &HardProgram, tag: &str) {
    let dir = std::env::temp_dir().join(format!("minnow-logic-c-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let main = r#"
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int h, w, c;
    while (scanf("%d %d %d", &h, &w, &c) == 3) {
        uint64_t *src = calloc((size_t)h * c, 8), *dst = calloc((size_t)h * c, 8);
        for (int i = 0; i < h * c; i++) { unsigned long long v; scanf("%llu", &v); src[i] = v; }
        circuit_step(src, dst, h, w);
        for (int i = 0; i < h * c; i++) printf("%llu\n", (unsigned long long)dst[i]);
        free(src); free(dst);
    }
    return 0;
}
"#;
    std::fs::write(dir.join("circuit.c"), format!("{}{main}", program.to_c("circuit"))).unwrap();
    let exe = dir.join("circuit");
    let status = std::process::Command::new("cc")
        // Unpruned programs keep gates nothing reads.
        .args(["-O1", "-std=c99", "-Wall", "-Wno-unused-variable", "-Werror", "-o"])
        .arg(&exe)
        .arg(dir.join("circuit.c"))
        .status()
        .expect("a C compiler (cc) is installed: Rust links with it");
    assert!(status.success(), "cc failed on the generated C");

    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    let mut input = String::new();
    let mut expected = Vec::new();
    for (h, w) in [(5, 7), (16, 16), (9, 64), (4, 33)] {
        let mut grid = BitGrid::new(h, w, program.channels());
        grid.fill_random(|| rng.random());
        let mut next = grid.clone();
        program.step(&grid, &mut next, &mut HardScratch::default());
        input += &format!("{h} {w} {}\n", program.channels());
        for c in 0..program.channels() {
            input.extend(grid.plane(c).iter().map(|v| format!("{v}\n")));
            expected.extend_from_slice(next.plane(c));
        }
    }
    let mut child = std::process::Command::new(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let got: Vec<u64> = String::from_utf8(out.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(got, expected, "the C step differs from HardProgram::step");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compiled_c_steps_grids_like_the_program() {
    check_c_against_program(&random_program(Boundary::Zero, Prune::Channel0, 4), "zero");
    check_c_against_program(&random_program(Boundary::Periodic, Prune::None, 5), "periodic");
    check_c_against_program(&minnow_logic::trained::checkerboard(), "trained");
}
