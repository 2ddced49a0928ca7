//! Real CLI agents under test: the Claude Code CLI and the Codex CLI (each scenario's
//! `agent.command`), and the Gemini CLI, Qwen Code and OpenCode (their presets),
//! unmodified, driven headless by `agent-eval run` against the per-run mock endpoint, on
//! scripted scenarios written in each CLI's own tool names, with some built-in calls the
//! preset's translation sends in the CLI's tools (`tests/data/agents/`). Every metric is read off the wire, and the steps are scored on
//! the workspace, so these tests check the whole HTTP boundary against clients no one on
//! this project wrote.
//!
//! The CLIs come from `.ci/install-agents.sh` (pinned versions, installed under
//! `AGENT_EVAL_AGENTS_DIR`, default `~/.cache/agent-eval/agents`). When a CLI is not
//! installed its tests print why and pass without running: the rest of the suite must not
//! need npm. In CI (`CI=true`, or `AGENT_EVAL_REQUIRE_TOOLS=1`, which `.ci/run` sets) a
//! missing CLI fails instead: there these tests must really run. Scenario validation and the replay of the captured requests
//! (`tests/data/wire/*.json`, what these CLIs really sent) need nothing and always run.

use crate::support;

use agent_eval::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse};
use agent_eval::wire::{MockServer, Reply, ServerOptions};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A bound on one `agent-eval run` of a real agent (the scenarios' own agent timeout is
/// 120 s; a run normally takes a few seconds).
const RUN_BOUND: Duration = Duration::from_secs(300);

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scenario(name: &str) -> PathBuf {
    manifest_dir().join("tests/data/agents").join(name)
}

/// The agents folder when `cli` is installed there and answers `--version`.
fn installed(cli: &str) -> Option<PathBuf> {
    let dir = support::agents_dir()?;
    let binary = dir.join("node_modules/.bin").join(cli);
    if !binary.exists() {
        return None;
    }
    let home = tempfile::tempdir().ok()?;
    let output = support::command(&binary)
        .arg("--version")
        .env("HOME", home.path())
        .env("CODEX_HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .ok()?;
    output.status.success().then_some(dir)
}

/// The agents folder, or a printed reason to skip (outside CI only).
fn require(cli: &str) -> Option<PathBuf> {
    let found = installed(cli);
    if found.is_none() {
        let why = format!(
            "the `{cli}` CLI is not installed under {} \
             (run `bash .ci/install-agents.sh`, or set AGENT_EVAL_AGENTS_DIR)",
            support::agents_dir().map_or_else(|| "<no HOME>".into(), |d| d.display().to_string())
        );
        support::skip_unless_required(&why);
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
    let started = Instant::now();
    loop {
        match child.try_wait().expect("wait for agent-eval") {
            Some(_) => break,
            None if started.elapsed() > bound => {
                let _ = child.kill();
                let output = child.wait_with_output().expect("collect agent-eval output");
                panic!(
                    "agent-eval ran longer than {bound:?}\nstdout:\n{}\nstderr:\n{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    child.wait_with_output().expect("collect agent-eval output")
}

/// What one `agent-eval run` of a real-agent scenario gave.
struct AgentRun {
    result: Value,
    /// The HOME agent-eval (and so the agent) inherited: the scenario points the agent's
    /// HOME into its workspace, so nothing may land here.
    home: tempfile::TempDir,
}

/// `agent-eval run SCENARIO --json REPORT` with the agents folder named explicitly and a
/// fresh HOME; asserts that it exits 0 (every expectation of the scenario held) and
/// returns the single run's result.
fn run_scenario(agents: &Path, name: &str) -> AgentRun {
    let out = tempfile::tempdir().expect("temp dir");
    let home = tempfile::tempdir().expect("temp home");
    let report = out.path().join("report.json");
    let mut command = support::agent_eval_command();
    command
        .arg("run")
        .arg(scenario(name))
        .arg("--json")
        .arg(&report)
        .current_dir(manifest_dir())
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .env("HOME", home.path());
    let output = output_within(command, RUN_BOUND);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{name}: agent-eval run failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let text = std::fs::read_to_string(&report).expect("the JSON report is written");
    let report: Value = serde_json::from_str(&text).expect("the JSON report parses");
    assert_eq!(report["ok"], Value::Bool(true), "{name}: {text}");
    let cells = report["scenarios"][0]["cells"]
        .as_array()
        .expect("cells in the report");
    assert_eq!(cells.len(), 1, "{name}: one cell: {text}");
    let results = cells[0]["results"].as_array().expect("results in the cell");
    assert_eq!(results.len(), 1, "{name}: one run: {text}");
    AgentRun {
        result: results[0].clone(),
        home,
    }
}

/// The metrics every real-agent scenario states, checked on the report too (an
/// expectation the runner ignored would otherwise pass unseen).
fn assert_metrics(
    name: &str,
    result: &Value,
    turns: u64,
    todo_calls: u64,
    rejected: u64,
    reminders_at: &[u64],
    steps: u64,
) {
    let field = |key: &str| result.get(key).cloned().unwrap_or(Value::Null);
    assert_eq!(field("stop"), "end_turn", "{name}: {result}");
    assert_eq!(field("turns"), turns, "{name}: {result}");
    assert_eq!(field("todo_calls"), todo_calls, "{name}: {result}");
    assert_eq!(field("rejected_todo_updates"), rejected, "{name}: {result}");
    assert_eq!(
        field("reminders_at"),
        Value::from(reminders_at.to_vec()),
        "{name}: {result}"
    );
    assert_eq!(field("steps_completed"), steps, "{name}: {result}");
    assert_eq!(field("protocol_violations"), 0, "{name}: {result}");
    assert_eq!(field("unknown_tool_calls"), 0, "{name}: {result}");
}

fn assert_home_untouched(name: &str, home: &Path) {
    let left: Vec<String> = std::fs::read_dir(home)
        .expect("read the inherited HOME")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        left.is_empty(),
        "{name}: the agent wrote into the HOME it inherited: {left:?}"
    );
}

/// `agent-eval serve SCENARIO`, stopped (SIGTERM, then SIGKILL) when dropped.
struct Serve {
    child: Child,
    anthropic_base_url: String,
    openai_base_url: String,
}

impl Serve {
    fn start(scenario_file: &Path) -> Self {
        let mut child = support::agent_eval_command()
            .arg("serve")
            .arg(scenario_file)
            .args(["--listen", "127.0.0.1:0"])
            .current_dir(manifest_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agent-eval serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (lines_tx, lines_rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut serve = Self {
            child,
            anthropic_base_url: String::new(),
            openai_base_url: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while serve.openai_base_url.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = lines_rx.recv_timeout(left) else {
                panic!("agent-eval serve printed no URLs: {}", serve.stop());
            };
            let line = line.trim();
            if let Some(url) = line.strip_prefix("ANTHROPIC_BASE_URL=") {
                serve.anthropic_base_url = url.to_string();
            } else if let Some(url) = line.strip_prefix("OPENAI_BASE_URL=") {
                serve.openai_base_url = url.to_string();
            }
        }
        serve
    }

    /// Stops the server and returns what it printed on stderr (its summary).
    fn stop(&mut self) -> String {
        // SAFETY: kill has no memory-safety preconditions; the pid is our own child's.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        stderr
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.stop();
        }
    }
}

/// `agent-eval serve SCENARIO`, then the scenario's agent command run directly (as a user
/// would, with the URLs serve printed) in a fresh workspace with the task on stdin.
/// Returns the workspace and serve's summary line.
fn serve_then_agent(agents: &Path, name: &str) -> (tempfile::TempDir, String) {
    let file = scenario(name);
    let text = std::fs::read_to_string(&file).expect("scenario readable");
    let spec: Value = serde_saphyr::from_str(&text).expect("scenario parses as YAML");
    let command_line = spec["agent"]["command"].as_str().expect("agent.command");
    let task = spec["task"].as_str().expect("task").to_string();
    let mut serve = Serve::start(&file);
    let workspace = tempfile::tempdir().expect("workspace");
    let mut command = support::command("sh");
    command
        .arg("-c")
        .arg(command_line)
        .current_dir(workspace.path())
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .env("ANTHROPIC_BASE_URL", &serve.anthropic_base_url)
        .env("ANTHROPIC_API_KEY", "dummy")
        .env("OPENAI_BASE_URL", &serve.openai_base_url)
        .env("OPENAI_API_KEY", "dummy")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(env) = spec["agent"]["env"].as_object() {
        for (key, value) in env {
            command.env(key, value.as_str().expect("env values are text"));
        }
    }
    let mut child = command.spawn().expect("the agent starts");
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin.write_all(task.as_bytes()).expect("task written");
    }
    let started = Instant::now();
    while matches!(child.try_wait(), Ok(None)) {
        if started.elapsed() > RUN_BOUND {
            let _ = child.kill();
            panic!("{name}: the agent ran longer than {RUN_BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().expect("agent output");
    assert!(
        output.status.success(),
        "{name}: the agent failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = serve.stop();
    (workspace, summary)
}

#[test]
fn agent_scenarios_are_valid_without_any_cli() {
    let output = support::agent_eval_command()
        .arg("check")
        .arg(manifest_dir().join("tests/data/agents"))
        .current_dir(manifest_dir())
        .output()
        .expect("agent-eval check runs");
    assert!(
        output.status.success(),
        "agent-eval check tests/data/agents failed:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Claude Code: TodoWrite (accepted), Write, Read, Edit in parallel with a TodoWrite the
/// CLI itself rejects, Bash, TodoWrite, text. Seven turns, three planning calls, one
/// rejected, every step done.
#[test]
fn claude_code_completes_its_script_over_the_wire() {
    let Some(agents) = require("claude") else {
        return;
    };
    let run = run_scenario(&agents, "claude_code.yaml");
    assert_metrics("claude-code-greet", &run.result, 7, 3, 1, &[], 3);
    assert_home_untouched("claude-code-greet", run.home.path());
}

/// Claude Code's own reminder, read off the wire: a TodoWrite, then eleven Bash turns; the
/// request after turn 11 carries "The TodoWrite tool hasn't been used recently".
#[test]
fn claude_code_reminder_is_read_off_the_wire() {
    let Some(agents) = require("claude") else {
        return;
    };
    let run = run_scenario(&agents, "claude_code_reminder.yaml");
    assert_metrics("claude-code-reminder", &run.result, 13, 1, 0, &[11], 1);
    assert_home_untouched("claude-code-reminder", run.home.path());
}

/// Claude Code's Task tools (`claude-code-tasks`), deferred behind ToolSearch: ToolSearch
/// (not a planning call), two TaskCreates, two TaskUpdates, a TaskUpdate the CLI rejects
/// (status `done`), ten Bash turns and the CLI's task reminder after turn 14, then the
/// tasks completed and listed. 17 turns, 8 planning calls, 1 rejected.
#[test]
fn claude_code_task_tools_are_read_off_the_wire() {
    let Some(agents) = require("claude") else {
        return;
    };
    let run = run_scenario(&agents, "claude_code_tasks.yaml");
    assert_metrics("claude-code-tasks", &run.result, 17, 8, 1, &[14], 2);
    assert_home_untouched("claude-code-tasks", run.home.path());
}

/// A two-message session on Claude Code through its streaming JSON input
/// (`task_via: stream-json`): each part is handed over once the model ended
/// its turn on the one before, and the CLI answers it in the same
/// conversation. Three turns a part, a TodoWrite in each.
#[test]
fn claude_code_answers_a_session_through_its_streaming_input() {
    let Some(agents) = require("claude") else {
        return;
    };
    let run = run_scenario(&agents, "claude_code_session.yaml");
    assert_metrics("claude-code-session", &run.result, 6, 2, 0, &[], 2);
    let parts = run.result["parts"]
        .as_array()
        .expect("parts in a session's record");
    let turns: Vec<&Value> = parts.iter().map(|p| &p["turns"]).collect();
    assert_eq!(turns, [3, 3], "{}", run.result);
    assert_eq!(
        run.result.get("unexpected_user_messages"),
        Some(&Value::from(0)),
        "{}",
        run.result
    );
    assert_home_untouched("claude-code-session", run.home.path());
}

/// Codex over the Responses API: update_plan, exec_command, apply_patch as a freeform
/// custom tool call, exec_command in parallel with an update_plan the CLI rejects,
/// update_plan, text. Six turns, three planning calls, one rejected, every step done.
#[test]
fn codex_completes_its_script_over_the_wire() {
    let Some(agents) = require("codex") else {
        return;
    };
    let run = run_scenario(&agents, "codex.yaml");
    assert_metrics("codex-greet", &run.result, 6, 3, 1, &[], 3);
    assert_home_untouched("codex-greet", run.home.path());
}

/// Gemini CLI over the Gemini API: write_todos, write_file, the built-in edit_file as
/// `replace` beside a write_todos the CLI refuses (two in progress), the built-in bash as
/// run_shell_command, write_todos, text. Six turns, three planning calls, one rejected,
/// no reminder (Gemini has none), every step done.
#[test]
fn gemini_cli_completes_its_script_over_the_gemini_api() {
    let Some(agents) = require("gemini") else {
        return;
    };
    let run = run_scenario(&agents, "gemini_cli.yaml");
    assert_metrics("gemini-greet", &run.result, 6, 3, 1, &[], 3);
    assert_home_untouched("gemini-greet", run.home.path());
}

/// Qwen Code over Chat Completions with todo_write on: todo_write, write_file, the
/// built-in edit_file (a read_file then `edit`), run_shell_command, a todo_write the CLI
/// refuses (status `done`), todo_write completing every item, text. Seven turns, three
/// planning calls, one rejected; Qwen's unfinished-items reminder after turn 3 only.
#[test]
fn qwen_code_completes_its_script_and_reminds_once() {
    let Some(agents) = require("qwen") else {
        return;
    };
    let run = run_scenario(&agents, "qwen_code.yaml");
    assert_metrics("qwen-greet", &run.result, 7, 3, 1, &[3], 3);
    assert_home_untouched("qwen-greet", run.home.path());
}

/// OpenCode through its throwaway provider: todowrite, write, the built-in edit_file as
/// `edit`, bash, a todowrite the CLI refuses (no priority), todowrite, text. Seven turns,
/// three planning calls, one rejected, no reminder, every step done.
#[test]
fn opencode_completes_its_script_through_its_provider() {
    let Some(agents) = require("opencode") else {
        return;
    };
    let run = run_scenario(&agents, "opencode.yaml");
    assert_metrics("opencode-greet", &run.result, 7, 3, 1, &[], 3);
    assert_home_untouched("opencode-greet", run.home.path());
}

/// Answers every request with one short text: the replay tests look at how the server
/// read the request, not at the answer.
struct Ack;

impl Model for Ack {
    fn respond(&mut self, _request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(ModelResponse::from_blocks(vec![ContentBlock::text("ok")]))
    }
}

/// Sends one captured request (path, headers, body as the CLI sent them) to a fresh mock
/// server and returns the HTTP status, the answer's content type and body, and what the
/// server recorded of the request.
fn replay_capture(name: &str) -> (u16, String, String, agent_eval::wire::Exchange) {
    let path = manifest_dir().join("tests/data/wire").join(name);
    let text = std::fs::read_to_string(&path).expect("the capture is readable");
    let capture: Value = serde_json::from_str(&text).expect("the capture parses");
    let server = MockServer::start(Box::new(Ack), ServerOptions::default()).expect("server");
    let url = format!(
        "{}{}",
        server.base_url(),
        capture["path"].as_str().expect("a path")
    );
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .no_proxy()
        .build()
        .expect("client");
    let mut request = client.post(url);
    for (key, value) in capture["headers"].as_object().expect("headers") {
        // The transport headers belong to this connection, not to the capture's.
        if matches!(key.as_str(), "host" | "content-length" | "connection") {
            continue;
        }
        request = request.header(key, value.as_str().expect("a header value"));
    }
    let response = request
        .header("x-api-key", "dummy")
        .header("authorization", "Bearer dummy")
        .body(serde_json::to_vec(&capture["body"]).expect("the body serializes"))
        .send()
        .expect("the server answers");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = response.text().expect("the answer is text");
    let mut exchanges = server.stop();
    assert_eq!(exchanges.len(), 1, "{name}: one exchange recorded");
    (status, content_type, body, exchanges.remove(0))
}

/// What every replayed capture must give: a 200 streamed answer (both CLIs always ask
/// for `stream: true`), a request the server could read, no protocol violation, and
/// the tools the CLI offered. `turn`: the turn the conversation is at (assistant
/// messages so far plus one), which the server reads off the request.
fn assert_replayed(name: &str, turn: usize, tools: &[&str]) -> agent_eval::wire::WireRequest {
    let (status, content_type, body, exchange) = replay_capture(name);
    assert_eq!(status, 200, "{name}: {body}");
    assert!(
        content_type.starts_with("text/event-stream"),
        "{name}: streamed answer expected, got {content_type}: {body}"
    );
    assert!(
        matches!(exchange.reply, Reply::Response { turn: t, .. } if t == turn),
        "{name}: {:?}",
        exchange.reply
    );
    assert!(
        exchange.violations.is_empty(),
        "{name}: a real client's request broke no rule: {:?}",
        exchange.violations
    );
    let request = exchange.request.expect("the request was read").to_wire();
    assert!(request.stream, "{name}: stream: true");
    for tool in tools {
        assert!(request.offers(tool), "{name}: offers {tool}");
    }
    request
}

#[test]
fn claude_code_capture_is_served() {
    let request = assert_replayed(
        "claude_code_request.json",
        7,
        &["Bash", "Write", "Read", "Edit", "TodoWrite"],
    );
    // The task message, then six assistant/user rounds (the system messages are not
    // part of the alternating conversation).
    assert_eq!(request.messages.len(), 13, "{:?}", request.messages);
    let added = request.added_texts().join("\n");
    assert!(
        added.starts_with("<tool_use_error>InputValidationError: TodoWrite failed"),
        "the last tool result (Claude Code rejecting a TodoWrite) is new content: {added}"
    );
    assert!(
        added.contains("The user hasn't heard from you in a while."),
        "so is the `system` message Claude Code put after it: {added}"
    );
    assert!(
        !added.contains("The TodoWrite tool hasn't been used recently"),
        "{added}"
    );
}

#[test]
fn claude_code_reminder_capture_shows_the_reminder_as_new_content() {
    let request = assert_replayed("claude_code_reminder_request.json", 12, &["TodoWrite"]);
    let added = request.added_texts().join("\n");
    assert!(
        added.contains("The TodoWrite tool hasn't been used recently"),
        "Claude Code's reminder (a `system` message after the tool results) is new: {added}"
    );
    assert!(
        !added.contains("<system-reminder>"),
        "the attribution reminder of the first message is history, not new: {added}"
    );
}

#[test]
fn codex_capture_is_served() {
    let request = assert_replayed(
        "codex_responses_request.json",
        6,
        &["exec_command", "update_plan", "apply_patch"],
    );
    // The freeform apply_patch call and its output come back as a tool_use / tool_result
    // pair with the model's own id.
    let blocks: Vec<&ContentBlock> = request
        .messages
        .iter()
        .flat_map(|m| m.content_blocks())
        .collect();
    assert!(
        blocks.iter().any(|b| matches!(b,
            ContentBlock::ToolUse { id, name, .. } if id == "toolu_3_1" && name == "apply_patch")),
        "{blocks:?}"
    );
    assert!(
        blocks.iter().any(|b| matches!(b,
            ContentBlock::ToolResult { tool_use_id, content, .. }
                if tool_use_id == "toolu_3_1" && content.contains("Success. Updated"))),
        "{blocks:?}"
    );
    assert!(
        blocks.iter().any(|b| matches!(b,
            ContentBlock::ToolResult { tool_use_id, content, .. }
                if tool_use_id == "toolu_4_2" && content.starts_with("failed to parse function arguments"))),
        "{blocks:?}"
    );
}

#[test]
fn claude_code_runs_against_serve() {
    let Some(agents) = require("claude") else {
        return;
    };
    let (workspace, summary) = serve_then_agent(&agents, "claude_code.yaml");
    assert!(
        summary.contains("stopped after 7 requests: turns 7, stop end_turn"),
        "{summary}"
    );
    assert!(
        summary.contains("protocol violations 0, malformed requests 0"),
        "{summary}"
    );
    let out = std::fs::read_to_string(workspace.path().join("out.txt")).unwrap_or_default();
    assert_eq!(out, "Hello, world!\n");
}

#[test]
fn codex_runs_against_serve() {
    let Some(agents) = require("codex") else {
        return;
    };
    let (workspace, summary) = serve_then_agent(&agents, "codex.yaml");
    assert!(
        summary.contains("stopped after 6 requests: turns 6, stop end_turn"),
        "{summary}"
    );
    assert!(
        summary.contains("protocol violations 0, malformed requests 0"),
        "{summary}"
    );
    let out = std::fs::read_to_string(workspace.path().join("out.txt")).unwrap_or_default();
    assert_eq!(out, "Hello, world!\n");
}

/// With a preset the agent keeps its own reminders, so `nag=3` and `nag=off` are one cell:
/// `api_migration.yaml`'s "nag 3 vs nag off" comparison is not applicable (said why in the
/// terminal, the JSON and the JUnit), never a failure, and the run exits 0.
#[test]
fn a_comparison_the_preset_does_not_distinguish_is_not_applicable() {
    for cli in ["claude", "codex"] {
        let Some(agents) = require(cli) else { continue };
        let preset = if cli == "claude" {
            "claude-code"
        } else {
            "codex"
        };
        let out = tempfile::tempdir().expect("temp dir");
        let (json, junit) = (out.path().join("r.json"), out.path().join("r.xml"));
        let mut command = support::agent_eval_command();
        command
            .args([
                "run",
                "scenarios/simulated/api_migration.yaml",
                "--agent",
                preset,
            ])
            .args(["--seeds", "2", "--json"])
            .arg(&json)
            .arg("--junit")
            .arg(&junit)
            .current_dir(manifest_dir())
            .env("AGENT_EVAL_AGENTS_DIR", &agents);
        let output = output_within(command, RUN_BOUND);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{preset}:\n{stdout}");
        assert!(
            stdout.contains("n/a  completion_rate_diff >= 0.05 (todo=true vs todo=true): not applicable: no cell varies nag_threshold")
                && stdout.contains("both sides are the same cell (todo=true")
                && stdout.contains("3 expectations: 2 held, 1 not applicable"),
            "{preset}:\n{stdout}"
        );
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON")).expect("parses");
        let verdicts: Vec<&str> = report["scenarios"][0]["expectations"]
            .as_array()
            .expect("expectations")
            .iter()
            .filter_map(|e| e["verdict"].as_str())
            .collect();
        assert_eq!(verdicts, ["pass", "not_applicable", "pass"], "{preset}");
        let xml = std::fs::read_to_string(&junit).expect("JUnit");
        assert!(
            xml.contains("skipped=\"1\"") && xml.contains("<skipped message=\"not applicable: "),
            "{xml}"
        );
    }
}
