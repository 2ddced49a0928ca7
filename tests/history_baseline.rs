//! `run --baseline HISTORY.db` through the binary: a history is told from
//! a report by its content, each scenario is compared with the last whole
//! run recorded for the same file on the chosen branch, a regression
//! against it fails (exit 1), no regression passes, and a scenario with no
//! recorded run is named in a warning without failing. `diff` refuses a
//! history with exit 2.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::Output;

const SCENARIO: &str = "scenarios/simulated/docs_fixes.yaml";

/// The scenario copied into `dir` (so a test can also make a changed copy).
fn scenario_in(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let copy = dir.join("docs_fixes.yaml");
    std::fs::copy(source, &copy).unwrap();
    copy
}

/// The binary in `dir`, evaluating `branch` at a fixed commit (as GitHub
/// Actions says them), so no test depends on the checkout's git state.
fn agent_eval(dir: &Path, branch: &str, args: &[&str]) -> Output {
    support::agent_eval_command()
        .current_dir(dir)
        .env("GITHUB_SHA", "0123456789abcdef")
        .env("GITHUB_REF_NAME", branch)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Records one run of `scenario` on `branch` in `h.db`.
fn record(dir: &Path, scenario: &Path, branch: &str) {
    let s = scenario.to_str().unwrap();
    let out = agent_eval(
        dir,
        branch,
        &["run", s, "--seeds", "4", "--quiet", "--history", "h.db"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// Makes every run recorded on `branch` look perfect (completion 1 with a
/// point interval), as if the agent had done better then.
fn make_perfect(dir: &Path, branch: &str) {
    let db = rusqlite::Connection::open(dir.join("h.db")).unwrap();
    let changed = db
        .execute(
            "UPDATE cell_metric SET value = 1.0, lo = 1.0, hi = 1.0
             WHERE metric = 'completion_rate' AND cell_id IN (
                 SELECT c.id FROM cell c JOIN scenario_run s ON c.scenario_run_id = s.id
                 JOIN invocation i ON s.invocation_id = i.id WHERE i.branch = ?1)",
            [branch],
        )
        .unwrap();
    assert!(changed > 0);
}

fn gate(dir: &Path, scenario: &Path, branch: &str, extra: &[&str]) -> Output {
    let s = scenario.to_str().unwrap();
    let mut args = vec!["run", s, "--seeds", "4", "--quiet", "--baseline", "h.db"];
    args.extend_from_slice(extra);
    agent_eval(dir, branch, &args)
}

#[test]
fn a_regression_against_the_history_fails() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario_in(dir.path());
    record(dir.path(), &scenario, "main");
    make_perfect(dir.path(), "main");
    let out = gate(dir.path(), &scenario, "main", &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("REGRESSED"), "{shown}");
    assert!(
        shown.contains("baseline: docs-fixes against h.db: commit 0123456789 on main"),
        "{shown}"
    );
}

#[test]
fn no_regression_against_the_history_passes() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario_in(dir.path());
    record(dir.path(), &scenario, "main");
    let before = std::fs::read(dir.path().join("h.db")).unwrap();
    let out = gate(dir.path(), &scenario, "main", &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("0 regressed"), "{shown}");
    assert!(!shown.contains("REGRESSED"), "{shown}");
    // Reading a baseline writes nothing to the history.
    assert_eq!(std::fs::read(dir.path().join("h.db")).unwrap(), before);
}

#[test]
fn the_branch_decides_which_run_is_the_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario_in(dir.path());
    record(dir.path(), &scenario, "main");
    make_perfect(dir.path(), "main");
    record(dir.path(), &scenario, "feature");
    // On `feature`, its own last run is the baseline: nothing moved.
    let own = gate(dir.path(), &scenario, "feature", &[]);
    assert_eq!(own.status.code(), Some(0), "{}", text(&own));
    assert!(text(&own).contains("on feature"), "{}", text(&own));
    // Against main's last run it regressed.
    let main = gate(
        dir.path(),
        &scenario,
        "feature",
        &["--baseline-branch", "main"],
    );
    assert_eq!(main.status.code(), Some(1), "{}", text(&main));
    // A branch with no runs yet falls back to the last run on any branch
    // (here feature's, the later one).
    let fresh = gate(dir.path(), &scenario, "fresh", &[]);
    assert_eq!(fresh.status.code(), Some(0), "{}", text(&fresh));
    assert!(text(&fresh).contains("on feature"), "{}", text(&fresh));
    // A named branch with no runs: nothing to gate against, said so.
    let none = gate(
        dir.path(),
        &scenario,
        "main",
        &["--baseline-branch", "release'; DROP TABLE cell; --"],
    );
    let shown = text(&none);
    assert_eq!(none.status.code(), Some(0), "{shown}");
    assert!(shown.contains("not gated: docs-fixes"), "{shown}");
    assert!(
        shown.contains("on branch release'; DROP TABLE cell; --"),
        "{shown}"
    );
    assert_eq!(
        gate(dir.path(), &scenario, "main", &[]).status.code(),
        Some(1)
    );
}

#[test]
fn a_scenario_without_recorded_runs_is_named_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario_in(dir.path());
    record(dir.path(), &scenario, "main");
    make_perfect(dir.path(), "main");
    // A changed comment is another version of the scenario: no baseline.
    let mut changed = std::fs::read_to_string(&scenario).unwrap();
    changed.insert_str(0, "# edited\n");
    std::fs::write(&scenario, changed).unwrap();
    let out = gate(dir.path(), &scenario, "main", &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("warning: h.db holds no recorded run of this version of scenario")
            && shown.contains("not gated: docs-fixes"),
        "{shown}"
    );
}

