//! The one home of config errors, below every crate that validates a
//! config: a value out of range is a [`ConfigError`] naming the config,
//! the key (with its section: `replay.capacity`), what it should be and
//! what it was, and [`Check`] is the range check that makes one.
//!
//! ```
//! use minnow_config::Check;
//!
//! let e = Check("DqnConfig").unit_closed("gamma", 1.5).unwrap_err();
//! assert_eq!(e.to_string(), "DqnConfig.gamma: expected a value in [0, 1], found 1.5");
//! assert_eq!((e.config, e.key), ("DqnConfig", "gamma"));
//! ```

#![warn(missing_docs)]

use std::fmt;

/// A config value out of range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{config}.{key}: expected {expected}, found {found}")]
pub struct ConfigError {
    /// The config struct (`DqnConfig`).
    pub config: &'static str,
    /// The key, with its section (`replay.capacity`).
    pub key: &'static str,
    /// What it should be, in words.
    pub expected: &'static str,
    /// What it was.
    pub found: Found,
}

/// The value a [`ConfigError`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    /// A real number.
    Value(f32),
    /// A count or size.
    Count(u64),
    /// Anything else, as text.
    Text(String),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Value(v) => write!(f, "{v}"),
            Found::Count(n) => write!(f, "{n}"),
            Found::Text(text) => f.write_str(text),
        }
    }
}

/// A check's result.
pub type Result<T = (), E = ConfigError> = std::result::Result<T, E>;

/// Range checks for one config struct, naming it in every error: the
/// workspace's one validation helper. `Check("DqnConfig").unit_closed("gamma",
/// 1.5)` is the error "DqnConfig.gamma: expected a value in [0, 1], found
/// 1.5"; nested keys are named by their path (`"replay.capacity"`).
#[derive(Clone, Copy, Debug)]
pub struct Check(pub &'static str);

impl Check {
    /// The error for a real value out of range.
    pub fn value(&self, key: &'static str, expected: &'static str, found: f32) -> ConfigError {
        self.error(key, expected, Found::Value(found))
    }

    /// The error for a count out of range.
    pub fn count(&self, key: &'static str, expected: &'static str, found: u64) -> ConfigError {
        self.error(key, expected, Found::Count(found))
    }

    /// The error for any other value, shown as `found`.
    pub fn error(&self, key: &'static str, expected: &'static str, found: Found) -> ConfigError {
        ConfigError { config: self.0, key, expected, found }
    }

    /// `lo <= v <= hi` for a count, `expected` saying so in words.
    pub fn count_in(&self, key: &'static str, expected: &'static str, v: u64, lo: u64, hi: u64) -> Result {
        if (lo..=hi).contains(&v) { Ok(()) } else { Err(self.count(key, expected, v)) }
    }

    /// Finite (dampening, gamma-like factors with no sign rule).
    pub fn finite(&self, key: &'static str, v: f32) -> Result {
        if v.is_finite() { Ok(()) } else { Err(self.value(key, "a finite value", v)) }
    }

    /// Finite and >= 0 (learning rates, weight decay, momentum).
    pub fn non_negative(&self, key: &'static str, v: f32) -> Result {
        if v.is_finite() && v >= 0.0 { Ok(()) } else { Err(self.value(key, "a finite value >= 0", v)) }
    }

    /// Finite and > 0 (eps).
    pub fn positive(&self, key: &'static str, v: f32) -> Result {
        if v.is_finite() && v > 0.0 { Ok(()) } else { Err(self.value(key, "a finite value > 0", v)) }
    }

    /// In [0, 1) (Adam's betas).
    pub fn unit_open(&self, key: &'static str, v: f32) -> Result {
        if (0.0..1.0).contains(&v) { Ok(()) } else { Err(self.value(key, "a value in [0, 1)", v)) }
    }

    /// In [0, 1] (RMSprop's alpha).
    pub fn unit_closed(&self, key: &'static str, v: f32) -> Result {
        if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(self.value(key, "a value in [0, 1]", v)) }
    }

    /// In (0, 1] (a warm-up's start factor).
    pub fn fraction(&self, key: &'static str, v: f32) -> Result {
        if v > 0.0 && v <= 1.0 { Ok(()) } else { Err(self.value(key, "a value in (0, 1]", v)) }
    }

    /// A step count >= 1.
    pub fn at_least_one(&self, key: &'static str, v: u64) -> Result {
        self.count_in(key, "at least 1", v, 1, u64::MAX)
    }
}
