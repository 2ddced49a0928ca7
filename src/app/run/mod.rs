//! `agent-eval run`: every scenario, its tables, reports, run logs and
//! gates, in phases that each do one thing:
//!
//! 1. **admit** (`admit.rs`): every input is read and checked — flags,
//!    report paths, baseline, history, scenario files — before anything
//!    runs;
//! 2. **plan**: the (scenario, cell, seed) units, counted against the cap;
//! 3. **evaluate** (`evaluate.rs`): the engine runs them and emits events to
//!    the reporters (`reporters.rs`: progress bar, run log, ...);
//! 4. **conclude** (`conclude.rs`): what the runs mean (run errors, replays,
//!    the baseline comparison, the report);
//! 5. **write**: every reporter writes its output from the final results
//!    (summary, history, JSON, JUnit, Markdown, HTML; `outputs.rs`);
//! 6. **gate**: the exit status.

mod admit;
mod ci_outputs;
mod conclude;
mod config;
mod evaluate;
mod filter;
mod list;
mod outputs;
mod profile_note;
mod reporters;
mod run_log;
mod scenario_lines;
mod summary;

use std::io::Write;

pub use config::{ReportPaths, RunConfig};
pub use filter::NameFilter;
pub(crate) use outputs::report_writers;
pub(crate) use reporters::{Finished, Reporters, Streams};
pub(crate) use summary::{plural, print_failures};

use admit::{Admission, Admitted, admit};
use conclude::{Concluded, conclude};

use super::{AppError, Status};
use crate::eval;

/// Runs every scenario, prints the tables and failed expectations to `out`,
/// load errors to `err`, writes the reports asked for, and gates on the
/// baseline if one is given.
pub fn run(
    config: &RunConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    let mut admitted = match admit(config, err)? {
        Admission::Ready(admitted) => admitted,
        Admission::Stop(status) => return Ok(status),
    };
    if config.list {
        list::list(
            &admitted.scenarios,
            &admitted.options,
            &admitted.estimate,
            out,
        )?;
        return Ok(gate_list(&admitted));
    }
    // Counted before anything runs: a run over the cap is refused whole.
    let plan = eval::plan(&admitted.scenarios, &admitted.options)?;
    let history = admitted.history.take();
    let admitted = &*admitted;
    let mut reporters = outputs::reporters_for(
        config,
        &admitted.scenarios,
        &plan,
        history,
        admitted.report_on_stdout,
    )?;
    let evaluated = evaluate::evaluate(
        &admitted.scenarios,
        &plan,
        &admitted.options,
        config.fail_fast,
        &mut reporters,
    )?;
    let Some(results) = evaluated else {
        let _ = writeln!(
            err,
            "interrupted: runs stopped early; no report was written"
        );
        return Ok(Status::Interrupted);
    };
    let concluded = conclude(config, admitted, plan.len(), results, err);
    let report = concluded.report(config, plan.total());
    reporters.write(&concluded.finished(&report), &mut Streams { out, err })?;
    Ok(gate(config, &concluded, report.ok))
}

/// `--list` ran nothing: it fails only on bad input.
fn gate_list(admitted: &Admitted) -> Status {
    if admitted.errors.is_empty() {
        Status::Passed
    } else {
        Status::BadInput
    }
}

/// The exit status: bad input first, then any failed expectation,
/// regressed cell, run not started or scenario not run (a shard checks no
/// expectation).
fn gate(config: &RunConfig, concluded: &Concluded, report_ok: bool) -> Status {
    if concluded.bad_files > 0 || concluded.run_failures > 0 {
        Status::BadInput
    } else if config.shard.is_some()
        || (report_ok
            && !concluded.regressed()
            && !concluded.not_started
            && concluded.skipped.is_empty())
    {
        Status::Passed
    } else {
        Status::ExpectationsFailed
    }
}
