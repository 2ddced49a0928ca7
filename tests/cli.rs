//! The binary as a user drives it: exit codes, messages, reports.

use crate::support;
use std::path::Path;
use std::process::Output;

fn agent_eval(args: &[&str]) -> Output {
    support::agent_eval_command()
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn shipped_scripted_scenarios_pass() {
    let out = agent_eval(&["run", "scenarios/scripted"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("ten-step-refactor-scripted"));
}

#[test]
fn every_malformed_scenario_exits_2_naming_the_file() {
    let mut files: Vec<_> = std::fs::read_dir("tests/data/bad")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20);
    for file in files {
        let name = file.to_string_lossy().into_owned();
        for command in ["check", "run"] {
            let out = agent_eval(&[command, &name]);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {name}: {stderr}");
            assert!(stderr.contains(&name), "{command} {name}: {stderr}");
            assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        }
    }
}

#[test]
fn errors_carry_line_and_column() {
    let out = agent_eval(&["check", "tests/data/bad/unknown_key.yaml"]);
    assert_eq!(
        text(&out.stderr).trim(),
        "error: tests/data/bad/unknown_key.yaml:5:1: unknown field `agnet`, expected one of name, description, task, session, workspace, steps, agent, model, runs, expect"
    );
}

#[test]
fn a_bad_file_among_good_ones_still_runs_the_rest() {
    let out = agent_eval(&[
        "run",
        "scenarios/scripted/max_turns.yaml",
        "tests/data/bad/no_task.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("max-turns-cutoff"));
    assert!(text(&out.stderr).contains("no_task.yaml:1:1: missing field `task`"));
}

#[test]
fn a_failed_expectation_exits_1_with_expected_and_measured() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wrong.yaml");
    std::fs::write(
        &file,
        "task: t\nsteps:\n  - {text: s, check: {file: a, exists: true}}\nmodel:\n  script:\n    - {tool: write_file, input: {path: a, content: x}}\n    - text: done\nexpect:\n  - turns: 3\n  - steps_completed: 1\n",
    )
    .unwrap();
    let out = agent_eval(&["run", &file.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("FAIL turns == 3: measured 2"), "{stdout}");
    assert!(stdout.contains("expected 3, measured 2"), "{stdout}");
    assert!(
        stdout.contains("2 expectations: 1 held, 1 failed"),
        "{stdout}"
    );
}

#[test]
fn bad_options_exit_2() {
    for args in [
        vec!["run", "--jobs", "0"],
        vec!["run", "--seeds", "abc"],
        vec![
            "replay",
            "scenarios/scripted/max_turns.yaml",
            "--threshold",
            "0",
        ],
        vec![
            "replay",
            "scenarios/scripted/max_turns.yaml",
            "--format",
            "xml",
        ],
        vec!["frobnicate"],
        vec!["run", "no/such/dir"],
        // A filter that matches nothing exits 3 (no scenario found): see
        // tests/cli_ux.rs.
    ] {
        let out = agent_eval(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(!text(&out.stderr).contains("panicked"));
    }
}

#[test]
fn replay_json_has_messages_and_metrics() {
    let out = agent_eval(&[
        "replay",
        "scenarios/scripted/max_turns.yaml",
        "--format",
        "json",
        "--threshold",
        "off",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages = value["messages"].as_array().unwrap();
    assert_eq!(
        messages[0],
        serde_json::json!({"role": "user", "content": "Count to ten, one file per number."})
    );
    assert_eq!(messages[1]["content"][0]["type"], "tool_use");
    assert_eq!(messages[1]["content"][0]["id"], "toolu_1_1");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    let metrics = &value["metrics"];
    assert_eq!(metrics["turns"], 4);
    assert_eq!(metrics["stop"], "max_turns");
    assert_eq!(metrics["reminders_at"], serde_json::json!([]));
    for key in [
        "rejected_todo_updates",
        "todo_calls",
        "steps_completed",
        "steps_total",
        "protocol_violations",
    ] {
        assert!(metrics[key].is_u64(), "{key}");
    }
}

#[test]
fn replay_no_todo_removes_the_tool() {
    let out = agent_eval(&[
        "replay",
        "scenarios/scripted/reminder_append.yaml",
        "--format",
        "json",
        "--no-todo",
    ]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["metrics"]["reminders_at"], serde_json::json!([]));
    let todo_result = &value["messages"][6]["content"][0]["content"];
    assert_eq!(todo_result, "Unknown tool: todo");
}

#[test]
fn json_report_is_identical_across_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.json");
    let two = dir.path().join("two.json");
    for (jobs, path) in [("1", &one), ("2", &two)] {
        let out = agent_eval(&[
            "run",
            "scenarios/scripted",
            "--jobs",
            jobs,
            "--json",
            &path.to_string_lossy(),
        ]);
        assert_eq!(out.status.code(), Some(0));
    }
    let a = std::fs::read(&one).unwrap();
    assert_eq!(a, std::fs::read(&two).unwrap());
    let report: serde_json::Value = serde_json::from_slice(&a).unwrap();
    assert_eq!(report["version"], 1);
    assert_eq!(report["ok"], true);
    let cell = &report["scenarios"][0]["cells"][0];
    for key in [
        "settings",
        "runs",
        "steps_total",
        "completion_rate",
        "completion_ci95",
        "full_completion_rate",
        "mean_steps_completed",
        "mean_reminders",
        "mean_rejected_todo_updates",
        "mean_turns",
        "results",
    ] {
        assert!(!cell[key].is_null(), "{key}");
    }
}

#[test]
fn check_lists_valid_scenarios() {
    let out = agent_eval(&["check", "scenarios"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("ok scenarios/scripted/ten_step_refactor.yaml"));
    assert!(Path::new("scenarios/scripted/ten_step_refactor.yaml").exists());
}
