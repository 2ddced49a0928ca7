//! `--markdown FILE`: a summary fit for a CI job summary (GitHub's
//! `$GITHUB_STEP_SUMMARY`): the verdict, a table per scenario and its
//! expectations with expected vs measured.

use std::fmt::Write;

use crate::eval::ScenarioResult;

pub fn render(results: &[ScenarioResult], load_errors: &[String]) -> String {
    let failed: usize = results
        .iter()
        .map(|r| r.expectations.iter().filter(|e| !e.ok).count())
        .sum();
    let total: usize = results.iter().map(|r| r.expectations.len()).sum();
    let mut out = String::from("# agent-eval\n\n");
    let verdict = if failed == 0 && load_errors.is_empty() {
        "✅ passed"
    } else {
        "❌ failed"
    };
    let _ = writeln!(
        out,
        "**{verdict}**: {} scenarios, {total} expectations, {failed} failed, {} unreadable files.\n",
        results.len(),
        load_errors.len()
    );
    for error in load_errors {
        let _ = writeln!(out, "- ❌ `{}`", error.replace('`', "'"));
    }
    for result in results {
        let _ = writeln!(out, "## {} (`{}`)\n", result.name, result.file);
        let columns = super::axis_columns(result.cells.iter().map(|c| &c.settings));
        let labels: Vec<String> = columns.iter().map(|a| a.label()).collect();
        let _ = writeln!(
            out,
            "| {} | runs | completion (95% CI) | full | reminders | rejected | turns |",
            labels.join(" | ")
        );
        let _ = writeln!(
            out,
            "|{}---:|---:|---:|---:|---:|---:|",
            "---|".repeat(columns.len())
        );
        for c in &result.cells {
            let _ = writeln!(
                out,
                "| {} | {} | {:.1}% [{:.1}, {:.1}] | {:.0}% | {:.2} | {:.2} | {:.1} |",
                super::axis_values(&c.settings, &columns).join(" | "),
                c.runs,
                c.completion_rate * 100.0,
                c.completion_ci95[0] * 100.0,
                c.completion_ci95[1] * 100.0,
                c.full_completion_rate * 100.0,
                c.mean_reminders,
                c.mean_rejected_todo_updates,
                c.mean_turns
            );
        }
        out.push('\n');
        for e in &result.expectations {
            let mark = if e.ok { "✅" } else { "❌" };
            let _ = writeln!(out, "- {mark} `{}` — measured `{}`", e.text, e.measured);
        }
        out.push('\n');
    }
    out
}
