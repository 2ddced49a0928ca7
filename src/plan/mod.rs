//! Floor 2: the planning designs under test.
//!
//! [`dialect`]: one planning-tool design a file (the plan items, the tool
//! schemas from a JSON file beside it, validation, result texts); [`todo`](mod@todo): s03's TodoManager, which
//! the s03 dialects wrap; [`reminder`]: the reminder policies and where a
//! reminder goes; [`pyrepr`]: Python's `repr`/`str` spellings the
//! reference's texts use. Built on [`crate::llm`] only; the loop
//! ([`crate::agent`]) and the models ask these, never the other way round.

pub mod dialect;
pub mod pyrepr;
pub mod reminder;
pub mod todo;

pub use dialect::{Dialect, PlanDialect, PlanItem, PlanStatus};
