//! The summary `run` prints: per scenario, one row per matrix cell
//! (settings, runs, mean steps completed with its 95% interval, completion
//! rate, full-completion rate, mean reminders, rejected updates, turns,
//! protocol violations), then each expectation with expected vs measured.

use std::fmt::Write;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::eval::sweep::{ALPHA, SweepResult};
use crate::eval::{CellSummary, ScenarioResult};

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const RESET: &str = "\x1b[0m";

/// Formats a scenario's table and expectations; `color` marks the verdicts
/// with ANSI colours.
pub fn render(result: &ScenarioResult, color: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", result.name, result.file);
    out.push_str(&cells_table(&result.cells));
    for c in &result.comparisons {
        let (p, m) = (&c.stats.completion, &c.stats.full_completion);
        let _ = writeln!(
            out,
            "  {}: completion {:+.1} pts [{:+.1}, {:+.1}], sign test p{}; full completion {}/{} discordant pairs, McNemar p{}",
            c.what,
            p.mean_diff * 100.0,
            p.diff_ci95[0] * 100.0,
            p.diff_ci95[1] * 100.0,
            p_value(p.p_value),
            m.only_a,
            m.only_b,
            p_value(m.p_value)
        );
    }
    out.push('\n');
    for e in &result.expectations {
        let mark = match (e.ok, color) {
            (true, false) => "ok  ".to_string(),
            (false, false) => "FAIL".to_string(),
            (true, true) => format!("{GREEN}ok{RESET}  "),
            (false, true) => format!("{RED}FAIL{RESET}"),
        };
        let _ = writeln!(out, "  {mark} {}: measured {}", e.text, e.measured);
        if !e.ok
            && let Some(detail) = &e.detail
        {
            let _ = writeln!(out, "       {detail}");
        }
    }
    out
}

/// A p-value's relation as people read it: `<0.001`, else `=0.123`.
fn p_value(p: f64) -> String {
    if p < 0.001 {
        "<0.001".to_string()
    } else {
        format!("={p:.3}")
    }
}

/// The cells as a table.
pub fn cells_table(cells: &[CellSummary]) -> String {
    let mut builder = Builder::default();
    builder.push_record([
        "todo",
        "nag",
        "runs",
        "steps done (95% CI)",
        "completion",
        "full",
        "reminders",
        "rejected",
        "turns",
        "violations",
    ]);
    for cell in cells {
        let scale = cell.steps_total as f64;
        builder.push_record([
            cell.settings.todo.to_string(),
            cell.settings.nag_threshold.to_string(),
            cell.runs.to_string(),
            format!(
                "{:.1}/{} [{:.1}, {:.1}]",
                cell.mean_steps_completed,
                cell.steps_total,
                cell.completion_ci95[0] * scale,
                cell.completion_ci95[1] * scale
            ),
            format!("{:.0}%", cell.completion_rate * 100.0),
            format!("{:.0}%", cell.full_completion_rate * 100.0),
            format!("{:.2}", cell.mean_reminders),
            format!("{:.2}", cell.mean_rejected_todo_updates),
            format!("{:.1}", cell.mean_turns),
            format!("{:.2}", cell.mean_protocol_violations),
        ]);
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
    let mut builder = Builder::default();
    builder.push_record([
        "todo",
        "nag",
        "runs",
        "completion (95% CI)",
        "full",
        "reminders/run",
        "turns",
        "p vs leader",
    ]);
    let row = |cell: &CellSummary, nag: String, p: String| {
        [
            cell.settings.todo.to_string(),
            nag,
            cell.runs.to_string(),
            format!(
                "{:.1}% [{:.1}, {:.1}]",
                cell.completion_rate * 100.0,
                cell.completion_ci95[0] * 100.0,
                cell.completion_ci95[1] * 100.0
            ),
            format!("{:.0}%", cell.full_completion_rate * 100.0),
            format!("{:.2}", cell.mean_reminders),
            format!("{:.1}", cell.mean_turns),
            p,
        ]
    };
    for (cell, p) in result.with_todo.iter().zip(&result.p_vs_leader) {
        let p = if cell.settings.nag_threshold == result.leader {
            "leader".to_string()
        } else {
            format!("{p:.3}")
        };
        builder.push_record(row(cell, cell.settings.nag_threshold.to_string(), p));
    }
    builder.push_record(row(&result.without_todo, "-".into(), String::new()));
    let mut table = builder.build();
    table.with(Style::rounded());
    let mut out = format!("{} — nag threshold sweep\n{table}\n", result.scenario);
    let _ = writeln!(
        out,
        "best threshold: {} (fewest reminders per run among thresholds whose completion is not significantly below the leader's, nag {}; paired sign test, p >= {ALPHA})",
        result.best, result.leader
    );
    out
}
