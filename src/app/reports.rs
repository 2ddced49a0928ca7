//! `agent-eval merge` and `agent-eval diff`: commands over saved reports.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{AppError, Status, write_atomic};
use crate::report::baseline;
use crate::report::json::{self, Report, ReportFile};

/// `agent-eval merge`: shard reports into the full report.
pub fn merge(
    parts: &[PathBuf],
    json_out: Option<&Path>,
    out: &mut dyn Write,
) -> Result<Status, AppError> {
    let reports = parts
        .iter()
        .map(|p| ReportFile::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let (results, errors) = json::merge(reports)?;
    let report = Report::new(&results, errors);
    let text = report.to_json();
    match json_out {
        Some(path) => write_atomic(path, text.as_bytes())?,
        None => {
            let _ = out.write_all(text.as_bytes());
        }
    }
    Ok(if report.ok {
        Status::Passed
    } else {
        Status::ExpectationsFailed
    })
}

/// `agent-eval diff OLD NEW`: what moved between two reports.
pub fn diff(
    old: &Path,
    new: &Path,
    tolerance: f64,
    out: &mut dyn Write,
) -> Result<Status, AppError> {
    let old = ReportFile::read(old)?.rates();
    let new = ReportFile::read(new)?.rates();
    let diffs = baseline::compare(&old, &new, tolerance);
    let _ = write!(out, "{}", baseline::render(&diffs, tolerance));
    Ok(if baseline::regressed(&diffs) {
        Status::ExpectationsFailed
    } else {
        Status::Passed
    })
}
