//! Puts the resolved versions of candle and burn (from Cargo.lock) and the
//! compiler's version into the binary, so that every result line says what
//! it measured.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    for (krate, var) in [
        ("candle-core", "PEER_CANDLE_CORE"),
        ("candle-nn", "PEER_CANDLE_NN"),
        ("burn", "PEER_BURN"),
        ("burn-core", "PEER_BURN_CORE"),
        ("burn-ndarray", "PEER_BURN_NDARRAY"),
        ("burn-flex", "PEER_BURN_FLEX"),
        ("gemm", "PEER_GEMM"),
        ("ndarray", "PEER_NDARRAY"),
        ("matrixmultiply", "PEER_MATRIXMULTIPLY"),
    ] {
        let version = locked_version(&lock, krate).unwrap_or_else(|| "?".to_string());
        println!("cargo:rustc-env={var}={version}");
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "?".to_string());
    println!("cargo:rustc-env=PEER_RUSTC={version}");
}

/// The version of the first `[[package]]` named `krate` (several versions
/// of one crate would each be listed; the ones asked for here appear once).
fn locked_version(lock: &str, krate: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{krate}\"") {
            let next = lines.next()?;
            return next.trim().strip_prefix("version = \"")?.strip_suffix('"').map(str::to_string);
        }
    }
    None
}
