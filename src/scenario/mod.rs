//! Scenario files: the YAML format of SPEC section 2, loaded strictly.
//!
//! Every struct denies unknown keys, so a typo is an error instead of a
//! silently different run. Values that need more than a type (a nag
//! threshold of `"off"` or at least 1, exactly one check kind, a workspace
//! path that stays inside) are checked while deserializing, so errors carry
//! the line and column of the offending value. [`load`] turns a file into a
//! validated [`Scenario`]; [`discover`] expands folders into files.

mod load;
mod types;

pub use load::{LoadError, discover, load, load_all, load_str};
pub use types::*;
