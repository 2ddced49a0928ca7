//! The summary `run` prints: per scenario, one row per matrix cell
//! (settings, runs, then the metric table's text columns: mean steps
//! completed with its 95% interval, completion rate, full-completion rate,
//! mean reminders, rejected updates, turns, protocol violations), then each
//! expectation with expected vs measured. The metric columns of every
//! table (text, sweep, Markdown, HTML) are formatted here.

use std::fmt::Write;
use tabled::builder::Builder;
use tabled::settings::Style;

use super::terminal::escape;
use crate::metric::{COMPLETION_RATE, Column, Columns, Format, METRICS, Metric};
use crate::results::pick::{ALPHA, SweepResult};
use crate::results::summary::p_text;
use crate::results::verdict::Verdict;
use crate::results::{CellSummary, ScenarioResult};
use crate::scenario::Axis;

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const RESET: &str = "\x1b[0m";

/// Formats a scenario's table and expectations; `color` marks the verdicts
/// with ANSI colours.
pub fn render(result: &ScenarioResult, color: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", escape(&result.name), escape(&result.file));
    if let Some(agent) = &result.agent {
        let _ = writeln!(out, "  {}", escape(agent));
    }
    if let Some(profile) = &result.profile {
        let _ = writeln!(
            out,
            "  profile {} (sha256 {})",
            escape(&profile.file),
            profile.sha256.get(..12).unwrap_or(&profile.sha256)
        );
    }
    out.push_str(&cells_table(&result.cells));
    out.push_str(&parts_table(&result.cells));
    for c in &result.comparisons {
        let (p, m) = (&c.stats.completion, &c.stats.full_completion);
        let _ = writeln!(
            out,
            "  {}: completion {:+.1} pts [{:+.1}, {:+.1}], sign test {}; full completion {}/{} discordant pairs, McNemar {}",
            escape(&c.what),
            p.mean_diff * 100.0,
            p.diff_ci95[0] * 100.0,
            p.diff_ci95[1] * 100.0,
            p_text(p.p_value),
            m.only_a,
            m.only_b,
            p_text(m.p_value)
        );
    }
    out.push('\n');
    for e in &result.expectations {
        let word = e.verdict.word();
        let mark = match (e.verdict, color) {
            (Verdict::Pass, true) => format!("{GREEN}{word}{RESET}  "),
            (Verdict::Fail, true) => format!("{RED}{word}{RESET}"),
            _ => format!("{word:<4}"),
        };
        if e.verdict == Verdict::NotApplicable {
            let why = e
                .detail
                .as_deref()
                .unwrap_or("the runs do not distinguish its sides");
            let _ = writeln!(
                out,
                "  {mark} {}: not applicable: {}",
                escape(&e.text),
                escape(why)
            );
            continue;
        }
        let _ = writeln!(out, "  {mark} {}: measured {}", escape(&e.text), e.measured);
        if !e.ok {
            if let Some(detail) = &e.detail {
                let _ = writeln!(out, "       {}", escape(detail));
            }
            for command in &e.replay {
                let _ = writeln!(out, "       see: {}", escape(command));
            }
        }
    }
    crate::report::escape::drop_bidi_owned(out)
}

/// Which steps get dropped: one row per scored step, one column per cell,
/// each the share of the cell's runs whose check of the step held.
pub fn steps_table(cells: &[CellSummary]) -> String {
    let with_rates: Vec<&CellSummary> = cells.iter().filter(|c| !c.step_rates.is_empty()).collect();
    let Some(first) = with_rates.first() else {
        return String::new();
    };
    let columns = super::axis_columns(with_rates.iter().map(|c| &c.settings));
    let mut builder = Builder::default();
    let mut header = vec!["step".to_string()];
    header.extend(with_rates.iter().map(|c| {
        let values = super::axis_values(&c.settings, &columns);
        columns
            .iter()
            .zip(values)
            .filter(|(_, value)| value != "-")
            .map(|(axis, value)| format!("{}={value}", axis.label()))
            .collect::<Vec<_>>()
            .join(" ")
    }));
    builder.push_record(header);
    for (index, step) in first.step_rates.iter().enumerate() {
        let mut row = vec![format!("#{} {}", step.id, shorten(&step.text, 40))];
        row.extend(with_rates.iter().map(|c| {
            c.step_rates
                .get(index)
                .map_or("-".to_string(), |s| format!("{:.0}%", s.rate * 100.0))
        }));
        builder.push_record(row);
    }
    let mut table = builder.build();
    table.with(Style::rounded());
    let mut text = table.to_string();
    text.push('\n');
    text
}

/// A session's figures per part and cell (nothing for a single task).
pub fn parts_table(cells: &[CellSummary]) -> String {
    let rows = super::part_rows(cells);
    if rows.is_empty() {
        return String::new();
    }
    let mut builder = Builder::default();
    for row in rows {
        builder.push_record(row.iter().map(|v| escape(v).into_owned()));
    }
    let mut table = builder.build();
    table.with(Style::rounded());
    let mut text = String::from("per part:\n");
    text.push_str(&table.to_string());
    text.push('\n');
    text
}

/// `text` cut to `max` characters with an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= max && line.len() == text.len() {
        return line.to_string();
    }
    let cut: String = line.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// What a metric column needs of a cell: the reported values and
