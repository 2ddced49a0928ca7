//! `agent-eval run --agent` and `agent: {command: ...}`: an external agent
//! of the s03 design (the example agent) run per run through the wire gives
//! the built-in loop's results, cell for cell and seed for seed, with the
//! matrix's settings passed to it in its environment.

use agent_eval::scenario::{self, Axis, Dialect, Placement, ReminderSpec};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support;

const AGENT: &str = env!("CARGO_BIN_EXE_s03-agent");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn agent_eval(args: &[&str]) -> Output {
    let bin_dir = Path::new(AGENT).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    support::agent_eval_command()
        .args(args)
        .current_dir(root())
        .env("PATH", path)
        .output()
        .unwrap()
}

fn report(args: &[&str], json: &Path) -> Value {
    let mut all = args.to_vec();
    let json_text = json.to_str().unwrap();
    all.extend(["--json", json_text, "--quiet"]);
    let output = agent_eval(&all);
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

/// Every cell's per-run results, in report order.
fn results(report: &Value) -> Vec<(String, Value, Value)> {
    let mut all = Vec::new();
    for scenario in report["scenarios"].as_array().unwrap() {
        for cell in scenario["cells"].as_array().unwrap() {
            all.push((
                scenario["name"].as_str().unwrap().to_string(),
                cell["settings"].clone(),
                cell["results"].clone(),
            ));
        }
    }
    all
}

fn compare(paths: &[&str], extra: &[&str]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let mut built_in_args = vec!["run"];
    built_in_args.extend(paths);
    built_in_args.extend(extra);
    let mut external_args = built_in_args.clone();
    let command = format!("'{AGENT}'");
    external_args.extend(["--agent", command.as_str()]);
    let built_in = results(&report(&built_in_args, &dir.path().join("a.json")));
    let external = results(&report(&external_args, &dir.path().join("b.json")));
    assert_eq!(built_in.len(), external.len());
    for (a, b) in built_in.iter().zip(&external) {
        assert_eq!(a, b, "{} {}", a.0, a.1);
    }
    built_in.len()
}

/// The scenario files below `dir` whose loop the example agent implements
/// (s03 dialect and reminders, no repeat guard, no fold).
fn s03_scenarios(dir: &str) -> Vec<String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| {
            let scenario = scenario::load(p).unwrap();
            let agent = &scenario.agent;
            agent.dialect == Dialect::S03
                && agent.repeat_guard.is_none()
                && agent.placement != Placement::Fold
                && matches!(agent.reminder, ReminderSpec::S03 { .. } | ReminderSpec::Off)
                && [Axis::Dialect, Axis::Reminder, Axis::Placement]
                    .iter()
                    .all(|axis| scenario.runs.values(axis).is_none())
        })
        .map(|p| p.display().to_string())
        .collect()
}

#[test]
fn run_agent_matches_the_built_in_loop_on_every_scripted_scenario() {
    let paths = s03_scenarios("scenarios/scripted");
    assert!(paths.len() >= 8, "{paths:?}");
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let cells = compare(&paths, &[]);
    assert!(cells >= 8, "{cells} cells");
}

#[test]
fn run_agent_follows_the_matrix_seed_for_seed_on_simulated_scenarios() {
    let mut paths = s03_scenarios("scenarios/simulated");
    paths.push("scenarios/ten_step_refactor.yaml".into());
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let cells = compare(&paths, &["--seeds", "2"]);
    assert!(cells >= 10, "{cells} cells");
}

