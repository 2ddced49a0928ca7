//! Floor 6: what an evaluation yields, and what is read back from it.
//!
//! [`record`]: one run's record; [`runs`]: a cell's runs, kept compact or
//! spilled to disk; [`stats`]: intervals and paired tests;
//! [`metric_values`]: the metric table ([`crate::metric`]) applied to a
//! cell's runs; [`summary`]: a cell's summary and a scenario's result;
//! [`expect`]: expectations checked against them; [`parts`]: a
//! session's runs read part by part; [`compare`]: paired
//! comparisons between cells; [`baseline`]: what moved against an earlier
//! report. The engine ([`crate::eval`]) fills these; the renderers
//! ([`crate::report`]) and the commands ([`crate::app`]) read them.

pub mod baseline;
pub mod compare;
pub mod expect;
pub mod metric_values;
pub mod parts;
pub mod record;
pub mod runs;
pub mod stats;
pub mod summary;
