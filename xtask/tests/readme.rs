//! The README stays a five-minute read, and its results table agrees with
//! `docs/RESULTS.md`, the one home of every current figure.
//!
//! What is checked:
//!
//! - the README has at most [`MAX_LINES`] lines (the aim is 150; the
//!   limit leaves a little room);
//! - no cell of any README table is longer than [`MAX_CELL_CHARS`]
//!   characters (the trimmed cell text, counted in `char`s); a failure
//!   names the line and the length;
//! - the results table (the README table with a `headline figure`
//!   column) has one row per task of `cargo xtask train list`, each row
//!   links its task to a section of `docs/RESULTS.md`
//!   (`docs/RESULTS.md#ANCHOR`, the anchor as GitHub derives it from the
//!   heading), and every number in the row's headline-figure cell
//!   appears in that section (the heading to the next heading of the same
//!   or a higher level).
//!
//! The matching rule, so that a figure edited in one file and not the
//! other fails, while prose around it may differ:
//!
//! - a number is a run of digits with optional thousands commas (a comma
//!   followed by exactly three digits) and an optional decimal part:
//!   `98.1`, `13,761`, `2,400`, `0.042`;
//! - it must not follow a letter, a digit, `_` or `.`, so `b64` and the
//!   parts of `v0.10.2` are not numbers, while one after a hyphen is
//!   (`1-32` gives `1` and `32`); what follows it does not matter
//!   (`100k`, `2d` and `64x64` give `100`, `2` and `64`);
//! - numbers compare as written, commas dropped: `13,761` matches
//!   `13761`, but `5.0` does not match `5` or `65.0` (precision is part of
//!   a figure), and a sign or unit (`-0.042`, `98.1%`) is not compared.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// The README's hard limit on lines.
const MAX_LINES: usize = 160;
/// The longest a README table cell may be, in characters.
const MAX_CELL_CHARS: usize = 300;

fn repo_file(path: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// Splits a table row into its trimmed cells; a `|` inside a code span
/// or escaped as `\|` does not split.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = vec![String::new()];
    let (mut in_code, mut escaped) = (false, false);
    for c in inner.chars() {
        match c {
            '|' if !in_code && !escaped => out.push(String::new()),
            _ => {
                if c == '`' && !escaped {
                    in_code = !in_code;
                }
                out.last_mut().unwrap().push(c);
            }
        }
        escaped = c == '\\' && !escaped;
    }
    out.iter().map(|c| c.trim().to_string()).collect()
}

/// A table of a markdown file: the 1-based line of each row (header
/// first, the `---` separator left out) and its cells.
struct Table {
    rows: Vec<(usize, Vec<String>)>,
}

fn tables(text: &str) -> Vec<Table> {
    let mut tables = Vec::new();
    let mut current: Option<Table> = None;
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && line.trim_start().starts_with('|') {
            let row = cells(line);
            let separator = row.iter().all(|c| !c.is_empty() && c.chars().all(|c| matches!(c, '-' | ':' | ' ')));
            let table = current.get_or_insert_with(|| Table { rows: Vec::new() });
            if !separator {
                table.rows.push((i + 1, row));
            }
        } else if let Some(table) = current.take() {
            tables.push(table);
        }
    }
    tables.extend(current);
    tables
}

/// The numbers of `text` under the rule of the module doc, commas
/// dropped, in order.
fn numbers(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let digit = |k: usize| chars.get(k).is_some_and(|c| c.is_ascii_digit());
        if !digit(i) {
            i += 1;
            continue;
        }
        if i > 0 && (chars[i - 1].is_alphanumeric() || matches!(chars[i - 1], '_' | '.')) {
            // A run of digits inside a name (`b64`) or a version: skip it whole.
            while digit(i) {
                i += 1;
            }
            continue;
        }
        let mut number = String::new();
        while digit(i) {
            number.push(chars[i]);
            i += 1;
        }
        while chars.get(i) == Some(&',') && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4) {
            number.extend(&chars[i + 1..i + 4]);
            i += 4;
        }
        if chars.get(i) == Some(&'.') && digit(i + 1) {
            number.push('.');
            i += 1;
            while digit(i) {
                number.push(chars[i]);
                i += 1;
            }
        }
        out.push(number);
    }
    out
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, every
/// other character but letters, digits, `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The text of the section of `markdown` whose heading has `wanted` as
/// its anchor: the heading line to the next heading of the same or a
/// higher level.
fn section(markdown: &str, wanted: &str) -> Option<String> {
    let mut in_fence = false;
    let mut found: Option<(usize, Vec<&str>)> = None;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        let heading = !in_fence && level > 0 && line[level..].starts_with(' ');
        if let Some((at, lines)) = &mut found {
            if heading && level <= *at {
                break;
            }
            lines.push(line);
        } else if heading && anchor(&line[level..]) == wanted {
            found = Some((level, vec![line]));
        }
    }
    found.map(|(_, lines)| lines.join("\n"))
}

