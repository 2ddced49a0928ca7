//! The summary `run` prints: per scenario, one row per matrix cell
//! (settings, runs, mean steps completed with its 95% interval, completion
//! rate, full-completion rate, mean reminders, rejected updates, turns,
//! protocol violations), then each expectation with expected vs measured.

use std::fmt::Write;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::eval::{CellSummary, ScenarioResult};

/// Formats a scenario's table and expectations.
pub fn render(result: &ScenarioResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", result.name, result.file);
    out.push_str(&cells_table(&result.cells));
    out.push('\n');
    for e in &result.expectations {
        let mark = if e.ok { "ok  " } else { "FAIL" };
        let _ = writeln!(out, "  {mark} {}: measured {}", e.text, e.measured);
        if !e.ok
            && let Some(detail) = &e.detail
        {
            let _ = writeln!(out, "       {detail}");
        }
    }
    out
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
