//! `task_via: acp`: agent-eval as the Agent Client Protocol client of an
//! outside agent. A stand-in ACP agent written for these tests
//! (`tests/data/acp/stand_in_agent.py`, python3) runs a two-part session
//! whose plans land in the JSON report, the run log and the HTML page, and
//! misbehaves in each way a real agent could (garbage, silence, a request
//! agent-eval does not serve, an exit mid-prompt, a daemon left behind):
//! each ends the run with the reason and the agent's stderr tail, nothing
//! left running. The real agents follow: Codex through codex-acp (a
//! two-part session), OpenCode's `opencode acp`, and Gemini CLI's `--acp`
//! (as far as this branch's wire serves the Gemini API), which fail in CI
//! when their CLI is missing.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn stand_in() -> String {
    manifest_dir()
        .join("tests/data/acp/stand_in_agent.py")
        .display()
        .to_string()
}

/// Whether python3 runs here (the stand-in needs it); in CI it must.
fn python3() -> bool {
    let found = support::command("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        support::skip_unless_required("python3 is not installed (the stand-in ACP agent needs it)");
    }
    found
}

/// Runs a child to its end, killing it past `bound` (then the test fails).
fn output_within(mut command: Command, bound: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("agent-eval starts");
    let ended = support::wait_for(bound, || {
        child.try_wait().expect("wait for agent-eval").is_some()
    });
    if !ended {
        let _ = child.kill();
        let output = child.wait_with_output().expect("collect output");
        panic!(
            "agent-eval ran longer than {bound:?}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    child.wait_with_output().expect("collect agent-eval output")
}

/// What one `agent-eval run` gave.
struct Ran {
    status: Option<i32>,
    stderr: String,
    report: Option<Value>,
    log_lines: Vec<Value>,
    html: String,
}

/// `agent-eval run FILE --json --log-dir --html` in `dir`, with `home` as
/// HOME and the agents folder named when given.
fn run(dir: &Path, file: &Path, home: &Path, agents: Option<&Path>) -> Ran {
    let report = dir.join("report.json");
    let logs = dir.join("logs");
    let html = dir.join("report.html");
    let mut command = support::agent_eval_command();
    command
        .arg("run")
        .arg(file)
        .arg("--json")
        .arg(&report)
        .arg("--log-dir")
        .arg(&logs)
        .arg("--html")
        .arg(&html)
        .current_dir(manifest_dir())
        .env("HOME", home);
    if let Some(agents) = agents {
        command.env("AGENT_EVAL_AGENTS_DIR", agents);
    }
    let output = output_within(command, Duration::from_secs(300));
    let log_lines = std::fs::read_dir(&logs)
        .map(|entries| {
            entries
                .flatten()
                .flat_map(|e| {
                    let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                    text.lines()
                        .map(|l| serde_json::from_str(l).expect("a log line parses"))
                        .collect::<Vec<Value>>()
                })
                .collect()
        })
        .unwrap_or_default();
    Ran {
        status: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        report: std::fs::read_to_string(&report)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok()),
        log_lines,
        html: std::fs::read_to_string(&html).unwrap_or_default(),
    }
}

/// A two-part session run by the stand-in in `mode`.
fn stand_in_scenario(dir: &Path, mode: &str, timeout_s: u64, env: &str) -> PathBuf {
    let file = dir.join(format!("{mode}.yaml"));
    let text = format!(
        r#"name: stand-in-{mode}
session:
  - task: first message
    steps: [{{text: one, check: {{file: part1.txt, contains: "hello one"}}}}]
  - task: second message
    steps: [{{text: two, check: {{file: part2.txt, contains: "hello two"}}}}]
agent:
  command: python3 '{}' {mode}
  task_via: acp
  timeout_s: {timeout_s}{env}
model:
  script:
    - text: hello one
    - text: hello two
"#,
        stand_in()
    );
    std::fs::write(&file, text).expect("write the scenario");
    file
}

fn the_run(report: &Value) -> &Value {
    &report["scenarios"][0]["cells"][0]["results"][0]
}

#[test]
fn a_two_part_session_over_acp_records_the_agents_plans_everywhere() {
    if !python3() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = stand_in_scenario(dir.path(), "good", 30, "");
    let ran = run(dir.path(), &file, home.path(), None);
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let report = ran.report.expect("a JSON report");
    let result = the_run(&report);
    // One model request per prompt; both files written after the
    // permission agent-eval granted.
    assert_eq!(result["turns"], 2, "{result}");
    assert_eq!(result["steps_completed"], 2, "{result}");
    assert_eq!(result["parts"][0]["turns"], 1, "{result}");
    assert_eq!(result["parts"][1]["turns"], 1, "{result}");
    let plans = result["agent_plans"].as_array().expect("agent_plans");
    assert_eq!(plans.len(), 2, "{result}");
    assert_eq!(plans[0]["turn"], 1);
    assert_eq!(
        plans[0]["entries"],
        serde_json::json!([{"content": "Part 1", "priority": "low", "status": "in_progress"}])
    );
    assert_eq!(plans[1]["turn"], 2);
    assert_eq!(plans[1]["entries"][0]["status"], "completed");
    assert_eq!(plans[1]["entries"][0]["priority"], "high");
    // The run log's plans, which the HTML transcript shows.
    let line = &ran.log_lines[0];
    assert_eq!(line["plans"][1]["turn"], 2, "{line}");
    assert_eq!(line["plans"][1]["items"][1]["text"], "Part 2", "{line}");
    assert!(ran.html.contains("Part 2"), "the HTML shows the plan");
}

#[test]
fn an_agent_that_asks_for_authentication_gets_a_method_whose_key_it_has() {
    if !python3() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = stand_in_scenario(dir.path(), "auth", 30, "");
    let ran = run(dir.path(), &file, home.path(), None);
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(the_run(&ran.report.unwrap())["steps_completed"], 2);
}

#[test]
fn an_agent_that_plans_with_planning_off_makes_its_cell_invalid_and_fails_the_run() {
    if !python3() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // The stand-in reports a plan in every run, whatever the cell says
    // (as Codex over codex-acp calls update_plan with planning off).
    let file = stand_in_scenario(
        dir.path(),
        "good",
        30,
        "\nruns:\n  todo: [true, false]\n  seeds: 2",
    );
    let ran = run(dir.path(), &file, home.path(), None);
    assert_eq!(ran.status, Some(1), "{}", ran.stderr);
    let why = "the agent planned in 2 of 2 runs with planning off";
    assert!(
        ran.stderr.contains(&format!(
            "error: stand-in-good ({}): cell todo=false is invalid: {why}",
            file.display()
        )),
        "{}",
        ran.stderr
    );
    let report = ran.report.expect("a JSON report");
    let scenario = &report["scenarios"][0];
    let cells = scenario["cells"].as_array().expect("cells");
    assert_eq!(cells[0].get("invalid"), None, "the todo cell is measured");
    assert_eq!(cells[1]["settings"]["todo"], false);
    assert_eq!(cells[1]["invalid"], why);
    // The comparison with it is no difference, nor any: invalid.
    let comparison = &scenario["comparisons"][0];
    assert_eq!(
        comparison["invalid"],
        format!("cell todo=false is invalid: {why}")
    );
    let failed: Vec<&Value> = scenario["expectations"]
        .as_array()
        .expect("expectations")
        .iter()
        .filter(|e| e["ok"] == false)
        .collect();
    assert_eq!(failed.len(), 1, "{scenario}");
    assert_eq!(failed[0]["measured"], 2);
    assert!(ran.html.contains("invalid"), "the HTML says so");
}

/// The run of a misbehaving stand-in: exit 2, the run not made, the
/// message on stderr.
fn failing(mode: &str, timeout_s: u64, env: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = stand_in_scenario(dir.path(), mode, timeout_s, env);
    let started = Instant::now();
    let ran = run(dir.path(), &file, home.path(), None);
    assert_eq!(ran.status, Some(2), "{mode}: {}", ran.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(timeout_s + 20),
        "{mode}: bounded by its timeout"
    );
    assert!(
        ran.stderr.contains("the ACP agent failed: "),
        "{mode}: {}",
        ran.stderr
    );
    ran.stderr
}

#[test]
fn garbage_on_stdout_ends_the_run_with_the_line_quoted() {
    if !python3() {
        return;
    }
    let stderr = failing("garbage", 20, "");
    assert!(
        stderr.contains("it answered garbage: not JSON")
            && stderr.contains("Welcome to the stand-in agent!"),
        "{stderr}"
    );
}

#[test]
fn an_agent_that_never_answers_initialize_is_bounded() {
    if !python3() {
        return;
    }
    let stderr = failing("silent", 3, "");
    assert!(
        stderr.contains("it never answered `initialize` within 3 s"),
        "{stderr}"
    );
}

#[test]
fn an_agent_that_never_reads_its_stdin_is_failed_not_waited_on() {
    if !python3() {
        return;
    }
    let stderr = failing("deaf", 60, "");
    assert!(
        stderr.contains("it does not read its stdin: ")
            && stderr.contains("bytes of answers wait unread (at most 1048576)"),
        "{stderr}"
    );
}

#[test]
fn a_request_agent_eval_does_not_serve_ends_the_run() {
    if !python3() {
        return;
    }
    let stderr = failing("unserved", 20, "");
    assert!(
        stderr.contains("does not serve: `fs/read_text_file` (answered -32601)"),
        "{stderr}"
    );
}

#[test]
fn an_agent_that_exits_mid_prompt_fails_with_its_stderr_tail() {
    if !python3() {
        return;
    }
    let stderr = failing("exits", 20, "");
    assert!(
        stderr.contains(
            "it exited with status 3 while agent-eval waited for its answer to `session/prompt`"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("stand-in: crashing on the prompt"),
        "the agent's stderr tail: {stderr}"
    );
}

/// Processes whose command line holds `token`.
fn processes_with(token: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline.contains(token).then_some(cmdline)
        })
        .collect()
}

