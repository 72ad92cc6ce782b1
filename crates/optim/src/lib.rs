//! minnow's optimisers: SGD (momentum, Nesterov), Adam, AdamW, RMSprop and
//! AdaGrad with PyTorch's formulas and defaults, each step one fused pass
//! over the flat parameter, gradient and state buffers of a [`Params`]
//! store; gradient clipping; learning-rate schedules.
//!
//! Optimisers are built from validated configs, which allocate their state
//! once; a step allocates nothing. A step (and clipping) refuses gradients
//! holding NaN or an infinity with [`OptimError::NonFiniteGradient`],
//! naming the parameter, and then changes nothing.
//!
//! ```
//! use minnow_autodiff::Params;
//! use minnow_optim::{AdamConfig, Optimizer, ScheduleConfig, clip_grad_norm};
//!
//! let mut params = Params::new();
//! params.add("w", &[2], |v| v.copy_from_slice(&[1.0, -1.0])).unwrap();
//! let mut adam = AdamConfig { lr: 0.1, ..AdamConfig::default() }.build(&params).unwrap();
//! let schedule = ScheduleConfig::cosine(0.1, 100, 0.0).with_warmup(10, 0.1).build().unwrap();
//! params.grads_mut()[..2].copy_from_slice(&[3.0, 4.0]);
//! assert_eq!(clip_grad_norm(&mut params, 1.0).unwrap(), 5.0);
//! schedule.apply(&mut adam);
//! adam.step(&mut params).unwrap();
//! assert_eq!(adam.step_count(), 1);
//!
//! params.grads_mut()[1] = f32::NAN;
//! let refused = adam.step(&mut params).unwrap_err();
//! assert_eq!(
//!     refused.to_string(),
//!     "parameter 'w': the gradient is not finite (NaN at index 1); refusing to update, nothing was changed"
//! );
//! assert_eq!(adam.step_count(), 1);
//! ```
//!
//! [`Params`]: minnow_autodiff::Params

#![warn(missing_docs)]

mod adagrad;
mod adam;
mod bands;
mod clip;
mod error;
mod optimizer;
mod rmsprop;
mod schedule;
mod sgd;
mod stepper;

pub use adagrad::{AdaGrad, AdaGradConfig};
pub use adam::{Adam, AdamConfig, AdamW, AdamWConfig};
pub use clip::{clip_grad_norm, clip_grad_value};
pub use error::{OptimError, Result};
pub use minnow_config::{Check, ConfigError, Found};
pub use optimizer::{Optimizer, load_state_by_param, split_state, state_by_param};
pub use rmsprop::{RmsProp, RmsPropConfig};
pub use schedule::{Decay, Schedule, ScheduleConfig, Warmup};
pub use sgd::{Sgd, SgdConfig};
