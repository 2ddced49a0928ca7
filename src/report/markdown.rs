//! `--markdown FILE`: a summary fit for a CI job summary (GitHub's
//! `$GITHUB_STEP_SUMMARY`), short enough to read on the job's page: the
//! verdict first, then each failed expectation with expected vs measured
//! and the commands that replay it, then one row per scenario, and last
//! the figures, folded: a failing scenario's table, its per-part and
//! per-step rates and every expectation; a passing one's table and the
//! expectations that did not apply (the JSON and HTML reports hold
//! everything).

use std::fmt::Write;

use super::escape::{markdown_code as code, markdown_text as text};
use crate::results::ScenarioResult;
use crate::results::verdict::ExpectationOutcome;
use crate::results::verdict::Verdict;

pub fn render(results: &[ScenarioResult], load_errors: &[String]) -> String {
    let mut out = String::from("# agent-eval\n\n");
    verdict(&mut out, results, load_errors);
    failures(&mut out, results);
    overview(&mut out, results);
    let (failing, passing): (Vec<_>, Vec<_>) = results.iter().partition(|r| has_failure(r));
    for result in failing {
        let _ = writeln!(
            out,
            "<details><summary>Figures of {} ({})</summary>\n",
            text(&result.name),
            text(&result.file)
        );
        figures(&mut out, result);
        parts(&mut out, result);
        steps(&mut out, result);
        expectations(&mut out, result);
        out.push_str("</details>\n\n");
    }
    if !passing.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>Figures of the {} that held</summary>\n",
            count(passing.len(), "scenario")
        );
        for result in passing {
            let _ = writeln!(
                out,
                "**{}** (`{}`)\n",
                text(&result.name),
                code(&result.file)
            );
            figures(&mut out, result);
            not_applicable(&mut out, result);
        }
        out.push_str("</details>\n");
    }
    crate::report::escape::drop_bidi_owned(out)
}

/// Whether any of `result`'s expectations failed.
fn has_failure(result: &ScenarioResult) -> bool {
    result
        .expectations
        .iter()
        .any(|e| e.verdict == Verdict::Fail)
}

/// The first line: passed or failed, and the counts; then each file that
/// could not be read.
fn verdict(out: &mut String, results: &[ScenarioResult], load_errors: &[String]) {
    let with = |verdict: Verdict| ScenarioResult::count_verdicts(results, verdict);
    let failed = with(Verdict::Fail);
    let total: usize = results.iter().map(|r| r.expectations.len()).sum();
    let verdict = if failed == 0 && load_errors.is_empty() {
        "✅ passed"
    } else {
        "❌ failed"
    };
    let not_applicable = match with(Verdict::NotApplicable) {
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
    if !load_errors.is_empty() {
        out.push('\n');
    }
}

/// Every failed expectation, under its scenario, with expected vs
/// measured and the commands that replay it.
fn failures(out: &mut String, results: &[ScenarioResult]) {
    let failing: Vec<&ScenarioResult> = results.iter().filter(|r| has_failure(r)).collect();
    if failing.is_empty() {
        return;
    }
    out.push_str("## Failed expectations\n\n");
    for result in failing {
        let _ = writeln!(
            out,
            "### {} (`{}`)\n",
            text(&result.name),
            code(&result.file)
        );
        for e in result
            .expectations
            .iter()
            .filter(|e| e.verdict == Verdict::Fail)
        {
            expectation(out, e);
        }
        out.push('\n');
    }
}

/// One row per scenario: its verdict, cells, runs and expectations.
fn overview(out: &mut String, results: &[ScenarioResult]) {
    if results.is_empty() {
        return;
    }
    out.push_str("| | scenario | file | cells | runs | expectations |\n");
    out.push_str("|---|---|---|---:|---:|---|\n");
    for result in results {
        let of = |verdict: Verdict| {
            let n = result
                .expectations
                .iter()
                .filter(|e| e.verdict == verdict)
                .count();
            (n > 0).then_some(n)
        };
        let mark = if has_failure(result) { "❌" } else { "✅" };
        let told: Vec<String> = [
            of(Verdict::Fail).map(|n| format!("{n} failed")),
            of(Verdict::Pass).map(|n| format!("{n} held")),
            of(Verdict::NotApplicable).map(|n| format!("{n} n/a")),
        ]
        .into_iter()
        .flatten()
        .collect();
        let runs: usize = result.cells.iter().map(|c| c.runs).sum();
        let _ = writeln!(
            out,
            "| {mark} | {} | `{}` | {} | {runs} | {} |",
            text(&result.name),
            code(&result.file),
            result.cells.len(),
            if told.is_empty() {
                "none".into()
            } else {
                told.join(", ")
            }
        );
    }
    out.push('\n');
}

/// A scenario's profile line and its table: one row per cell.
fn figures(out: &mut String, result: &ScenarioResult) {
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
}

/// Every expectation of a scenario, held, failed or not applicable.
fn expectations(out: &mut String, result: &ScenarioResult) {
    for e in &result.expectations {
        expectation(out, e);
    }
    out.push('\n');
}

/// The expectations of a passing scenario that neither passed nor failed,
/// with why (the held ones are counted in its row).
fn not_applicable(out: &mut String, result: &ScenarioResult) {
    let mut any = false;
    for e in result
        .expectations
        .iter()
        .filter(|e| e.verdict == Verdict::NotApplicable)
    {
        expectation(out, e);
        any = true;
    }
    if any {
        out.push('\n');
    }
}

/// One expectation's line; a failure adds why and how to replay it.
fn expectation(out: &mut String, e: &ExpectationOutcome) {
    if e.verdict == Verdict::NotApplicable {
        let why = e
            .detail
            .as_deref()
            .unwrap_or("the runs do not distinguish its sides");
        let _ = writeln!(out, "- ➖ `{}` — n/a: {}", code(&e.text), text(why));
        return;
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
