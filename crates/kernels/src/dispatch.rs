use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

/// The instruction set a kernel call runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The baseline target: no SIMD beyond what it guarantees.
    Scalar,
    /// AVX2 with FMA: 256-bit registers.
    Avx2,
    /// AVX-512 (F, VL, BW, DQ) with FMA: 512-bit registers.
    Avx512,
}

static LEVEL: AtomicU8 = AtomicU8::new(u8::MAX);

thread_local! {
    static THREAD_CAP: Cell<Level> = const { Cell::new(Level::Avx512) };
}

/// The level kernel calls on this thread run with: the best this CPU
/// supports (detected once, cached), capped by `MINNOW_SIMD` (one of
/// [`SIMD_LEVELS`]) and by [`with_level`]. A `MINNOW_SIMD` that names no
/// level is not applied, with a warning on stderr; a front end refuses it
/// before any kernel runs ([`requested_level`]).
pub fn level() -> Level {
    let detected = match LEVEL.load(Ordering::Relaxed) {
        0 => Level::Scalar,
        1 => Level::Avx2,
        2 => Level::Avx512,
        _ => {
            let detected = detect().min(requested());
            LEVEL.store(detected as u8, Ordering::Relaxed);
            detected
        }
    };
    detected.min(THREAD_CAP.with(Cell::get))
}

/// Runs `f` with kernels on this thread capped at `cap` (never above what
/// the CPU supports), so tests can hold every compiled path to its twin.
pub fn with_level<R>(cap: Level, f: impl FnOnce() -> R) -> R {
    let before = THREAD_CAP.with(|c| c.replace(cap));
    let result = f();
    THREAD_CAP.with(|c| c.set(before));
    result
}

/// Every level this CPU can run, lowest first.
pub fn supported_levels() -> Vec<Level> {
    let best = detect();
    [Level::Scalar, Level::Avx2, Level::Avx512].into_iter().filter(|&l| l <= best).collect()
}

/// What `MINNOW_SIMD` may say, and the level each caps kernels at.
pub const SIMD_LEVELS: [(&str, Level); 3] =
    [("scalar", Level::Scalar), ("avx2", Level::Avx2), ("avx512", Level::Avx512)];

/// A `MINNOW_SIMD` that names none of [`SIMD_LEVELS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSimdLevel {
    /// The value found.
    pub found: String,
}

