//! Reading what a player types: one line at a time, whatever bytes it
//! holds (a stray non-UTF-8 byte is a typo to answer, not the end of the
//! session).

use std::io::BufRead;

/// Reads the next line into `line` (bytes that are not UTF-8 become
/// U+FFFD); `false` at the end of input.
pub fn read_answer(input: &mut dyn BufRead, line: &mut String) -> std::io::Result<bool> {
    let mut bytes = Vec::new();
    if input.read_until(b'\n', &mut bytes)? == 0 {
        return Ok(false);
    }
    line.clear();
    line.push_str(&String::from_utf8_lossy(&bytes));
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::read_answer;

    #[test]
    fn a_line_of_any_bytes_is_read_and_the_end_is_seen() {
        let mut input: &[u8] = b"4\n\xff\xfe\nq";
        let mut line = String::new();
        assert!(read_answer(&mut input, &mut line).unwrap());
        assert_eq!(line.trim(), "4");
        assert!(read_answer(&mut input, &mut line).unwrap());
        assert_eq!(line.trim(), "\u{fffd}\u{fffd}");
        assert!(read_answer(&mut input, &mut line).unwrap());
        assert_eq!(line, "q");
        assert!(!read_answer(&mut input, &mut line).unwrap());
    }
}