#[test]
fn diff_refuses_a_history() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario_in(dir.path());
    record(dir.path(), &scenario, "main");
    let s = scenario.to_str().unwrap();
    let report = agent_eval(
        dir.path(),
        "main",
        &["run", s, "--seeds", "4", "--quiet", "--json", "r.json"],
    );
    assert_eq!(report.status.code(), Some(0), "{}", text(&report));
    let out = agent_eval(dir.path(), "main", &["diff", "h.db", "r.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("h.db: a results history"),
        "{}",
        text(&out)
    );
}

#[test]
fn one_file_records_and_gates_from_the_first_run_on() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = scenario_in(dir.path());
    let s = scenario.to_str().unwrap();
    let args = [
        "run",
        s,
        "--seeds",
        "4",
        "--quiet",
        "--history",
        "h.db",
        "--baseline",
        "h.db",
    ];
    // The first run: nothing recorded yet, so nothing gated; it records.
    let first = agent_eval(dir.path(), "main", &args);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert!(
        text(&first).contains("not gated: docs-fixes"),
        "{}",
        text(&first)
    );
    // The second is compared with the first, never with itself.
    let second = agent_eval(dir.path(), "main", &args);
    let shown = text(&second);
    assert_eq!(second.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("0 regressed") && shown.contains("on main"),
        "{shown}"
    );
    let db = rusqlite::Connection::open(dir.path().join("h.db")).unwrap();
    let recorded: i64 = db
        .query_row("SELECT count(*) FROM invocation", [], |r| r.get(0))
        .unwrap();
    assert_eq!(recorded, 2);
}

#[test]
fn figures_out_of_range_in_a_history_are_refused_as_in_a_json_baseline() {
    for (metric, value) in [
        ("completion_rate", "1.5"),
        ("completion_rate", "-0.2"),
        ("full_completion_rate", "1e308 * 10"),
        ("mean_turns", "-3.0"),
    ] {
        if !agent_eval::metric::Metric::gated().any(|m| m.name == metric) {
            continue; // never read as a baseline
        }
        let dir = tempfile::tempdir().unwrap();
        let scenario = scenario_in(dir.path());
        record(dir.path(), &scenario, "main");
        let db = rusqlite::Connection::open(dir.path().join("h.db")).unwrap();
        let changed = db
            .execute(
                &format!("UPDATE cell_metric SET value = {value} WHERE metric = ?1"),
                [metric],
            )
            .unwrap();
        drop(db);
        assert!(changed > 0, "{metric}");
        let out = gate(dir.path(), &scenario, "main", &[]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{metric} = {value}: {all}");
        assert!(all.contains("h.db"), "{all}");
        assert!(all.contains(metric), "{all}");
    }
}

/// A new history compares nothing and says so in one line each (no table of every
/// cell marked new, no list of every scenario), also under `-q`; the next run names
/// the one recorded invocation it compares with, once.
#[test]
fn a_new_history_says_nothing_was_compared_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        agent_eval(dir.path(), "main", &["init", "."])
            .status
            .success()
    );
    let args = [
        "run",
        "scenarios",
        "--history",
        "h.db",
        "--baseline",
        "h.db",
    ];
    for quiet in [false, true] {
        let _ = std::fs::remove_file(dir.path().join("h.db"));
        let mut first = args.to_vec();
        if quiet {
            first.push("-q");
        }
        let out = agent_eval(dir.path(), "main", &first);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert!(
            shown.contains(
                "baseline: nothing compared: the baseline holds none of these 3 cells"
            ) && shown.contains(
                "warning: h.db holds no recorded run of this version of any of these 2 scenarios"
            ) && !shown.contains("│ new"),
            "{shown}"
        );
    }
    let again = agent_eval(dir.path(), "main", &args);
    let shown = text(&again);
    assert!(
        shown.contains("baseline: 2 scenarios against h.db: commit 0123456789 on main")
            && shown.contains("baseline: 3 cells compared, 3 unchanged, 0 moved, 0 regressed"),
        "{shown}"
    );
}
