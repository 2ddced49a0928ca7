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
use crate::metric::{
    COMPLETION_RATE, Column, Columns, Format, MEAN_CONTEXT_TOKENS, METRICS, Metric,
};
use crate::results::compare::CellComparison;
use crate::results::format;
use crate::results::pick::{ALPHA, PickRule, SweepResult};
use crate::results::summary::p_text;
use crate::results::verdict::Verdict;
use crate::results::{CellSummary, ScenarioResult};
use crate::scenario::Axis;

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const RESET: &str = "\x1b[0m";

/// How much of a scenario the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// What a person reads first: failures, the table (without columns
    /// that are zero in every cell), the comparisons that differ (the
    /// rest counted by family), the expectations that held counted when
    /// there are many.
    #[default]
    Brief,
    /// `--verbose`: every column, every comparison, every expectation.
    Full,
}

/// Held expectations listed one by one up to this many (more are counted).
const HELD_LISTED: usize = 6;

/// A p-value below which a comparison is said to differ.
const DIFFERS_BELOW: f64 = 0.05;

/// Formats a scenario: failed expectations first, then the table, the
/// comparisons and the expectations that held; `color` marks the verdicts
/// with ANSI colours.
pub fn render(result: &ScenarioResult, color: bool, detail: Detail) -> String {
    let mut out = String::new();
    let runs: usize = result.cells.iter().map(|c| c.runs).sum();
    let _ = writeln!(
        out,
        "{} ({}): {} cell{}, {} run{}",
        escape(&result.name),
        escape(&result.file),
        result.cells.len(),
        plural(result.cells.len()),
        format::thousands(runs as u64),
        plural(runs)
    );
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
    let (held, failed): (Vec<_>, Vec<_>) = result.expectations.iter().partition(|e| e.ok);
    for e in &failed {
        expectation_line(&mut out, e, color);
    }
    out.push_str(&cells_table_with(&result.cells, detail));
    out.push_str(&parts_table(&result.cells));
    comparisons(&mut out, &result.comparisons, detail);
    if detail == Detail::Full || held.len() <= HELD_LISTED {
        for e in &held {
            expectation_line(&mut out, e, color);
        }
    } else {
        let _ = writeln!(
            out,
            "  {} {} expectations held (--verbose lists them)",
            mark(true, color),
            held.len()
        );
    }
    crate::report::escape::drop_bidi_owned(super::fit::lines(&out))
}

/// How a scenario of a run is shown in the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// `--quiet` and it passed.
    Hidden,
    /// It passed and the run has other scenarios: [`one_line`].
    OneLine,
    /// [`render`].
    Whole,
}

/// How `run` and `merge` show `result`, one of `count` scenarios: a
/// failing scenario (or the only one) whole, a passing one of several on
/// one line unless `--verbose`, nothing of a passing one with `--quiet`.
pub fn showing(result: &ScenarioResult, count: usize, quiet: bool, detail: Detail) -> Shown {
    match (result.ok(), quiet) {
        (false, _) => Shown::Whole,
        (true, true) => Shown::Hidden,
        (true, false) if count > 1 && detail == Detail::Brief => Shown::OneLine,
        (true, false) => Shown::Whole,
    }
}

/// The closing line of a rendered table (newline included; empty for no
/// text): what `--quiet` shows of a comparison or a sweep.
pub fn closing_line(text: &str) -> String {
    text.lines()
        .last()
        .map(|l| format!("{l}\n"))
        .unwrap_or_default()
}