#[test]
fn numbers_are_read_as_written() {
    let text = "98.1% and 13,761, then 2,400 sims; 53.8 / 57.9%; b64 v0.10.2 dqn-2048 100k 2d 64x64 -0.042 5.0";
    assert_eq!(
        numbers(text),
        ["98.1", "13761", "2400", "53.8", "57.9", "2048", "100", "2", "64", "0.042", "5.0"],
        "{text}"
    );
    assert_eq!(numbers("1, 2, 3 and 1-32"), ["1", "2", "3", "1", "32"]);
    assert_eq!(anchor(" az-connect4"), "az-connect4");
    assert_eq!(anchor("On several processes"), "on-several-processes");
    assert_eq!(cells("| `a | b` | c \\| d |"), ["`a | b`", "c \\| d"]);
}

#[test]
fn readme_is_short() {
    let lines = repo_file("README.md").lines().count();
    assert!(lines <= MAX_LINES, "README.md has {lines} lines; keep it under about 150 (limit {MAX_LINES})");
}

#[test]
fn readme_table_cells_are_short() {
    let readme = repo_file("README.md");
    let mut long = Vec::new();
    for table in tables(&readme) {
        for (line, row) in &table.rows {
            for cell in row {
                let n = cell.chars().count();
                if n > MAX_CELL_CHARS {
                    let start: String = cell.chars().take(60).collect();
                    long.push(format!("README.md line {line}: a cell of {n} characters ({start}...)"));
                }
            }
        }
    }
    assert!(long.is_empty(), "table cells over {MAX_CELL_CHARS} characters:\n{}", long.join("\n"));
}

#[test]
fn readme_results_agree_with_results_md() {
    let readme = repo_file("README.md");
    let results = repo_file("docs/RESULTS.md");
    let tables = tables(&readme);
    let table = tables
        .iter()
        .find(|t| t.rows[0].1.iter().any(|c| c == "headline figure"))
        .expect("README.md has a results table (a table with a `headline figure` column)");
    let header = &table.rows[0].1;
    let column = |name: &str| header.iter().position(|c| c == name).unwrap_or_else(|| panic!("no `{name}` column"));
    let (task_col, figure_col) = (column("task"), column("headline figure"));

    let mut problems = Vec::new();
    let mut tasks = BTreeSet::new();
    for (line, row) in &table.rows[1..] {
        let task_cell = &row[task_col];
        let Some(link) = task_cell.split("docs/RESULTS.md#").nth(1) else {
            problems.push(format!(
                "README.md line {line}: the task cell does not link to docs/RESULTS.md#...: {task_cell}"
            ));
            continue;
        };
        let target = link.split(')').next().unwrap_or_default();
        let task = task_cell.trim_start_matches('[').split(']').next().unwrap_or_default();
        tasks.insert(task.to_string());
        let Some(text) = section(&results, target) else {
            problems.push(format!("README.md line {line}: docs/RESULTS.md has no section #{target}"));
            continue;
        };
        let known: BTreeSet<String> = numbers(&text).into_iter().collect();
        let figure = &row[figure_col];
        for number in numbers(figure) {
            if !known.contains(&number) {
                problems.push(format!(
                    "README.md line {line} ({task}): {number} in \"{figure}\" is not in docs/RESULTS.md#{target}"
                ));
            }
        }
    }

    let listed = Command::new(env!("CARGO_BIN_EXE_xtask")).args(["train", "list"]).output().expect("xtask runs");
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    for line in String::from_utf8_lossy(&listed.stdout).lines() {
        let Some(name) = line.split_whitespace().next() else { continue };
        if !tasks.contains(name) {
            problems.push(format!("task {name} (cargo xtask train list) has no row in the README's results table"));
        }
    }
    assert!(problems.is_empty(), "README.md and docs/RESULTS.md disagree:\n{}", problems.join("\n"));
}

/// The README's library example is the quickstart example, which CI runs,
/// so the code a newcomer copies compiles and trains.
#[test]
fn the_library_example_is_the_quickstart() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let example = std::fs::read_to_string(root.join("crates/minnow/examples/quickstart.rs")).unwrap();
    let code = &example[example.find("use minnow::prelude::*;").expect("the example's first import")..];
    for doc in ["README.md", "docs/LIBRARY.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        assert!(
            text.contains(&format!("```rust\n{code}```")),
            "{doc}'s example differs from crates/minnow/examples/quickstart.rs"
        );
    }
}
