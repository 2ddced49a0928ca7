//! The GitHub Copilot CLI preset (`--agent copilot`, pinned 1.0.102) on the
//! real binary: a script in the built-in tools and the `copilot-sql`
//! dialect keeps its plan in Copilot's own `todos` table, headless and
//! over ACP, with the figures agent-eval reads off the wire matching the
//! CLI's answers. Fails in CI when the CLI is missing; a missing CLI is
//! bad input naming the install command.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(agents: &Path, args: &[&str]) -> (Output, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let mut child = support::agent_eval_command()
        .args(args)
        .current_dir(manifest_dir())
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agent-eval starts");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("agent-eval ran past 300 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().expect("output"), home)
}

/// The one run of `scenario` (under tests/data/copilot), checked to pass.
fn the_run(agents: &Path, scenario: &str) -> (Value, Value) {
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("r.json");
    let logs = out.path().join("logs");
    let file = format!("tests/data/copilot/{scenario}");
    let (output, home) = run(
        agents,
        &[
            "run",
            &file,
            "--json",
            report.to_str().unwrap(),
            "--log-dir",
            logs.to_str().unwrap(),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(home.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "the CLI wrote into the HOME it inherited");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let log = std::fs::read_dir(&logs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    (
        report["scenarios"][0]["cells"][0]["results"][0].clone(),
        line,
    )
}

fn assert_figures(result: &Value) {
    assert_eq!(result["turns"], 6, "{result}");
    assert_eq!(result["steps_completed"], 3, "{result}");
    assert_eq!(result["todo_calls"], 3, "{result}");
    // `completed` is no status of Copilot's table: its CHECK constraint.
    assert_eq!(result["rejected_todo_updates"], 1, "{result}");
    assert_eq!(result["unknown_tool_calls"], 0, "{result}");
    assert_eq!(result["reminders_at"], serde_json::json!([]), "{result}");
}

#[test]
fn copilot_keeps_its_plan_in_its_todos_table_headless() {
    let Some(agents) = support::require_agents(&["copilot"]) else {
        return;
    };
    let (result, line) = the_run(&agents, "copilot_sql.yaml");
    assert_figures(&result);
    // The plan read back through the dialect: both todos done.
    let plans = line["plans"].as_array().unwrap();
    let last = &plans.last().unwrap()["items"];
    assert_eq!(last[0]["id"], "write-script", "{line}");
    assert_eq!(last[0]["status"], "completed");
    assert_eq!(last[1]["status"], "completed");
    // The CLI's own answer to the rejected call, as the dialect words it.
    let messages = line["messages"].to_string();
    assert!(
        messages.contains(
            "CHECK constraint failed: status IN ('pending', 'in_progress', 'done', 'blocked')"
        ),
        "{messages}"
    );
}

#[test]
fn copilot_over_acp_gives_the_same_figures() {
    let Some(agents) = support::require_agents(&["copilot"]) else {
        return;
    };
    let (result, _) = the_run(&agents, "copilot_acp.yaml");
    assert_figures(&result);
    // What Copilot 1.0.102 reports as its ACP plan holds none of the rows
    // of its todos table (probed: one update, empty).
    for plan in result["agent_plans"].as_array().into_iter().flatten() {
        assert_eq!(plan["entries"], serde_json::json!([]), "{result}");
    }
}

#[test]
fn a_missing_copilot_is_bad_input_naming_the_install_command() {
    let empty = tempfile::tempdir().unwrap();
    let (output, _) = run(
        empty.path(),
        &["run", "tests/data/copilot/copilot_sql.yaml"],
    );
    let all = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{all}");
    assert!(
        all.contains("agent preset `copilot`: the `copilot` CLI is not installed"),
        "{all}"
    );
    assert!(all.contains("bash .ci/install-agents.sh"), "{all}");
}
