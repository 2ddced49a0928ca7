//! Streamed results: the JSON report written run by run from the spill
//! file is the report built as one value, whatever the thread count, and
//! nothing is left in the temporary folder.

use crate::support;
use std::path::{Path, PathBuf};

use agent_eval::eval::{self, EvalOptions};
use agent_eval::report::json::{Report, pretty};
use agent_eval::results::{Runs, ScenarioResult};

fn shipped(names: &[&str]) -> Vec<agent_eval::scenario::Scenario> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let paths: Vec<PathBuf> = names.iter().map(|n| root.join(n)).collect();
    let (scenarios, errors) = agent_eval::scenario::load_all(&paths);
    assert!(errors.is_empty(), "{errors:?}");
    scenarios
}

/// The same results with every record held in memory, as results were
/// kept before they were spilled.
fn held(results: &[ScenarioResult]) -> Vec<ScenarioResult> {
    let mut copy = results.to_vec();
    for cell in copy.iter_mut().flat_map(|r| r.cells.iter_mut()) {
        let records = cell.results.records().map(Result::unwrap).collect();
        cell.results = Runs::held(records);
    }
    copy
}

fn streamed(report: &Report<'_>) -> String {
    let mut bytes = Vec::new();
    report.write_json(&mut bytes).unwrap();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn the_streamed_report_is_the_one_value_report_byte_for_byte() {
    // Several scenarios, many cells, runs finishing out of order.
    let scenarios = shipped(&[
        "scenarios/ten_step_refactor.yaml",
        "scenarios/reminder_policies.yaml",
        "scenarios/dialects.yaml",
        "scenarios/scripted/todo_rejections.yaml",
    ]);
    let run = |jobs: usize| {
        let options = EvalOptions {
            seeds: Some(9),
            jobs: Some(jobs),
            ..EvalOptions::default()
        };
        eval::evaluate(&scenarios, &options, &|_| {}).unwrap()
    };
    let parallel = run(3);
    assert!(parallel.iter().map(|r| r.cells.len()).sum::<usize>() > 10);
    // More runs than one batch of 3 threads × 64: batches hand over in order.
    let runs: usize = parallel.iter().flat_map(|r| &r.cells).map(|c| c.runs).sum();
    assert!(runs > 3 * 64, "{runs}");
    let in_memory = held(&parallel);
    let whole =
        pretty(&serde_json::to_value(Report::new(&in_memory, Vec::new())).unwrap()).unwrap();
    let report = Report::new(&parallel, Vec::new());
    assert_eq!(streamed(&report), whole);
    assert_eq!(report.to_json(), whole);
    // Spilled and held results are equal, and one thread gives the same.
    assert_eq!(parallel, in_memory);
    let serial = run(1);
    assert_eq!(streamed(&Report::new(&serial, Vec::new())), whole);
}

#[test]
fn runs_leave_nothing_in_the_temporary_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("report.json");
    let bin = env!("CARGO_BIN_EXE_agent-eval");
    // One run that passes, one whose expectations fail (replays named).
    for (seeds, code) in [("20", 0), ("2", 1)] {
        let status = support::command(bin)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("TMPDIR", tmp.path())
            .args([
                "run",
                "scenarios/ten_step_refactor.yaml",
                "--quiet",
                "--seeds",
                seeds,
            ])
            .arg("--json")
            .arg(&json)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(code));
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        assert!(std::fs::metadata(&json).unwrap().len() > 0);
    }
}
