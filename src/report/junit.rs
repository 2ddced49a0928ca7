//! `--junit FILE`: JUnit XML for CI test views.
//!
//! One `<testsuite>` per scenario, named after it; in it one `<testcase>`
//! named `runs` (fails if the scenario's runs could not be summarised —
//! i.e. it has no cell) and one per expectation, named by its text, failing
//! with `expected …, measured …` and the `replay` commands of the runs
//! that show why. Files that could not be loaded form a
//! suite `scenario files` with one failing case each. No timestamps or
//! durations are written, so the same results give the same bytes.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::results::ScenarioResult;

/// Renders the JUnit XML document.
pub fn render(results: &[ScenarioResult], load_errors: &[String]) -> String {
    let mut report = Report::new("agent-eval");
    for result in results {
        let mut suite = TestSuite::new(result.name.clone());
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
            let mut case = TestCase::new(e.text.clone(), status(e.ok, &message));
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
    report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- agent-eval could not write JUnit XML: {e} -->\n"))
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
