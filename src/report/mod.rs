//! Reporters: each turns finished results into one output format.
//!
//! - [`table`]: the human summary `run` prints (one table per scenario);
//! - [`json`]: the machine report of SPEC section 7 (`--json`), read back
//!   for `merge`, `diff` and `--baseline`;
//! - [`junit`]: JUnit XML (`--junit`);
//! - [`markdown`]: a CI job summary (`--markdown`);
//! - [`baseline`]: what moved against a baseline report;
//! - [`svg`]: the sweep chart (`sweep --svg`);
//! - [`html`]: one self-contained page (`--html`) built from the JSON
//!   report and the logged transcripts;
//! - [`transcript`]: a replayed run as a readable conversation.

pub mod baseline;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod svg;
pub mod table;
pub mod transcript;