/// One line for a scenario whose expectations all held (a run of several
/// scenarios shows the others in full).
pub fn one_line(result: &ScenarioResult, color: bool) -> String {
    let runs: usize = result.cells.iter().map(|c| c.runs).sum();
    let held = result.expectations.len();
    format!(
        "{} {} ({}): {} cell{}, {} run{}, {held} expectation{} held\n",
        mark(true, color),
        escape(&result.name),
        escape(&result.file),
        result.cells.len(),
        plural(result.cells.len()),
        format::thousands(runs as u64),
        plural(runs),
        plural(held)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn mark(ok: bool, color: bool) -> String {
    match (ok, color) {
        (true, false) => "ok  ".to_string(),
        (false, false) => "FAIL".to_string(),
        (true, true) => format!("{GREEN}ok{RESET}  "),
        (false, true) => format!("{RED}FAIL{RESET}"),
    }
}

fn expectation_line(out: &mut String, e: &crate::results::ExpectationOutcome, color: bool) {
    if e.verdict == Verdict::NotApplicable {
        let why = e
            .detail
            .as_deref()
            .unwrap_or("the runs do not distinguish its sides");
        let _ = writeln!(
            out,
            "  n/a  {}: not applicable: {}",
            escape(&e.text),
            escape(why)
        );
        return;
    }
    let _ = writeln!(
        out,
        "  {} {}: measured {}",
        mark(e.ok, color),
        escape(&e.text),
        escape(&format::measured(&e.text, &e.measured))
    );
    if !e.ok {
        if let Some(detail) = &e.detail {
            let _ = writeln!(out, "       {}", escape(detail));
        }
        for command in &e.replay {
            let _ = writeln!(out, "       see: {}", escape(command));
        }
    }
}

/// Whether a comparison's sign test or McNemar test says the sides differ
/// (never for an invalid comparison: it measures nothing).
pub fn differs(c: &CellComparison) -> bool {
    c.invalid.is_none()
        && (c.stats.completion.p_value < DIFFERS_BELOW
            || c.stats.full_completion.p_value < DIFFERS_BELOW)
}

/// A comparison on one line: the mean difference with its interval, the
/// pairs each way and the tests; for an invalid one, why instead.
pub fn comparison_line(c: &CellComparison) -> String {
    if let Some(why) = &c.invalid {
        return format!("{}: INVALID, {}", escape(&c.what), escape(why));
    }
    let (p, m) = (&c.stats.completion, &c.stats.full_completion);
    format!(
        "{}: completion {} {}, {} better / {} worse of {} pairs, sign test {}; full completion {}/{} discordant pairs, McNemar {}",
        escape(&c.what),
        format::points(p.mean_diff),
        format::points_interval(p.diff_ci95),
        p.a_better,
        p.b_better,
        p.pairs,
        p_text(p.p_value),
        m.only_a,
        m.only_b,
        p_text(m.p_value)
    )
}

/// The comparisons: all of them with [`Detail::Full`]; else each family
/// (`todo tool`, `dialect codex vs s03`, …) whose comparisons differ, on
/// one line when it has several, and the families that do not, named on
/// one line.
fn comparisons(out: &mut String, list: &[CellComparison], detail: Detail) {
    if list.is_empty() {
        return;
    }
    // An invalid comparison is shown with why, never as a difference or
    // as none.
    let (invalid, measured): (Vec<&CellComparison>, Vec<&CellComparison>) =
        list.iter().partition(|c| c.invalid.is_some());
    for c in &invalid {
        let _ = writeln!(out, "  {}", comparison_line(c));
    }
    if measured.is_empty() {
        out.push('\n');
        return;
    }
    let list = measured;
    if detail == Detail::Full {
        for c in &list {
            let _ = writeln!(out, "  {}", comparison_line(c));
        }
        out.push('\n');
        return;
    }
    let mut families: Vec<(&str, Vec<&CellComparison>)> = Vec::new();
    for c in list.iter().copied() {
        let family = c.what.split(" (").next().unwrap_or(&c.what);
        match families.iter_mut().find(|(f, _)| *f == family) {
            Some((_, members)) => members.push(c),
            None => families.push((family, vec![c])),
        }
    }
    let differing = list.iter().filter(|c| differs(c)).count();
    let _ = writeln!(
        out,
        "  {differing} of {} comparison{} differ (paired by seed; sign test or McNemar p<{DIFFERS_BELOW}):",
        list.len(),
        plural(list.len())
    );
    let mut alike: Vec<String> = Vec::new();
    for (family, members) in &families {
        let differ: Vec<&&CellComparison> = members.iter().filter(|c| differs(c)).collect();
        match (members.len(), differ.len()) {
            (1, 0) => alike.extend(members.first().map(|c| escape(&c.what).into_owned())),
            (n, 0) => alike.push(format!("{} ({n})", escape(family))),
            (1, _) => {
                if let Some(only) = members.first() {
                    let _ = writeln!(out, "    {}", comparison_line(only));
                }
            }
            (n, d) => {
                let _ = writeln!(
                    out,
                    "    {}: {d} of {n} differ, completion {}",
                    escape(family),
                    range_of(&differ)
                );
            }
        }
    }
    if !alike.is_empty() {
        out.push_str(&wrapped("    no difference: ", &alike, "      "));
    }
    if differing < list.len() || families.iter().any(|(_, m)| m.len() > 1) {
        let _ = writeln!(out, "    (--verbose or the reports show each comparison)");
    }
    out.push('\n');
}

/// The completion differences of `list` as a range in points
/// (`+29.7 to +55.0 pts`), or one figure when they round alike.
fn range_of(list: &[&&CellComparison]) -> String {
    let diffs = list.iter().map(|c| c.stats.completion.mean_diff);
    let lo = diffs.clone().fold(f64::INFINITY, f64::min);
    let hi = diffs.fold(f64::NEG_INFINITY, f64::max);
    if format::points_bare(lo) == format::points_bare(hi) {
        format::points(lo)
    } else {
        format!(
            "{} to {} pts",
            format::points_bare(lo),
            format::points_bare(hi)
        )
    }
}

/// Width a wrapped list of names keeps within.
const WRAP_AT: usize = 100;

/// `items` joined by commas after `first`, wrapped within [`WRAP_AT`]
/// columns, continued lines starting with `indent`.
fn wrapped(first: &str, items: &[String], indent: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item},")
        } else {
            item.clone()
        };
        let fresh = line.len() == first.len() || line.len() == indent.len();
        if !fresh && line.chars().count() + 1 + piece.chars().count() > WRAP_AT {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.to_string();
        } else if !fresh {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// Which steps get dropped: one row per scored step, one column per cell,
/// each the share of the cell's runs whose check of the step held.
pub fn steps_table(cells: &[CellSummary]) -> String {
    let with_rates: Vec<&CellSummary> = cells.iter().filter(|c| !c.step_rates.is_empty()).collect();
    let Some(first) = with_rates.first() else {
        return String::new();
    };
    let columns = super::axis_columns(with_rates.iter().map(|c| &c.settings));
    let label = |c: &CellSummary| {
        let values = super::axis_values(&c.settings, &columns);
        columns
            .iter()
            .zip(values)
            .filter(|(_, value)| value != "-")
            .map(|(axis, value)| format!("{}={value}", axis.label()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let rate = |c: &CellSummary, index: usize| {
        c.step_rates
            .get(index)
            .map_or("-".to_string(), |s| format::percent(s.rate, 0))
    };
    let steps = first.step_rates.len();
    let mut builder = Builder::default();
    // More cells than steps: a row per cell, so the table grows down,
    // not sideways; the steps' texts are listed under it.
    let by_cell = with_rates.len() > steps.max(6);
    if by_cell {
        let mut header = vec!["cell".to_string()];
        header.extend(first.step_rates.iter().map(|s| format!("#{}", s.id)));
        builder.push_record(header);
        for cell in &with_rates {
            let mut row = vec![label(cell)];
            row.extend((0..steps).map(|index| rate(cell, index)));
            builder.push_record(row);
        }
    } else {
        let mut header = vec!["step".to_string()];
        header.extend(with_rates.iter().map(|c| label(c)));
        builder.push_record(header);
        for (index, step) in first.step_rates.iter().enumerate() {
            let mut row = vec![format!("#{} {}", step.id, shorten(&step.text, 40))];
            row.extend(with_rates.iter().map(|c| rate(c, index)));
            builder.push_record(row);
        }
    }
    let mut table = builder.build();
    table.with(Style::rounded());
    let mut text = table.to_string();
    text.push('\n');
    if by_cell {
        for step in &first.step_rates {
            let _ = writeln!(text, "  #{} {}", step.id, escape(&shorten(&step.text, 70)));
        }
    }
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
        Format::Tokens => format::tokens(value),
        Format::Percent | Format::Bar => format::percent(value, 0),
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

/// The cells as a table, every column.
pub fn cells_table(cells: &[CellSummary]) -> String {
    cells_table_with(cells, Detail::Full)
}

/// The cells as a table; [`Detail::Brief`] leaves out the count columns
/// (reminders, rejected updates, violations, …) that are zero in every
/// cell.
fn cells_table_with(cells: &[CellSummary], detail: Detail) -> String {
    let columns = super::axis_columns(cells.iter().map(|c| &c.settings));
    let metrics: Vec<_> = shown(|c| c.text)
        .into_iter()
        .filter(|(m, c)| {
            detail == Detail::Full
                || !matches!(c.format, Format::Decimals(_))
                || cells.iter().any(|cell| cell.value(m.name) != 0.0)
        })
        .collect();
    let mut header: Vec<String> = columns.iter().map(Axis::label).collect();
    header.push("runs".to_string());
    header.extend(metrics.iter().map(|(_, c)| c.header.to_string()));
    let mut rows = vec![header];
    for cell in cells {
        let mut row = super::axis_values(&cell.settings, &columns);
        row.push(cell.runs.to_string());
        row.extend(metrics.iter().map(|(m, c)| metric_text(m, c.format, cell)));
        rows.push(row);
    }
    // Wider than the screen: split, each part led by the settings.
    super::fit::tables(&rows, columns.len())
}

/// What a cell's extra tokens buy: the points of completion it gains per
/// thousand context tokens over the next cheaper cell of `cells`, named
/// (`5.7 (vs off)`); `–` for the cheapest.
fn points_per_1k(
    cell: &CellSummary,
    cells: &[&CellSummary],
    name: &dyn Fn(&CellSummary) -> String,
) -> String {
    let tokens = |c: &CellSummary| c.value(MEAN_CONTEXT_TOKENS);
    let cheaper = cells
        .iter()
        .filter(|c| tokens(c) < tokens(cell))
        .max_by(|a, b| tokens(a).total_cmp(&tokens(b)));
    match cheaper {
        Some(other) => {
            let gain = (cell.value(COMPLETION_RATE) - other.value(COMPLETION_RATE)) * 100.0;
            let per_1k = gain / ((tokens(cell) - tokens(other)) / 1000.0);
            format!("{per_1k:.1} (vs {})", name(other))
        }
        None => "–".to_string(),
    }
}

/// The sweep table: one row per threshold with the todo tool, one baseline
/// row without it, then the recommendation and why. What a value's extra
/// tokens buy (`pts per 1k tokens`) is shown on an ordered axis only: two
/// dialects or reminder policies are no steps along a line, and a rate
/// between them would read as one.
pub fn sweep(result: &SweepResult) -> String {
    let axis = Axis::parse(&result.axis).ok();
    let axis_label = axis.as_ref().map_or(result.axis.clone(), Axis::label);
    let ordered = axis.as_ref().is_some_and(Axis::is_ordered);
    let metrics = shown(|c| c.sweep);
    let mut builder = Builder::default();
    let mut header = vec!["todo", axis_label.as_str(), "runs"];
    header.extend(metrics.iter().map(|(_, c)| c.header));
    if ordered {
        header.push("pts per 1k tokens");
    }
    header.push("p vs leader");
    builder.push_record(header);
    let value_of = |cell: &CellSummary| {
        axis.as_ref()
            .and_then(|a| cell.settings.get(a))
            .map_or("-".to_string(), ToString::to_string)
    };
    let every: Vec<&CellSummary> = result
        .with_todo
        .iter()
        .chain(std::iter::once(&result.without_todo))
        .collect();
    let row = |cell: &CellSummary, value: String, p: String| {
        let mut row = vec![
            cell.settings.todo().to_string(),
            value,
            cell.runs.to_string(),
        ];
        row.extend(metrics.iter().map(|(m, c)| metric_text(m, c.format, cell)));
        if ordered {
            row.push(points_per_1k(cell, &every, &|c| {
                if c.settings.todo() {
                    value_of(c)
                } else {
                    "no todo tool".to_string()
                }
            }));
        }
        row.push(p);
        row
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
    let what = if result.axis == "nag_threshold" {
        "nag threshold"
    } else {
        result.axis.as_str()
    };
    let mut out = format!("{} — {what} sweep\n{table}\n", escape(&result.scenario));
    out.push_str(&pick_line(result, &axis_label));
    out
}

/// The sweep's pick and why.
fn pick_line(result: &SweepResult, axis_label: &str) -> String {
    let shown =
        |v: &Option<crate::scenario::AxisValue>| v.map_or("-".to_string(), |v| v.to_string());
    let best_what = if result.axis == "nag_threshold" {
        "threshold"
    } else {
        result.axis.as_str()
    };
    let within = format!(
        "within {:.1} points of the leader's, {axis_label} {}, and not significantly below it: paired sign test, p >= {ALPHA}",
        result.min_effect * 100.0,
        shown(&result.leader)
    );
    let why = match result.rule() {
        PickRule::HighestCompletion => {
            format!("the highest completion; no other value's completion is {within}")
        }
        PickRule::FewestTokens => {
            format!("fewest context tokens per run among values whose completion is {within}")
        }
        PickRule::FewestReminders => format!(
            "fewest context tokens per run, then fewest reminders, among values whose completion is {within}"
        ),
        PickRule::HigherCompletion => format!(
            "the higher completion among values that cost as many tokens and reminders and whose completion is {within}"
        ),
    };
    format!("best {best_what}: {} ({why})\n", shown(&result.best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::CellSummary;
    use crate::results::pick::recommend;
    use crate::results::record::test_runs;
    use crate::scenario::{Axis, AxisValue, CellSettings, NagThreshold};

    /// A sweep of `axis` over cells given as (value, steps completed per
    /// seed, context tokens per run), 10 steps each.
    fn sweep_of(axis: Axis, cells: &[(AxisValue, &[usize], u64)]) -> SweepResult {
        let cell = |value: AxisValue, completed: &[usize], tokens: u64, todo: bool| {
            let mut settings = vec![(Axis::Todo, AxisValue::Bool(todo))];
            if todo {
                settings.push((axis.clone(), value));
            }
            let mut runs = test_runs(10, completed, 0);
            for run in &mut runs {
                run.context_tokens = tokens;
            }
            CellSummary::new(CellSettings::new(settings), 10, runs)
        };
        let with_todo: Vec<CellSummary> = cells
            .iter()
            .map(|(value, completed, tokens)| cell(*value, completed, *tokens, true))
            .collect();
        let (leader, best, p_vs_leader) = recommend(&with_todo, 0.02);
        let value = |i: Option<usize>| {
            i.and_then(|i| with_todo.get(i))
                .and_then(|c| c.settings.get(&axis))
                .copied()
        };
        SweepResult {
            scenario: "s".into(),
            axis: axis.name(),
            best: value(best),
            leader: value(leader),
            without_todo: cell(AxisValue::Bool(false), &[3; 12], 500, false),
            with_todo,
            p_vs_leader,
            min_effect: 0.02,
        }
    }

    #[test]
    fn a_dialect_sweep_has_no_rate_between_neighbours_and_states_its_rule() {
        use crate::plan::dialect::Dialect;
        // The leader costs most, and no other value is as good: the
        // highest completion picked it, not the fewest tokens.
        let result = sweep_of(
            Axis::Dialect,
            &[
                (AxisValue::Dialect(Dialect::S03), &[4; 12], 900),
                (AxisValue::Dialect(Dialect::Codex), &[10; 12], 2000),
                (AxisValue::Dialect(Dialect::Gemini), &[5; 12], 1200),
            ],
        );
        assert_eq!(result.best, Some(AxisValue::Dialect(Dialect::Codex)));
        let text = sweep(&result);
        assert!(!text.contains("pts per 1k"), "{text}");
        assert!(!text.contains("(vs "), "{text}");
        assert!(
            text.contains("best dialect: codex (the highest completion; no other value's completion is within 2.0 points"),
            "{text}"
        );
        assert!(!text.contains("fewest context tokens"), "{text}");
    }

    #[test]
    fn a_threshold_sweep_keeps_its_rate_and_names_the_cheapest_as_good_value() {
        let threshold = |n: u32| AxisValue::Threshold(NagThreshold::After(n));
        let result = sweep_of(
            Axis::NagThreshold,
            &[
                (threshold(1), &[10; 12], 2000),
                (threshold(3), &[10; 12], 1500),
                (AxisValue::Threshold(NagThreshold::Off), &[4; 12], 900),
            ],
        );
        assert_eq!(result.best, Some(threshold(3)));
        let text = sweep(&result);
        assert!(text.contains("pts per 1k tokens"), "{text}");
        assert!(
            text.contains("best threshold: 3 (fewest context tokens per run among values whose completion is within 2.0 points"),
            "{text}"
        );
    }

    #[test]
    fn an_invalid_comparison_is_shown_as_invalid_never_as_no_difference() {
        let cell = |on: bool| {
            let mut runs = test_runs(4, &[4, 4], 0);
            for run in &mut runs {
                run.todo_calls = 1;
            }
            CellSummary::new(
                CellSettings::new(vec![(Axis::Todo, AxisValue::Bool(on))]),
                4,
                runs,
            )
        };
        let list = crate::results::compare::standard(&[cell(true), cell(false)]);
        for detail in [Detail::Brief, Detail::Full] {
            let mut out = String::new();
            comparisons(&mut out, &list, detail);
            assert!(!out.contains("no difference"), "{out}");
            assert!(
                out.contains("todo tool: INVALID, cell todo=false is invalid: the agent planned in 2 of 2 runs with planning off"),
                "{out}"
            );
        }
    }
}
