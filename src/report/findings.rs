//! What a CI page points at: every failed expectation and every file that
//! could not be used, each with the file and line it belongs to. The
//! GitHub annotations ([`super::github`]) and the GitLab Code Quality
//! report ([`super::codequality`]) render the same list, so both always
//! show the same failures.

use crate::results::ScenarioResult;

/// Where a scenario file is, as CI shows it, and the line of each of its
/// `expect:` entries (see [`crate::scenario::expectation_lines`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScenarioPlace {
    /// The path relative to the CI workspace (as given when outside it).
    pub path: String,
    pub expect_lines: Vec<u64>,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// An expectation that did not hold.
    Failure,
    /// A file or run that could not be used at all.
    BadInput,
}

/// One thing to show where the person looks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file, relative to the workspace; `None` when there is none.
    pub path: Option<String>,
    /// Its 1-based line, when known.
    pub line: Option<u64>,
    /// A short title (the scenario's name, or what went wrong).
    pub title: String,
    /// The whole message.
    pub message: String,
    /// What kind of check it is (`expectation`, `scenario-file`, `run`),
    /// stable across runs: Code Quality's `check_name`.
    pub check: &'static str,
    pub severity: Severity,
}

/// A file or run that could not be used: a scenario file refused, a run
/// that could not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput {
    /// The file, as given (`None`: the error names no file).
    pub file: Option<String>,
    pub line: Option<u64>,
    pub message: String,
}

/// Each bad input as a finding, its file located with `path_of`.
pub fn bad_inputs(inputs: &[BadInput], path_of: &dyn Fn(&str) -> String) -> Vec<Finding> {
    inputs
        .iter()
        .map(|input| Finding {
            path: input.file.as_deref().map(path_of),
            line: input.line,
            title: "agent-eval: bad input".into(),
            message: input.message.clone(),
            check: "bad-input",
            severity: Severity::BadInput,
        })
        .collect()
}

/// Every failed expectation of `results`, in report order, located with
/// `place_of` (called with each result's `file`).
pub fn failed_expectations(
    results: &[ScenarioResult],
    place_of: &dyn Fn(&str) -> ScenarioPlace,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for result in results {
        let place = place_of(&result.file);
        for (index, e) in result.expectations.iter().enumerate() {
            if e.ok {
                continue;
            }
            let mut message = format!(
                "{}: measured {}",
                e.text,
                crate::results::format::measured(&e.text, &e.measured)
            );
            if let Some(detail) = &e.detail {
                message.push_str(&format!("\n{detail}"));
            }
            for command in &e.replay {
                message.push_str(&format!("\nreplay: {command}"));
            }
            findings.push(Finding {
                path: Some(place.path.clone()),
                line: place.expect_lines.get(index).copied().filter(|l| *l > 0),
                title: format!("agent-eval: {}", result.name),
                message,
                check: "expectation",
                severity: Severity::Failure,
            });
        }
    }
    findings
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;
    use crate::results::ExpectationOutcome;

    /// A result named `name` from `file` with these (text, ok) outcomes.
    pub(crate) fn result(name: &str, file: &str, outcomes: &[(&str, bool)]) -> ScenarioResult {
        let mut result = ScenarioResult::build(
            name.into(),
            file.into(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            false,
        );
        result.expectations = outcomes
            .iter()
            .map(|(text, ok)| ExpectationOutcome {
                text: (*text).into(),
                ok: *ok,
                verdict: crate::results::verdict::Verdict::of(*ok),
                measured: json!(0.25),
                detail: None,
                paired: None,
                replay: Vec::new(),
            })
            .collect();
        result
    }

    #[test]
    fn only_failures_are_found_each_at_the_line_of_its_entry() {
        let results = [result(
            "s",
            "scenarios/s.yaml",
            &[("a >= 1", true), ("b >= 2", false), ("drift", false)],
        )];
        let place = |file: &str| ScenarioPlace {
            path: file.to_string(),
            expect_lines: vec![10, 12],
        };
        let found = failed_expectations(&results, &place);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].line, Some(12));
        assert_eq!(found[0].message, "b >= 2: measured 0.25");
        assert_eq!(found[0].path.as_deref(), Some("scenarios/s.yaml"));
        // The implicit expectation has no entry of its own: no line.
        assert_eq!(found[1].line, None);
    }
}