/// intervals, and the steps scored. Cells in memory and cells read from a
/// JSON report (the HTML page) both provide it.
pub(super) trait MetricValues {
    fn value(&self, name: &str) -> f64;
    /// `None` when the cell does not carry the interval.
    fn interval(&self, name: &str) -> Option<[f64; 2]>;
    fn steps_total(&self) -> f64;
}

impl MetricValues for CellSummary {
    fn value(&self, name: &str) -> f64 {
        CellSummary::value(self, name)
    }

    fn interval(&self, name: &str) -> Option<[f64; 2]> {
        self.metric(name).and_then(|m| m.ci95)
    }

    fn steps_total(&self) -> f64 {
        self.steps_total as f64
    }
}

/// A metric's value in a column of the given format (HTML draws the bar of
/// [`Format::Bar`] around this text).
pub(super) fn metric_text(metric: &Metric, format: Format, cell: &impl MetricValues) -> String {
    let value = cell.value(metric.name);
    match format {
        Format::Decimals(places) => format!("{value:.places$}"),
        Format::Percent | Format::Bar => format!("{:.0}%", value * 100.0),
        Format::PercentWithCi => match cell.interval(metric.name) {
            Some([lo, hi]) => format!(
                "{:.1}% [{:.1}, {:.1}]",
                value * 100.0,
                lo * 100.0,
                hi * 100.0
            ),
            None => format!("{:.1}%", value * 100.0),
        },
        Format::StepsWithCi => {
            let total = cell.steps_total();
            let ci = cell
                .interval(COMPLETION_RATE)
                .map(|[lo, hi]| format!(" [{:.1}, {:.1}]", lo * total, hi * total))
                .unwrap_or_default();
            format!("{value:.1}/{total}{ci}")
        }
    }
}

/// The metrics a table shows, with their columns, in table order.
pub(super) fn shown(column: impl Fn(&Columns) -> Option<Column>) -> Vec<(&'static Metric, Column)> {
    METRICS
        .iter()
        .filter_map(|m| column(&m.columns).map(|c| (m, c)))
        .collect()
}

/// The cells as a table.
pub fn cells_table(cells: &[CellSummary]) -> String {
    let columns = super::axis_columns(cells.iter().map(|c| &c.settings));
    let metrics = shown(|c| c.text);
    let mut builder = Builder::default();
    let mut header: Vec<String> = columns.iter().map(Axis::label).collect();
    header.push("runs".to_string());
    header.extend(metrics.iter().map(|(_, c)| c.header.to_string()));
    builder.push_record(header);
    for cell in cells {
        let mut row = super::axis_values(&cell.settings, &columns);
        row.push(cell.runs.to_string());
        row.extend(metrics.iter().map(|(m, c)| metric_text(m, c.format, cell)));
        builder.push_record(row);
    }
    let mut table = builder.build();
    table.with(Style::rounded());
    let mut text = table.to_string();
    text.push('\n');
    text
}

/// The sweep table: one row per threshold with the todo tool, one baseline
/// row without it, then the recommendation and why.
pub fn sweep(result: &SweepResult) -> String {
    let axis = Axis::parse(&result.axis).ok();
    let axis_label = axis.as_ref().map_or(result.axis.clone(), Axis::label);
    let metrics = shown(|c| c.sweep);
    let mut builder = Builder::default();
    let mut header = vec!["todo", axis_label.as_str(), "runs"];
    header.extend(metrics.iter().map(|(_, c)| c.header));
    header.push("p vs leader");
    builder.push_record(header);
    let row = |cell: &CellSummary, value: String, p: String| {
        let mut row = vec![
            cell.settings.todo().to_string(),
            value,
            cell.runs.to_string(),
        ];
        row.extend(metrics.iter().map(|(m, c)| metric_text(m, c.format, cell)));
        row.push(p);
        row
    };
    let value_of = |cell: &CellSummary| {
        axis.as_ref()
            .and_then(|a| cell.settings.get(a))
            .map_or("-".to_string(), ToString::to_string)
    };
    for (cell, p) in result.with_todo.iter().zip(&result.p_vs_leader) {
        let is_leader = axis.as_ref().and_then(|a| cell.settings.get(a)) == result.leader.as_ref();
        let p = if is_leader {
            "leader".to_string()
        } else {
            p_text(*p)
        };
        builder.push_record(row(cell, value_of(cell), p));
    }
    builder.push_record(row(&result.without_todo, "-".into(), String::new()));
    let mut table = builder.build();
    table.with(Style::rounded());
    let shown =
        |v: &Option<crate::scenario::AxisValue>| v.map_or("-".to_string(), |v| v.to_string());
    let (what, best_what) = if result.axis == "nag_threshold" {
        ("nag threshold".to_string(), "threshold".to_string())
    } else {
        (result.axis.clone(), result.axis.clone())
    };
    let mut out = format!("{} — {what} sweep\n{table}\n", escape(&result.scenario));
    let _ = writeln!(
        out,
        "best {best_what}: {} (fewest context tokens per run among values whose completion is within {:.1} points of the leader's, {axis_label} {}, and not significantly below it: paired sign test, p >= {ALPHA})",
        shown(&result.best),
        result.min_effect * 100.0,
        shown(&result.leader)
    );
    out
}
