//! `--junit FILE`: JUnit XML for CI test views.
//!
//! One `<testsuite>` per scenario, named after it; in it one `<testcase>`
//! named `runs` (fails if the scenario's runs could not be summarised —
//! i.e. it has no cell) and one per expectation, named by its text, failing
//! with `expected …, measured …` and the `replay` commands of the runs
//! that show why; one that does not apply (see
//! [`crate::results::verdict::Verdict`]) is skipped with the reason. Files that could not be loaded form a
//! suite `scenario files` with one failing case each. No timestamps or
//! durations are written, so the same results give the same bytes.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::results::ScenarioResult;
use crate::results::verdict::Verdict;

/// Renders the JUnit XML document.
pub fn render(results: &[ScenarioResult], load_errors: &[String]) -> String {
    let mut report = Report::new("agent-eval");
    for result in results {
        let mut suite = TestSuite::new(result.name.clone());
        if let Some(profile) = &result.profile {
            suite.add_property(("profile", profile.file.as_str()));
            suite.add_property(("profile_sha256", profile.sha256.as_str()));
        }
        let mut runs = TestCase::new("runs", status(!result.cells.is_empty(), "no cell ran"));
        runs.set_classname(result.file.clone());
        suite.add_test_case(runs);
        for e in &result.expectations {
            let message = format!(
                "expected {}, measured {}{}{}",
                e.text,
                crate::results::format::measured(&e.text, &e.measured),
                e.detail
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default(),
                e.replay
                    .iter()
                    .map(|c| format!("; see: {c}"))
                    .collect::<String>()
            );
            let status = match e.verdict {
                Verdict::NotApplicable => skipped(&format!(
                    "not applicable: {}",
                    e.detail
                        .as_deref()
                        .unwrap_or("the runs do not distinguish its sides")
                )),
                _ => status(e.ok, &message),
            };
            let mut case = TestCase::new(e.text.clone(), status);
            case.set_classname(result.file.clone());
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    if !load_errors.is_empty() {
        let mut suite = TestSuite::new("scenario files");
        for error in load_errors {
            let name = error.split(':').next().unwrap_or(error).to_string();
            suite.add_test_case(TestCase::new(name, status(false, error)));
        }
        report.add_test_suite(suite);
    }
    // Names and messages come from scenario files and models: no control
    // XML forbids, no bidirectional control (`super::escape`).
    let xml = report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- agent-eval could not write JUnit XML: {e} -->\n"));
    super::escape::xml_chars(&xml).into_owned()
}

/// A case that is neither passed nor failed: a comparison that does not
/// apply, with the reason.
fn skipped(reason: &str) -> TestCaseStatus {
    let mut status = TestCaseStatus::skipped();
    status.set_message(reason.to_string());
    status
}

fn status(ok: bool, message: &str) -> TestCaseStatus {
    if ok {
        TestCaseStatus::success()
    } else {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(message.to_string());
        status
    }
}

#[cfg(test)]
mod tests {
    use crate::results::ScenarioResult;
    use crate::results::summary::test_cell;
    use crate::scenario::{Axis, AxisValue, CellSettings, Expectation};

    /// A result as under an agent preset: the cells do not list `nag`, and
    /// the scenario compares nag 3 with nag off (one cell with itself) and
    /// the todo tool with none.
    fn preset_like() -> ScenarioResult {
        let cell = |todo: bool, completed: &[usize]| {
            test_cell(
                CellSettings::new(vec![(Axis::Todo, AxisValue::Bool(todo))]),
                2,
                completed,
                0,
            )
        };
        let spec: Vec<Expectation> = serde_json::from_value(serde_json::json!([
            {"compare": {"a": {"todo": true, "nag_threshold": 3}, "b": {"todo": true, "nag_threshold": "off"}},
             "completion_rate_diff": {"at_least": 0.05}},
            {"compare": {"a": {"todo": true}, "b": {"todo": false}},
             "completion_rate_diff": {"at_least": 0.1}},
        ]))
        .unwrap();
        let cells = vec![cell(true, &[2, 2]), cell(false, &[1, 0])];
        ScenarioResult::build("s".into(), "s.yaml".into(), vec![0, 1], cells, spec, true)
    }

    #[test]
    fn a_comparison_that_does_not_apply_is_skipped_with_its_reason_everywhere() {
        let result = preset_like();
        assert!(result.ok());
        let results = std::slice::from_ref(&result);
        let xml = super::render(results, &[]);
        assert!(
            xml.contains("tests=\"3\" skipped=\"1\" failures=\"0\"")
                && xml.contains("<skipped message=\"not applicable: no cell varies nag_threshold, so both sides are the same cell (todo=true)"),
            "{xml}"
        );
        let markdown = crate::report::markdown::render(results, &[]);
        assert!(
            markdown.contains("- ➖ `completion_rate_diff >= 0.05 (todo=true nag=3 vs todo=true nag=off)` — n/a: no cell varies nag\\_threshold")
                && markdown.contains("| ✅ | s | `s.yaml` | 2 | 4 | 1 held, 1 n/a |")
                && markdown.contains("2 expectations, 0 failed, 1 not applicable, 0 unreadable files"),
            "{markdown}"
        );
        let table =
            crate::report::table::render(&result, false, crate::report::table::Detail::Full);
        // Lines over 120 columns are wrapped: read the words across breaks.
        let table = table.replace("\n       ", " ");
        assert!(
            table.contains("  n/a  completion_rate_diff >= 0.05 (todo=true nag=3 vs todo=true nag=off): not applicable: no cell varies")
                && table.contains("  ok   completion_rate_diff >= 0.1"),
            "{table}"
        );
        let json = serde_json::to_value(&result.expectations).unwrap();
        assert_eq!(json[0]["verdict"], "not_applicable");
        assert_eq!(json[1]["verdict"], "pass");
        let report = serde_json::json!({"ok": true, "scenarios": [{"name": "s", "file": "s.yaml",
            "cells": [], "comparisons": [], "expectations": json}]});
        let page = crate::report::html::render(crate::report::html::HtmlInput {
            report: &report,
            transcripts: &crate::report::html_runs::Transcripts::default(),
            transcripts_note: None,
            charts: &[],
        });
        assert!(
            page.contains("<li class=\"na\"><span class=\"mark\">n/a</span>"),
            "{page}"
        );
    }
}
