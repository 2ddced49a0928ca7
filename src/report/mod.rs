//! Reporters: each turns finished results into one output format.
//!
//! - [`table`]: the human summary `run` prints (one table per scenario);
//! - [`json`]: the machine report of SPEC section 7 (`--json`);
//! - [`transcript`]: a replayed run as a readable conversation.

pub mod json;
pub mod table;
pub mod transcript;
