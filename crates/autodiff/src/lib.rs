//! minnow's autodiff: a tape of recorded ops and its reverse pass.

mod error;
mod params;

pub use error::{Error, Result};
pub use params::{ParamId, Params};
