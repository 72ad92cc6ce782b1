//! The CSV rows the datasets read: numbers separated by commas, no header,
//! blank lines skipped, every bad value named by line and column.

use crate::{NnError, Result};
use std::io::BufRead;

/// Calls `row(line, fields)` for every non-blank line of `reader`, after
/// checking it has `columns` fields; `what` says what the columns are.
pub(crate) fn for_each_row(
    reader: impl BufRead,
    columns: usize,
    what: &str,
    mut row: impl FnMut(usize, &[&str]) -> Result<()>,
) -> Result<()> {
    for (index, line) in reader.lines().enumerate() {
        let number = index + 1;
        let line = line.map_err(|e| NnError::Data(format!("line {number}: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != columns {
            return Err(NnError::Data(format!(
                "line {number}: expected {columns} columns ({what}), found {}",
                fields.len()
            )));
        }
        row(number, &fields)?;
    }
    Ok(())
}

/// A finite number, or an error naming its line and (0-based) column.
pub(crate) fn number(line: usize, column: usize, field: &str) -> Result<f32> {
    let bad = |detail| NnError::BadValue { line, column: column + 1, detail };
    let value: f32 = field.parse().map_err(|_| bad(format!("'{field}' is not a number")))?;
    if value.is_finite() { Ok(value) } else { Err(bad(format!("'{field}' is not finite"))) }
}
