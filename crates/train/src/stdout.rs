//! Printing a run's report to stdout where a closed pipe does not end the
//! run: `train ... | head -1` must still finish, checkpoint and write its
//! files, so the text a closed stdout cannot take is dropped. `print!`
//! would panic instead.

use std::io::Write;

/// Writes `text` to stdout, dropping it if stdout is closed or fails.
#[doc(hidden)]
pub fn write_out(text: std::fmt::Arguments<'_>) {
    let _ = std::io::stdout().lock().write_fmt(text);
}

/// `print!` that a closed stdout does not stop (the text is dropped).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::write_out(format_args!($($arg)*))
    };
}

/// `println!` that a closed stdout does not stop (the text is dropped).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::stdout::write_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}