#[test]
fn nothing_the_agent_started_outlives_its_failed_run() {
    if !python3() {
        return;
    }
    let token = format!("acp-daemon-{}", std::process::id());
    let env = format!("\n  env: {{DAEMON_TOKEN: {token}}}");
    let stderr = failing("daemon", 3, &env);
    assert!(stderr.contains("never answered `initialize`"), "{stderr}");
    support::wait_for(Duration::from_secs(5), || processes_with(&token).is_empty());
    assert_eq!(processes_with(&token), Vec::<String>::new());
}

/// `agent-eval run` of a shipped test scenario with the agents folder
/// named and a fresh HOME, which must stay empty.
fn run_real(agents: &Path, name: &str) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = manifest_dir().join("tests/data/acp").join(name);
    let ran = run(dir.path(), &file, home.path(), Some(agents));
    let left: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.is_empty(),
        "{name}: the agent wrote into HOME: {left:?}"
    );
    ran
}

#[test]
fn codex_through_codex_acp_runs_a_two_part_session_and_reports_its_plan() {
    let Some(agents) = support::require_agents(&["codex-acp"]) else {
        return;
    };
    let ran = run_real(&agents, "codex_acp_session.yaml");
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let report = ran.report.expect("a JSON report");
    let result = the_run(&report);
    assert_eq!(result["stop"], "end_turn", "{result}");
    assert_eq!(result["steps_completed"], 2, "{result}");
    assert_eq!(result["parts"][0]["turns"], 3, "{result}");
    assert_eq!(result["parts"][1]["turns"], 3, "{result}");
    assert_eq!(result["todo_calls"], 2, "{result}");
    // Codex's update_plan calls, as the adapter reported them.
    let plans = result["agent_plans"].as_array().expect("agent_plans");
    assert_eq!(plans.len(), 2, "{result}");
    assert_eq!(plans[0]["turn"], 1);
    assert_eq!(
        plans[0]["entries"],
        serde_json::json!([{"content": "Write a.txt", "priority": "medium", "status": "in_progress"}])
    );
    assert_eq!(plans[1]["turn"], 5);
    assert_eq!(plans[1]["entries"][1]["content"], "Write b.txt");
    assert_eq!(plans[1]["entries"][1]["status"], "completed");
}

