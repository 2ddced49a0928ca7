//! `--markdown FILE`: a summary fit for a CI job summary (GitHub's
//! `$GITHUB_STEP_SUMMARY`): the verdict, a table per scenario, its
//! per-step completion rates (folded), and its expectations with expected
//! vs measured and, for a failure, the commands that replay it.

use std::fmt::Write;

use super::escape::{markdown_code as code, markdown_text as text};
use crate::results::ScenarioResult;
use crate::results::verdict::Verdict;

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
    let not_applicable: usize = results
        .iter()
        .map(|r| {
            r.expectations
                .iter()
                .filter(|e| e.verdict == Verdict::NotApplicable)
                .count()
        })
        .sum();
    let not_applicable = match not_applicable {
        0 => String::new(),
        n => format!(", {n} not applicable"),
    };
    let _ = writeln!(
        out,
        "**{verdict}**: {}, {}, {failed} failed{not_applicable}, {}.\n",
        count(results.len(), "scenario"),
        count(total, "expectation"),
        count(load_errors.len(), "unreadable file")
    );
    for error in load_errors {
        let _ = writeln!(out, "- ❌ `{}`", code(error));
    }
    for result in results {
        let _ = writeln!(
            out,
            "## {} (`{}`)\n",
            text(&result.name),
            code(&result.file)
        );
        if let Some(profile) = &result.profile {
            let _ = writeln!(
                out,
                "Simulated model under the profile `{}` (sha256 `{}`).\n",
                code(&profile.file),
                code(&profile.sha256)
            );
        }
        let columns = super::axis_columns(result.cells.iter().map(|c| &c.settings));
        let labels: Vec<String> = columns.iter().map(|a| text(&a.label())).collect();
        let metrics = super::table::shown(|c| c.markdown);
        let headers: Vec<&str> = metrics.iter().map(|(_, c)| c.header).collect();
        let _ = writeln!(
            out,
            "| {} | runs | {} |",
            labels.join(" | "),
            headers.join(" | ")
        );
        let _ = writeln!(
            out,
            "|{}{}",
            "---|".repeat(columns.len()),
            "---:|".repeat(1 + metrics.len())
        );
        for c in &result.cells {
            let values: Vec<String> = metrics
                .iter()
                .map(|(m, column)| text(&super::table::metric_text(m, column.format, c)))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                cells(super::axis_values(&c.settings, &columns)).join(" | "),
                c.runs,
                values.join(" | ")
            );
        }
        out.push('\n');
        parts(&mut out, result);
        steps(&mut out, result);
        for e in &result.expectations {
            if e.verdict == Verdict::NotApplicable {
                let why = e
                    .detail
                    .as_deref()
                    .unwrap_or("the runs do not distinguish its sides");
                let _ = writeln!(out, "- ➖ `{}` — n/a: {}", code(&e.text), text(why));
                continue;
            }
            let mark = if e.ok { "✅" } else { "❌" };
            let _ = writeln!(
                out,
                "- {mark} `{}` — measured `{}`",
                code(&e.text),
                code(&crate::results::format::measured(&e.text, &e.measured))
            );
            if !e.ok {
                if let Some(detail) = &e.detail {
                    let _ = writeln!(out, "  - {}", text(detail));
                }
                for command in &e.replay {
                    let _ = writeln!(out, "  - see: `{}`", code(command));
                }
            }
        }
        out.push('\n');
    }
    crate::report::escape::drop_bidi_owned(out)
}

/// Table cells as Markdown text.
fn cells(values: Vec<String>) -> Vec<String> {
    values.iter().map(|v| text(v)).collect()
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// A session's figures per part and cell.
fn parts(out: &mut String, result: &ScenarioResult) {
    let rows = super::part_rows(&result.cells);
    let Some((header, rows)) = rows.split_first() else {
        return;
    };
    let columns = header.len() - 7;
    let _ = writeln!(out, "Per part:\n\n| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}{}", "---|".repeat(columns), "---:|".repeat(7));
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

/// Each scored step's completion rate per cell, folded under a summary.
fn steps(out: &mut String, result: &ScenarioResult) {
    let cells: Vec<_> = result
        .cells
        .iter()
        .filter(|c| !c.step_rates.is_empty())
        .collect();
    let Some(first) = cells.first() else {
        return;
    };
    let columns = super::axis_columns(cells.iter().map(|c| &c.settings));
    let _ = writeln!(out, "<details><summary>Per-step completion</summary>\n");
    let headers: Vec<String> = cells
        .iter()
        .map(|c| {
            columns
                .iter()
                .zip(super::axis_values(&c.settings, &columns))
                .filter(|(_, v)| v != "-")
                .map(|(a, v)| text(&format!("{}={v}", a.label())))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let _ = writeln!(out, "| step | {} |", headers.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(cells.len()));
    for (index, step) in first.step_rates.iter().enumerate() {
        let rates: Vec<String> = cells
            .iter()
            .map(|c| {
                c.step_rates.get(index).map_or("-".to_string(), |s| {
                    crate::results::format::percent(s.rate, 0)
                })
            })
            .collect();
        let _ = writeln!(
            out,
            "| #{} {} | {} |",
            text(&step.id.to_string()),
            text(&step.text),
            rates.join(" | ")
        );
    }
    out.push_str("\n</details>\n\n");
}