impl std::fmt::Display for UnknownSimdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = SIMD_LEVELS.iter().map(|(name, _)| *name).collect();
        write!(
            f,
            "MINNOW_SIMD={:?}: expected one of {} (or unset, for the best this CPU has)",
            self.found,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownSimdLevel {}

/// The cap `MINNOW_SIMD` asks for: `None` when it is unset (or empty), an
/// error when it names no level. Front ends call it first, to refuse a
/// mistyped value before anything runs.
pub fn requested_level() -> Result<Option<Level>, UnknownSimdLevel> {
    parse_level(std::env::var_os("MINNOW_SIMD").as_deref())
}

fn parse_level(value: Option<&std::ffi::OsStr>) -> Result<Option<Level>, UnknownSimdLevel> {
    let Some(value) = value.filter(|v| !v.is_empty()) else { return Ok(None) };
    let found = value.to_string_lossy();
    match SIMD_LEVELS.iter().find(|(name, _)| *name == found) {
        Some(&(_, level)) => Ok(Some(level)),
        None => Err(UnknownSimdLevel { found: found.into_owned() }),
    }
}

fn requested() -> Level {
    requested_level()
        .unwrap_or_else(|unknown| {
            eprintln!("warning: {unknown}; kernels run at the best level this CPU has");
            None
        })
        .unwrap_or(Level::Avx512)
}

static BF16: AtomicU8 = AtomicU8::new(u8::MAX);

/// Whether bf16 kernels on this thread run on the CPU's own bf16
/// dot-product instruction (AVX-512 BF16's `vdpbf16ps`) rather than their
/// portable fallback: the CPU has it (detected once, cached) and the
/// thread's [`level`] is [`Level::Avx512`] (so `MINNOW_SIMD` and
/// [`with_level`] turn it off too). A capability beside [`Level`], not a
/// level of its own: the f32 kernels never look at it.
pub fn bf16_native() -> bool {
    let detected = match BF16.load(Ordering::Relaxed) {
        0 => false,
        1 => true,
        _ => {
            let detected = detect_bf16();
            BF16.store(detected as u8, Ordering::Relaxed);
            detected
        }
    };
    detected && level() == Level::Avx512
}

#[cfg(target_arch = "x86_64")]
fn detect_bf16() -> bool {
    detect() == Level::Avx512 && is_x86_feature_detected!("avx512bf16")
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_bf16() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Level {
    if is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512dq")
        && is_x86_feature_detected!("fma")
    {
        Level::Avx512
    } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        Level::Avx2
    } else {
        Level::Scalar
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Level {
    Level::Scalar
}

/// Defines a kernel whose body is compiled once per [`Level`] and dispatched
/// once per call. The `check` block runs first, in the caller-facing
/// function, so its panics point at the caller.
///
/// The body is plain Rust written so that LLVM vectorises it (zipped
/// iterators, fixed-width accumulator arrays); the target-feature copies let
/// it use 512- or 256-bit registers and FMA. Other crates use it for their
/// own hot loops (the expansion holds the crate's only `unsafe`: the calls
/// into the target-feature copies):
///
/// ```
/// minnow_kernels::kernel! {
///     /// out = 2 x
///     pub fn double(x: &[f32], out: &mut [f32]);
///     check { assert_eq!(x.len(), out.len()) }
///     {
///         for (o, &v) in out.iter_mut().zip(x) {
///             *o = 2.0 * v;
///         }
///     }
/// }
/// let mut out = [0.0; 3];
/// double(&[1.0, 2.0, 3.0], &mut out);
/// assert_eq!(out, [2.0, 4.0, 6.0]);
/// ```
#[macro_export]
macro_rules! kernel {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;
        check $check:block
        $body:block
    ) => {
        $(#[$meta])*
        #[track_caller]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            $check
            // `FMA` tells the body whether fused multiply-adds are native
            // (they are a slow libm call on the baseline target).
            #[inline(always)]
            #[allow(unused)]
            fn body<const FMA: bool>($($arg: $ty),*) $(-> $ret)? $body

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            fn avx512($($arg: $ty),*) $(-> $ret)? { body::<true>($($arg),*) }

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            fn avx2($($arg: $ty),*) $(-> $ret)? { body::<true>($($arg),*) }

            match $crate::level() {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `level()` reports AVX-512 only when the CPU has every feature enabled above.
                $crate::Level::Avx512 => unsafe { avx512($($arg),*) },
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `level()` reports AVX2 only when the CPU has AVX2 and FMA.
                $crate::Level::Avx2 => unsafe { avx2($($arg),*) },
                _ => body::<false>($($arg),*),
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::{Level, parse_level};
    use std::ffi::OsStr;

    #[test]
    fn minnow_simd_takes_the_documented_names_and_refuses_the_rest() {
        let parse = |value: &str| parse_level(Some(OsStr::new(value)));
        assert_eq!(parse_level(None), Ok(None));
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("scalar"), Ok(Some(Level::Scalar)));
        assert_eq!(parse("avx2"), Ok(Some(Level::Avx2)));
        assert_eq!(parse("avx512"), Ok(Some(Level::Avx512)));
        for bad in ["Scalar", "AVX2", "garbage", " avx2", "sse"] {
            let e = parse(bad).unwrap_err().to_string();
            let want = format!("MINNOW_SIMD=\"{bad}\": expected one of scalar, avx2, avx512 (or unset");
            assert!(e.starts_with(&want), "{e}");
        }
    }
}