#[test]
fn a_scenario_can_name_its_agent_and_its_expectations_hold() {
    let output = agent_eval(&["run", "examples/s03_agent/"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("6 expectations: all held"), "{stdout}");
}

#[test]
fn replay_agent_shows_the_agents_conversation() {
    let scenario = "scenarios/scripted/reminder_append.yaml";
    let built_in = agent_eval(&["replay", scenario, "--format", "json"]);
    let command = format!("'{AGENT}'");
    let external = agent_eval(&["replay", scenario, "--format", "json", "--agent", &command]);
    assert!(
        external.status.success(),
        "{}",
        String::from_utf8_lossy(&external.stderr)
    );
    let a: Value = serde_json::from_slice(&built_in.stdout).unwrap();
    let b: Value = serde_json::from_slice(&external.stdout).unwrap();
    assert_eq!(a["messages"], b["messages"]);
    assert_eq!(a["metrics"], b["metrics"]);
    // The text view ends with what the agent printed.
    let text = agent_eval(&["replay", scenario, "--agent", &command]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.trim_end()
            .ends_with("--- agent output (stdout and stderr) ---\nDone."),
        "{text}"
    );
}

#[test]
fn external_agent_keys_are_checked_when_loading() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, agent: &str| -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!("task: t\nsteps: [{{text: a}}]\nagent: {agent}\nmodel: {{script: [{{text: done}}]}}\n"),
        )
        .unwrap();
        path
    };
    for (name, agent) in [
        ("no_command.yaml", "{env: {A: b}}"),
        ("empty.yaml", "{command: \"  \"}"),
        ("zero.yaml", "{command: x, timeout_s: 0}"),
        ("via.yaml", "{command: x, task_via: pigeon}"),
        ("typo.yaml", "{command: x, comand: y}"),
    ] {
        let path = write(name, agent);
        let output = agent_eval(&["check", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2), "{name} was accepted");
    }
    let path = write(
        "ok.yaml",
        "{command: \"cat > /dev/null\", env: {A: b}, task_via: arg, timeout_s: 5, reminder_pattern: NAG}",
    );
    let output = agent_eval(&["check", path.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

const FREEFORM: &str = r#"name: freeform
task: Patch the greeting.
steps: [{text: patch}]
model:
  script:
    - tool: apply_patch
      input: |
        *** Begin Patch
        *** End Patch
    - text: Done.
"#;

#[test]
fn a_freeform_call_stops_the_built_in_loop_naming_scenario_and_turn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("freeform.yaml");
    std::fs::write(&path, FREEFORM).unwrap();
    let output = agent_eval(&["replay", path.to_str().unwrap(), "--format", "json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let replay: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(replay["metrics"]["stop"], "model_error");
    let error = replay["metrics"]["model_error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        error.starts_with("freeform: turn 1: the call of `apply_patch` has a freeform"),
        "{replay}"
    );
}

#[test]
fn a_freeform_call_reaches_an_agent_on_the_responses_api() {
    if support::command("curl").arg("--version").output().is_err() {
        support::skip_unless_required("curl is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("freeform.yaml");
    std::fs::write(&path, FREEFORM).unwrap();
    // A one-request agent: asks the Responses API once and prints the answer.
    let agent = r#"curl -s -H 'content-type: application/json' -d '{"model":"m","input":"Patch it.","tools":[{"type":"custom","name":"apply_patch"}]}' "$OPENAI_BASE_URL/responses""#;
    let output = agent_eval(&["replay", path.to_str().unwrap(), "--agent", agent]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains(r#""type":"custom_tool_call""#), "{text}");
    assert!(
        text.contains(r#""input":"*** Begin Patch\n*** End Patch\n""#),
        "{text}"
    );
}

#[test]
fn external_runs_in_parallel_give_the_same_report_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!("'{AGENT}'");
    let mut reports = Vec::new();
    for jobs in ["1", "4"] {
        let json = dir.path().join(format!("jobs{jobs}.json"));
        let output = agent_eval(&[
            "run",
            "scenarios/simulated",
            "--seeds",
            "2",
            "--jobs",
            jobs,
            "--agent",
            &command,
            "--json",
            json.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(output.status.code().is_some_and(|c| c <= 1));
        reports.push(std::fs::read(&json).unwrap());
    }
    assert_eq!(reports[0], reports[1]);
}
