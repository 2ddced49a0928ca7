//! Floor 6: what an evaluation yields, and what is read back from it.
//!
//! From the bottom up: [`stats`]: intervals, paired tests and how numbers
//! are rounded; [`format`](mod@format): how a number is shown to a person (one unit and
//! one format for every report); [`json_layout`]: the layout every JSON
//! document is written in; [`record`]: one run's record; [`record_json`]:
//! a run record written as the report prints it; [`run_counts`]: what each
//! counted metric counts on a run; [`exact_tally`]: whether a cell's runs
//! agree on each exact measure; [`cell_runs`]: a cell's runs, kept compact or
//! spilled to disk; [`metric_values`]: the metric table
//! ([`crate::metric`]) applied to runs; [`summary`]: a cell's summary;
//! [`parts`]: a session's runs read part by part; [`compare`]: paired
//! comparisons between cells; [`verdict`]: expectations checked against the
//! cells; [`scenario_result`]: a scenario's cells, comparisons and
//! expectation outcomes; [`baseline`]: what moved against an earlier
//! report; [`shard`]: which units a shard runs; [`report_file`]: the JSON
//! report read back and checked; [`merge`]: shard reports combined into
//! one run's results; [`pick`]: a sweep's
//! result and the value it recommends; [`history`]: the SQLite results
//! history over invocations. Each file imports only those before it. The engine ([`crate::eval`]) fills these; the renderers
//! ([`crate::report`]) and the commands ([`crate::app`]) read them.

pub mod baseline;
pub mod cell_runs;
pub mod compare;
pub mod error;
pub mod exact_tally;
pub mod format;
pub mod history;
pub mod json_layout;
pub mod merge;
pub mod metric_values;
pub mod parts;
pub mod pick;
pub mod record;
pub mod record_json;
pub mod report_file;
pub mod run_counts;
pub mod run_rows;
pub mod scenario_result;
pub mod shard;
pub mod stats;
pub mod summary;
pub mod verdict;

pub use cell_runs::{RunRow, Runs};
pub use record::{RunRecord, RunResult};
pub use scenario_result::ScenarioResult;
pub use summary::CellSummary;
pub use verdict::ExpectationOutcome;
