//! Reporters: each turns finished results into one output format.
//!
//! - [`table`]: the human summary `run` prints (one table per scenario),
//!   fitted within 120 columns by [`fit`];
//! - [`json`]: the machine report (`--json`, docs/json-report.md), read back
//!   for `merge`, `diff` and `--baseline`;
//! - [`junit`]: JUnit XML (`--junit`);
//! - [`markdown`]: a CI job summary (`--markdown`, and GitHub's
//!   `$GITHUB_STEP_SUMMARY`);
//! - [`findings`]: the failures a CI page points at, with file and line,
//!   rendered as GitHub annotations ([`github`]) and a GitLab Code Quality
//!   report ([`codequality`]);
//! - [`baseline`]: what moved against a baseline report;
//! - [`diff_markdown`]: the same as a pull-request comment (`diff --markdown`);
//! - [`svg`]: the sweep chart (`sweep --svg`), failing with a
//!   [`chart_error::ChartError`] as the trend chart does;
//! - [`html`]: one self-contained page (`--html`) built from the JSON
//!   report and the logged transcripts, opened by its headline
//!   ([`html_headline`]);
//! - [`transcript`]: a replayed run as a readable conversation;
//! - [`log`]: run log records (`--log-dir`) and replay commands.
//! - [`terminal`]: escaping what scenarios and models wrote for a terminal.

pub mod baseline;
pub mod chart_error;
pub mod codequality;
pub mod diff_markdown;
pub mod escape;
pub mod findings;
pub mod fit;
pub mod github;
pub mod html;
pub mod html_headline;
pub mod html_runs;
pub mod json;
pub mod junit;
pub mod log;
pub mod markdown;
pub mod svg;
pub mod table;
pub mod terminal;
pub mod transcript;
pub mod trend_html;
pub mod trend_svg;
pub mod workflow_safe;

use crate::scenario::{Axis, CellSettings};

/// The axes any of `settings` lists, in axis order: the setting columns of
/// a table.
pub fn axis_columns<'a>(settings: impl IntoIterator<Item = &'a CellSettings>) -> Vec<Axis> {
    let mut axes: Vec<Axis> = Vec::new();
    for s in settings {
        for (axis, _) in s.entries() {
            if !axes.contains(axis) {
                axes.push(axis.clone());
            }
        }
    }
    axes.sort();
    axes
}

/// A session's per-part figures as table rows: per cell and part, the
/// cell's axis values, then part, runs, completion, full completion, mean
/// turns, todo calls and reminders (text, already formatted). The header
/// row comes first; no rows at all for a scenario without parts.
pub fn part_rows(cells: &[crate::results::summary::CellSummary]) -> Vec<Vec<String>> {
    let per_cell: Vec<_> = cells
        .iter()
        .map(|c| (c, part_summaries(c)))
        .filter(|(_, parts)| !parts.is_empty())
        .collect();
    if per_cell.is_empty() {
        return Vec::new();
    }
    let columns = axis_columns(per_cell.iter().map(|(c, _)| &c.settings));
    let mut header: Vec<String> = columns.iter().map(Axis::label).collect();
    header.extend(
        [
            "part",
            "runs",
            "completion",
            "full",
            "turns",
            "todo calls",
            "reminders",
        ]
        .map(String::from),
    );
    let mut rows = vec![header];
    for (cell, parts) in per_cell {
        for p in parts {
            let mut row = axis_values(&cell.settings, &columns);
            row.extend([
                p.part.to_string(),
                p.runs.to_string(),
                format!("{:.0}%", p.completion_rate * 100.0),
                format!("{:.0}%", p.full_completion_rate * 100.0),
                format!("{:.1}", p.mean_turns),
                format!("{:.2}", p.mean_todo_calls),
                format!("{:.2}", p.mean_reminders),
            ]);
            rows.push(row);
        }
    }
    rows
}

/// One part's figures over a cell's runs.
#[derive(Debug, Clone, PartialEq)]
struct PartSummary {
    /// 1-based.
    part: usize,
    runs: usize,
    steps_total: usize,
    completion_rate: f64,
    full_completion_rate: f64,
    mean_turns: f64,
    mean_todo_calls: f64,
    mean_reminders: f64,
}

/// Each part's figures over `cell`'s runs (rounded to 6 decimals); empty
/// when its runs have no parts (a single task) or their records are not
/// kept.
fn part_summaries(cell: &crate::results::summary::CellSummary) -> Vec<PartSummary> {
    // No run has parts: nothing to read back (every record of the cell
    // would be parsed only to find that out).
    if cell.results.totals().max_parts == 0 {
        return Vec::new();
    }
    let runs: Vec<crate::results::record::RunResult> =
        cell.results.records().map_while(Result::ok).collect();
    let parts = runs.iter().map(|r| r.parts.len()).max().unwrap_or(0);
    (1..=parts)
        .map(|part| {
            let views: Vec<crate::results::record::RunResult> = runs
                .iter()
                .map(|r| crate::results::parts::part_view(r, part))
                .collect();
            let n = views.len().max(1) as f64;
            let mean = |f: &dyn Fn(&crate::results::record::RunResult) -> f64| {
                crate::results::summary::round6(views.iter().map(f).sum::<f64>() / n)
            };
            PartSummary {
                part,
                runs: views.len(),
                steps_total: views.first().map_or(0, |r| r.steps_total),
                completion_rate: mean(&|r| r.completion()),
                full_completion_rate: mean(&|r| f64::from(u8::from(r.fully_completed()))),
                mean_turns: mean(&|r| r.turns as f64),
                mean_todo_calls: mean(&|r| r.todo_calls as f64),
                mean_reminders: mean(&|r| r.reminders_at.len() as f64),
            }
        })
        .collect()
}

/// A cell's value in each column (`-` where the cell does not list it).
pub fn axis_values(settings: &CellSettings, columns: &[Axis]) -> Vec<String> {
    columns
        .iter()
        .map(|axis| {
            settings
                .get(axis)
                .map_or("-".to_string(), ToString::to_string)
        })
        .collect()
}