#[test]
fn opencode_over_acp_is_measured_and_reports_its_todos_only_as_tool_calls() {
    let Some(agents) = support::require_agents(&["opencode"]) else {
        return;
    };
    let ran = run_real(&agents, "opencode_acp_session.yaml");
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let report = ran.report.expect("a JSON report");
    let result = the_run(&report);
    assert_eq!(result["stop"], "end_turn", "{result}");
    assert_eq!(result["steps_completed"], 2, "{result}");
    assert_eq!(result["parts"][0]["turns"], 3, "{result}");
    assert_eq!(result["parts"][1]["turns"], 2, "{result}");
    // OpenCode 1.18.33 sends no ACP `plan` update for todowrite: its todo
    // list reaches the client only as a tool call's output.
    assert_eq!(result.get("agent_plans"), None, "{result}");
    let line = &ran.log_lines[0];
    let messages = line["messages"].to_string();
    assert!(messages.contains("todowrite"), "{line}");
}

#[test]
fn gemini_cli_over_acp_is_measured() {
    let Some(agents) = support::require_agents(&["gemini"]) else {
        return;
    };
    let ran = run_real(&agents, "gemini_acp.yaml");
    // Past `initialize` and `session/new` (with the API key from its
    // throwaway settings), its prompt reaches the mock on the Gemini API's
    // path (`streamGenerateContent`), and the whole run is measured.
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let report = ran.report.expect("a JSON report");
    let result = the_run(&report);
    assert_eq!(result["steps_completed"], 1, "{report}");
    assert_eq!(result["turns"], 3, "{result}");
}

