//! The one warning a library user needs on a first debug build: cargo
//! compiles dependencies without optimisations unless told otherwise, and
//! unoptimised kernels train 20-30x slower with the same results.

/// Whether these kernels were compiled at `opt-level = 0`.
pub const UNOPTIMIZED: bool = cfg!(minnow_unoptimized);

/// The warning, one line.
pub const UNOPTIMIZED_WARNING: &str = "warning: minnow was compiled without optimisations and trains 20-30x slower; \
     add `[profile.dev.package.\"*\"] opt-level = 3` to your Cargo.toml (or build with --release)";

/// Prints [`UNOPTIMIZED_WARNING`] to stderr, once per process, in a build
/// of the kernels without optimisations; does nothing otherwise. Training
/// steps call it.
pub fn warn_if_unoptimized() {
    if UNOPTIMIZED {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| eprintln!("{UNOPTIMIZED_WARNING}"));
    }
}
