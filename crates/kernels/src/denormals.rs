//! Flush-to-zero for subnormal floats.
//!
//! Values that decay towards zero (Adam's moments for a unit that stopped
//! learning, activations of a dead path) pass through the subnormal range,
//! where x86 cores take a slow microcode path on every operation: a
//! training step can run several times slower for it. Setting FTZ and DAZ
//! makes such values zero instead, as XLA does by default on CPUs and
//! `torch.set_flush_denormal(True)` does for PyTorch.

/// Turns flush-to-zero and denormals-are-zero on for the calling thread
/// (each worker thread calls it once). Returns whether it could.
pub fn flush_denormals() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        const FTZ: u32 = 1 << 15;
        const DAZ: u32 = 1 << 6;
        let mut csr: u32 = 0;
        // SAFETY: stores the thread's MXCSR into a local u32.
        unsafe {
            std::arch::asm!("stmxcsr [{p}]", p = in(reg) &raw mut csr, options(nostack, preserves_flags));
        }
        csr |= FTZ | DAZ;
        // SAFETY: MXCSR is per-thread state; setting FTZ and DAZ only
        // changes how subnormal results and inputs round, never memory.
        unsafe {
            std::arch::asm!("ldmxcsr [{p}]", p = in(reg) &raw const csr, options(nostack, preserves_flags, readonly));
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn subnormals_become_zero() {
        std::thread::spawn(|| {
            let tiny = std::hint::black_box(f32::MIN_POSITIVE);
            assert!(std::hint::black_box(tiny * 0.5) > 0.0, "subnormals exist before");
            assert!(super::flush_denormals());
            assert_eq!(std::hint::black_box(tiny) * std::hint::black_box(0.5), 0.0);
        })
        .join()
        .unwrap();
    }
}
