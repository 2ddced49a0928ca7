//! `--codequality FILE`: the GitLab Code Quality report, so a failed
//! expectation shows in the merge request's widget and diff beside the
//! line that failed. The format is a JSON array of issues, each with a
//! `description`, a `check_name`, a `fingerprint` (stable across runs, so
//! GitLab can tell new failures from old ones), a `severity` and a
//! `location` (`path` and `lines.begin`).

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::escape::visible;
use super::findings::{Finding, Severity};

/// The report for `findings` (an empty array when all held), with a
/// trailing newline.
pub fn render(findings: &[Finding]) -> String {
    let issues: Vec<Value> = findings.iter().map(issue).collect();
    let mut text =
        serde_json::to_string_pretty(&Value::Array(issues)).unwrap_or_else(|_| "[]".into());
    text.push('\n');
    text
}

fn issue(finding: &Finding) -> Value {
    let path = finding.path.clone().unwrap_or_default();
    json!({
        "description": visible(&format!("{}: {}", finding.title, finding.message)),
        "check_name": format!("agent-eval/{}", finding.check),
        "fingerprint": fingerprint(finding, &path),
        "severity": match finding.severity {
            Severity::Failure => "critical",
            Severity::BadInput => "blocker",
        },
        "location": {"path": path, "lines": {"begin": finding.line.unwrap_or(1)}},
    })
}

/// The same failure of the same check in the same place has the same
/// fingerprint in every run; the measured figures are left out (the first
/// line of the message, which names what was expected, is kept).
fn fingerprint(finding: &Finding, path: &str) -> String {
    let expected = finding.message.lines().next().unwrap_or_default();
    let expected = expected.split(": measured").next().unwrap_or(expected);
    let digest = Sha256::digest(
        format!("{}\0{path}\0{}\0{expected}", finding.check, finding.title).as_bytes(),
    );
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(message: &str, line: Option<u64>) -> Finding {
        Finding {
            path: Some("scenarios/a.yaml".into()),
            line,
            title: "agent-eval: a".into(),
            message: message.into(),
            check: "expectation",
            severity: Severity::Failure,
        }
    }

    #[test]
    fn each_finding_is_an_issue_at_its_line() {
        let report: Value =
            serde_json::from_str(&render(&[finding("x >= 1: measured 0.5", Some(7))])).unwrap();
        let issue = &report[0];
        assert_eq!(issue["check_name"], "agent-eval/expectation");
        assert_eq!(issue["severity"], "critical");
        assert_eq!(issue["location"]["path"], "scenarios/a.yaml");
        assert_eq!(issue["location"]["lines"]["begin"], 7);
        assert_eq!(issue["description"], "agent-eval: a: x >= 1: measured 0.5");
        assert_eq!(issue["fingerprint"].as_str().unwrap().len(), 32);
    }

    #[test]
    fn the_fingerprint_ignores_the_measured_figure_but_not_the_expectation() {
        let a = fingerprint(&finding("x >= 1: measured 0.5", None), "p");
        let b = fingerprint(&finding("x >= 1: measured 0.7", None), "p");
        let c = fingerprint(&finding("y >= 1: measured 0.5", None), "p");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(render(&[]), "[]\n");
    }
}