/// The gemini-cli and opencode presets in their ACP modes run a
/// two-message session written in the built-in tools, which their headless
/// modes (one prompt a process) cannot.
#[test]
fn the_gemini_and_opencode_presets_run_two_part_sessions_over_acp() {
    for (cli, file) in [
        ("gemini", "gemini_preset_acp.yaml"),
        ("opencode", "opencode_preset_acp.yaml"),
    ] {
        // A missing CLI skips its preset only: the other is still tested.
        let Some(agents) = support::require_agents(&[cli]) else {
            continue;
        };
        let ran = run_real(&agents, file);
        assert_eq!(ran.status, Some(0), "{file}: {}", ran.stderr);
        let report = ran.report.expect("a JSON report");
        let result = the_run(&report);
        assert_eq!(result["steps_completed"], 2, "{file}: {result}");
        assert_eq!(result["parts"][0]["turns"], 3, "{file}: {result}");
        assert_eq!(result["parts"][1]["turns"], 2, "{file}: {result}");
        assert_eq!(result["unknown_tool_calls"], 0, "{file}: {result}");
    }
}

#[test]
fn the_codex_preset_runs_a_built_in_session_over_acp() {
    let Some(agents) = support::require_agents(&["codex-acp"]) else {
        return;
    };
    let ran = run_real(&agents, "codex_preset_acp.yaml");
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let report = ran.report.expect("a JSON report");
    let result = the_run(&report);
    assert_eq!(result["parts"][0]["turns"], 3, "{result}");
    assert_eq!(result["parts"][1]["turns"], 2, "{result}");
    assert_eq!(result["unknown_tool_calls"], 0, "{result}");
    assert_eq!(
        result["agent_plans"][0]["entries"][0]["content"], "Write a.txt",
        "{result}"
    );
}

/// codex-acp has no switch for `update_plan`: in the no-planning cell the
/// model is never offered it, so the cell is measured, not invalid.
#[test]
fn the_codex_preset_over_acp_does_not_plan_with_planning_off() {
    let Some(agents) = support::require_agents(&["codex-acp"]) else {
        return;
    };
    let ran = run_real(&agents, "codex_preset_acp_no_planning.yaml");
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let report = ran.report.expect("a JSON report");
    let cells = &report["scenarios"][0]["cells"];
    let (on, off) = (&cells[0], &cells[1]);
    assert_eq!(off["settings"]["todo"], false, "{report}");
    assert_eq!(off.get("invalid"), None, "{off}");
    assert_eq!(off["results"][0]["todo_calls"], 0, "{off}");
    assert_eq!(off["results"][0].get("agent_plans"), None, "{off}");
    assert_eq!(on["results"][0]["todo_calls"], 1, "{on}");
    assert_eq!(
        on["results"][0]["agent_plans"][0]["entries"][0]["content"], "Write a.txt",
        "{on}"
    );
    // The model's calls as the agent saw them: `update_plan` only where
    // planning is on.
    let called = |todo: bool| {
        let line = ran
            .log_lines
            .iter()
            .find(|l| l["settings"]["todo"] == todo)
            .expect("a logged run per cell");
        line["messages"]
            .to_string()
            .contains(r#""name":"update_plan""#)
    };
    assert!(called(true), "the todo cell's call is update_plan");
    assert!(!called(false), "update_plan is never offered to the model");
}

#[test]
fn a_preset_without_an_acp_mode_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = dir.path().join("claude.yaml");
    std::fs::write(
        &file,
        "name: x\ntask: t\nsteps: [{text: a}]\nagent: {preset: claude-code, task_via: acp}\nmodel: {script: [{text: done}]}\n",
    )
    .unwrap();
    let ran = run(dir.path(), &file, home.path(), None);
    assert_eq!(ran.status, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("claude.yaml")
            && ran
                .stderr
                .contains("agent preset `claude-code` has no Agent Client Protocol mode"),
        "{}",
        ran.stderr
    );
    // Any other delivery stays a command's.
    std::fs::write(
        &file,
        "name: x\ntask: t\nsteps: [{text: a}]\nagent: {preset: codex, task_via: lines}\nmodel: {script: [{text: done}]}\n",
    )
    .unwrap();
    let ran = run(dir.path(), &file, home.path(), None);
    assert_eq!(ran.status, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("agent.task_via (but `acp`)"),
        "{}",
        ran.stderr
    );
}
