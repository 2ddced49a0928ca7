//! `agent-eval check`: validate scenarios without running them.

use std::io::Write;
use std::path::PathBuf;

use super::{AppError, Status, no_scenarios};
use crate::report::terminal::escape;
use crate::{eval, scenario};

/// `agent-eval check`: validates scenarios; lists each with its matrix.
/// A matrix over the run cap (`max_runs`, default
/// [`eval::DEFAULT_MAX_RUNS`]) is an error of its file, as `run` sees it.
pub fn check(
    paths: &[PathBuf],
    max_runs: Option<u64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    let (scenarios, mut errors) = scenario::load_all(paths);
    let (scenarios, over_cap) = eval::admit(
        scenarios,
        &eval::EvalOptions {
            max_runs,
            ..eval::EvalOptions::default()
        },
    );
    errors.extend(over_cap);
    for s in &scenarios {
        let cells = eval::matrix::cells(s);
        let _ = writeln!(
            out,
            "ok {} ({}): {} steps, {} cells, {} expectations",
            escape(&s.file.display().to_string()),
            escape(&s.name),
            s.steps.len(),
            cells.len(),
            s.expect.len()
        );
    }
    for e in &errors {
        let _ = writeln!(err, "error: {}", escape(&e.to_string()));
    }
    if scenarios.is_empty() && errors.is_empty() {
        return Err(AppError::Usage(no_scenarios(paths)));
    }
    Ok(if errors.is_empty() {
        Status::Passed
    } else {
        Status::BadInput
    })
}
