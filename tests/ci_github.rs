//! agent-eval inside CI engines: GitHub Actions' annotations (exact lines,
//! escaping included) and job summary, run as the runner runs a step (its
//! variables set, the workspace the current folder), and GitLab's Code
//! Quality report — on a failing run, a passing run and a bad file.

use crate::support;
use std::path::Path;
use std::process::Output;

/// The scenario with one failing expectation at line 7 and one that holds
/// at line 6; its name carries the runner's separators.
const FAILING: &str = "name: \"fails, 100%: really\"\ntask: t\nmodel:\n  script:\n    - text: done\nexpect:\n  - stop: end_turn\n  - turns: 2\n";
const PASSING: &str =
    "name: passes\ntask: t\nmodel:\n  script:\n    - text: done\nexpect:\n  - stop: end_turn\n";
/// A bad file: the error is at line 3.
const BAD: &str = "name: bad\ntask: t\nmodel: {script: [{text: done}], nope: 1}\n";

/// `agent-eval ARGS` in `workspace` as a GitHub Actions step runs it.
fn in_github(workspace: &Path, summary: &Path, args: &[&str]) -> Output {
    support::agent_eval_command()
        .args(args)
        .current_dir(workspace)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", workspace)
        .env("GITHUB_STEP_SUMMARY", summary)
        .output()
        .expect("the binary runs")
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(scenarios.join("failing.yaml"), FAILING).unwrap();
    std::fs::write(scenarios.join("passing.yaml"), PASSING).unwrap();
    std::fs::write(dir.path().join("bad.yaml"), BAD).unwrap();
    dir
}

fn annotations(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("::"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_failing_expectation_is_annotated_at_its_line_and_summarized() {
    let dir = workspace();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "an earlier step's summary\n").unwrap();
    let out = in_github(dir.path(), &summary, &["run", "scenarios/failing.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let lines = annotations(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(
            "::error file=scenarios/failing.yaml,line=8,title=agent-eval%3A fails%2C 100%25%3A really::turns == 2: measured 1%0A"
        ),
        "{}",
        lines[0]
    );
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("an earlier step's summary\n# agent-eval\n"));
    assert!(written.contains("❌ failed"), "{written}");
    // The verdict, then the failure, then the figures, folded.
    let at = |text: &str| {
        written
            .find(text)
            .unwrap_or_else(|| panic!("{text}: {written}"))
    };
    assert!(at("❌ failed") < at("## Failed expectations"), "{written}");
    assert!(
        at("- ❌ `turns == 2` — measured `1`") < at("| todo |"),
        "{written}"
    );
    assert!(at("<details>") < at("| todo |"), "{written}");
}

#[test]
fn a_passing_run_prints_no_annotation_and_still_summarizes() {
    let dir = workspace();
    let summary = dir.path().join("summary.md");
    let out = in_github(dir.path(), &summary, &["run", "scenarios/passing.yaml"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(annotations(&out).is_empty());
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("# agent-eval\n"), "{written}");
    assert!(written.contains("✅ passed"), "{written}");
}

#[test]
fn a_bad_file_is_annotated_at_the_line_of_its_error() {
    let dir = workspace();
    let summary = dir.path().join("summary.md");
    let out = in_github(
        dir.path(),
        &summary,
        &["run", "bad.yaml", "scenarios/passing.yaml"],
    );
    assert_eq!(out.status.code(), Some(2));
    let lines = annotations(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0]
            .starts_with("::error file=bad.yaml,line=3,title=agent-eval%3A bad input::bad.yaml:3:"),
        "{}",
        lines[0]
    );
}

#[test]
fn each_output_has_a_flag_that_turns_it_off() {
    let dir = workspace();
    let summary = dir.path().join("summary.md");
    let out = in_github(
        dir.path(),
        &summary,
        &[
            "run",
            "scenarios/failing.yaml",
            "--no-annotations",
            "--no-step-summary",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(annotations(&out).is_empty());
    assert!(!summary.exists());
    // Outside GitHub Actions, nothing of the kind is written.
    let plain = support::agent_eval_command()
        .args(["run", "scenarios/failing.yaml"])
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert!(annotations(&plain).is_empty());
    assert!(!summary.exists());
}

#[test]
fn with_the_json_report_on_stdout_the_annotations_go_to_stderr() {
    let dir = workspace();
    let summary = dir.path().join("summary.md");
    let out = in_github(
        dir.path(),
        &summary,
        &["run", "scenarios/failing.yaml", "--json", "-"],
    );
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("stdout is the JSON report");
    assert!(report.is_object());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("::error file=scenarios/failing.yaml,line=8,")
    );
}

#[test]
fn the_code_quality_report_points_at_the_failing_line() {
    let dir = workspace();
    let out = support::agent_eval_command()
        .args([
            "run",
            "scenarios/failing.yaml",
            "scenarios/passing.yaml",
            "--codequality",
            "gl-code-quality.json",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(dir.path().join("gl-code-quality.json")).unwrap();
    let issues: serde_json::Value = serde_json::from_str(&text).unwrap();
    let issues = issues.as_array().unwrap();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0]["location"]["path"], "scenarios/failing.yaml");
    assert_eq!(issues[0]["location"]["lines"]["begin"], 8);
    assert_eq!(issues[0]["check_name"], "agent-eval/expectation");
    assert_eq!(issues[0]["severity"], "critical");

    // In GitLab, an absolute path inside the checkout is shown relative to it.
    let absolute = dir.path().join("scenarios/failing.yaml");
    let out = support::agent_eval_command()
        .arg("run")
        .arg(&absolute)
        .args(["--codequality", "cq.json"])
        .current_dir(dir.path())
        .env("CI_PROJECT_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let issues: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("cq.json")).unwrap())
            .unwrap();
    assert_eq!(issues[0]["location"]["path"], "scenarios/failing.yaml");
}

#[test]
fn diff_as_markdown_is_a_pull_request_comment_with_regressions_first() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    let out = support::agent_eval_command()
        .args([
            "run",
            "scenarios/simulated/docs_fixes.yaml",
            "--seeds",
            "5",
            "--quiet",
            "--json",
        ])
        .arg(&base)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    let cell = &mut report["scenarios"][0]["cells"][2];
    cell["completion_rate"] = serde_json::json!(0.99);
    cell["full_completion_rate"] = serde_json::json!(0.99);
    let doctored = dir.path().join("doctored.json");
    std::fs::write(&doctored, serde_json::to_string(&report).unwrap()).unwrap();
    let diff = |old: &Path, new: &Path| {
        support::agent_eval_command()
            .arg("diff")
            .args([old, new])
            .arg("--markdown")
            .output()
            .unwrap()
    };
    let regressed = diff(&doctored, &base);
    assert_eq!(regressed.status.code(), Some(1));
    let body = String::from_utf8_lossy(&regressed.stdout);
    assert!(
        body.starts_with("### agent-eval: what moved\n\n❌ **1 cell regressed**"),
        "{body}"
    );
    assert!(body.contains("| ❌ regressed | docs-fixes |"), "{body}");
    let same = diff(&base, &base);
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("✅ **no regression**"));
}
