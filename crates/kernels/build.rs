//! Tells the kernels whether cargo compiles them without optimisations, so
//! a training step can warn that it runs 20-30x slower than it should.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(minnow_unoptimized)");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("OPT_LEVEL").as_deref() == Ok("0") {
        println!("cargo::rustc-cfg=minnow_unoptimized");
    }
}
