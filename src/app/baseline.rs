//! `--baseline FILE` on `run`: the cells to gate against, from an earlier
//! JSON report or from a results history (`--history`). The two are told
//! apart by content, not by name: a file that starts with SQLite's header
//! is read as a history (and refused, untouched, when it is not
//! agent-eval's), anything else as a report. From a history, each scenario
//! is compared with the last whole run recorded for the same scenario file
//! (its SHA-256) on `--baseline-branch`, by default the branch being
//! evaluated, falling back to any branch when that one has none; scenarios
//! with no recorded run are named in a warning and not gated.

use std::io::{Read, Write};
use std::path::Path;

use super::AppError;
use crate::report::terminal::escape;
use crate::results::baseline::CellRates;
use crate::results::history::{BaselineRun, BranchChoice, History, HistoryBaseline, short_commit};
use crate::results::report_file::ReportFile;
use crate::scenario::Scenario;

/// Whether `path` starts with SQLite's header (read without blocking on a
/// FIFO; anything unreadable is left to the report reader to explain).
pub(crate) fn is_sqlite(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut magic = Vec::with_capacity(16);
    file.take(16).read_to_end(&mut magic).is_ok() && magic == b"SQLite format 3\0"
}

/// The baseline cells for `scenarios`; notes where a history's figures
/// come from, and which scenarios have none, on `err`.
pub(crate) fn read(
    path: &Path,
    branch: Option<&str>,
    scenarios: &[Scenario],
    err: &mut dyn Write,
) -> Result<Vec<CellRates>, AppError> {
    if !is_sqlite(path) {
        return Ok(ReportFile::read(path)?.rates());
    }
    let history = History::open_existing(path)?;
    let choice = match branch {
        Some(name) => BranchChoice::Only(name.to_string()),
        None => {
            let folder = scenarios.first().and_then(|s| s.file.parent());
            super::history::current_branch(folder).map_or(BranchChoice::Any, BranchChoice::Prefer)
        }
    };
    let keys: Vec<(&str, &str, Option<&str>)> = scenarios
        .iter()
        .map(|s| {
            let profile = s.profile.as_ref().map(|p| p.sha256.as_str());
            (s.name.as_str(), s.sha256.as_str(), profile)
        })
        .collect();
    let found = history.baseline(&keys, &choice)?;
    let _ = write!(err, "{}", notes(path, &choice, &found));
    Ok(found.cells)
}

/// One line per scenario compared (with the commit and branch of its
/// baseline) and a warning naming the scenarios without one.
fn notes(path: &Path, choice: &BranchChoice, found: &HistoryBaseline) -> String {
    let mut text = String::new();
    let file = escape(&path.display().to_string()).into_owned();
    let place = match choice {
        BranchChoice::Only(b) => format!("on branch {}", escape(b)),
        _ => "on any branch".into(),
    };
    // None has a baseline (a new history, or every file changed): one
    // line, not a list of every scenario.
    if found.runs.is_empty() && found.missing.len() > 1 {
        return format!(
            "warning: {file} holds no recorded run of this version of any of these {} scenarios {place}: none is gated this time\n",
            found.missing.len(),
        );
    }
    // Every scenario against the same recorded invocation: one line.
    let origin = |run: &BaselineRun| {
        (
            run.commit.clone(),
            run.branch.clone(),
            run.recorded_at.clone(),
        )
    };
    let one_origin = found.runs.len() > 1
        && found
            .runs
            .iter()
            .all(|r| Some(origin(r)) == found.runs.first().map(origin));
    if let Some(first) = found.runs.first().filter(|_| one_origin) {
        let commit = short_commit(first.commit.as_deref());
        text.push_str(&format!(
            "baseline: {} scenarios against {file}: commit {} on {}, recorded {}\n",
            found.runs.len(),
            escape(&commit),
            escape(first.branch.as_deref().unwrap_or("no branch")),
            escape(&first.recorded_at)
        ));
    }
    for run in found.runs.iter().filter(|_| !one_origin) {
        let commit = short_commit(run.commit.as_deref());
        text.push_str(&format!(
            "baseline: {} against {file}: commit {} on {}, recorded {}\n",
            escape(&run.scenario),
            escape(&commit),
            escape(run.branch.as_deref().unwrap_or("no branch")),
            escape(&run.recorded_at)
        ));
    }
    if !found.missing.is_empty() {
        let names: Vec<String> = found
            .missing
            .iter()
            .map(|n| escape(n).into_owned())
            .collect();
        text.push_str(&format!(
            "warning: {file} holds no recorded run of this version of {} {place}; not gated: {}\n",
            if names.len() == 1 {
                "scenario"
            } else {
                "scenarios"
            },
            names.join(", ")
        ));
    }
    text
}
