//! Agent presets (`--agent claude-code`, `--agent codex`, `--agent gemini-cli`, `--agent
//! qwen-code`, `--agent opencode`, `agent: {preset: ...}`) on bad input, with no real CLI
//! needed: a missing CLI and a dialect the agent lacks are bad
//! input (exit 2, named); a stand-in `claude` that crashes, hangs or writes garbage to the
//! wire is a broken agent (exit 2, its output quoted, nothing left running); one that
//! crashes after a model response is a measured run whose log keeps its output's tail.
//!
//! The stand-in is a shell script put where the install script puts the real CLI
//! (`$AGENT_EVAL_AGENTS_DIR/node_modules/.bin/claude`): the preset runs it with the
//! command line and environment it gives the real one.

use crate::support;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `agent-eval ARGS` with the agents folder `agents` and PATH limited to the system's
/// folders (a CLI installed elsewhere on this machine is not found).
fn agent_eval(agents: &Path, args: &[&str]) -> Output {
    support::agent_eval_command()
        .args(args)
        .current_dir(root())
        .env("AGENT_EVAL_AGENTS_DIR", agents)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .stdin(Stdio::null())
        .output()
        .expect("agent-eval runs")
}

fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A folder with a scenario file `s.yaml` holding `agent`.
fn scenario(dir: &Path, agent: &str) -> PathBuf {
    let file = dir.join("s.yaml");
    std::fs::write(
        &file,
        format!(
            "task: Write a.txt\nsteps:\n  - text: Write it\n    check: {{file: a.txt, exists: true}}\n    do: [{{tool: write_file, input: {{path: a.txt, content: x}}}}]\nmodel:\n  simulate: {{}}\nruns:\n  seeds: 1\nagent:\n{agent}"
        ),
    )
    .expect("scenario written");
    file
}

/// An agents folder whose `claude` is `script`.
fn fake_claude(script: &str) -> tempfile::TempDir {
    fake_cli("claude", script)
}

/// An agents folder whose `binary` is `script`.
fn fake_cli(binary: &str, script: &str) -> tempfile::TempDir {
    let agents = tempfile::tempdir().expect("agents dir");
    let bin = agents.path().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let cli = bin.join(binary);
    std::fs::write(&cli, format!("#!/bin/sh\n{script}\n")).expect("script written");
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    agents
}

#[test]
fn a_missing_cli_is_bad_input_naming_the_install_command() {
    let empty = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "  preset: claude-code\n");
    let output = agent_eval(empty.path(), &["run", file.to_str().unwrap()]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(2), "{all}");
    assert!(all.contains("bash .ci/install-agents.sh"), "{all}");
    assert!(
        all.contains(&format!("{}: agent preset `claude-code`", file.display())),
        "{all}"
    );
    // `--agent codex` on a built-in scenario, the same.
    let plain = scenario(dir.path(), "  todo: true\n");
    let output = agent_eval(
        empty.path(),
        &["run", plain.to_str().unwrap(), "--agent", "codex"],
    );
    let all = text(&output);
    assert_eq!(output.status.code(), Some(2), "{all}");
    assert!(all.contains("the `codex` CLI is not installed"), "{all}");
}

#[test]
fn a_dialect_the_agent_lacks_is_bad_input_with_its_line() {
    let agents = fake_claude("exit 0");
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "  preset: claude-code\n  dialect: codex\n");
    for command in ["check", "run"] {
        let output = agent_eval(agents.path(), &[command, file.to_str().unwrap()]);
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{command}: {all}");
        assert!(
            all.contains(&format!(
                "{}:12:12: agent preset `claude-code` has no `codex` dialect (it has: claude-code",
                file.display()
            )),
            "{command}: {all}"
        );
    }
    // Set on the command line over a file that names its dialect: the same.
    let s03 = scenario(dir.path(), "  dialect: s03\n");
    let output = agent_eval(
        agents.path(),
        &["run", s03.to_str().unwrap(), "--agent", "claude-code"],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains(":11:12: agent preset `claude-code` has no `s03` dialect"));
}

/// Runs the scenario with the stand-in and returns the output.
fn run_with(script: &str, agent_extra: &str) -> (Output, tempfile::TempDir) {
    let agents = fake_claude(script);
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), &format!("  preset: claude-code\n{agent_extra}"));
    let logs = dir.path().join("logs");
    let output = agent_eval(
        agents.path(),
        &[
            "run",
            file.to_str().unwrap(),
            "--log-dir",
            logs.to_str().unwrap(),
        ],
    );
    (output, dir)
}

#[test]
fn an_agent_that_crashes_at_once_is_broken_and_quoted() {
    let (output, _dir) = run_with("echo 'claude: cannot start: no config' >&2\nexit 3", "");
    let all = text(&output);
    assert_eq!(output.status.code(), Some(2), "{all}");
    assert!(
        all.contains("the agent is broken: it exited with status 3"),
        "{all}"
    );
    assert!(all.contains("claude: cannot start: no config"), "{all}");
}

#[test]
fn an_agent_that_writes_garbage_to_the_wire_is_broken() {
    let post = r#"python3 -c 'import os, urllib.request as u
r = u.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=b"{not json", headers={"content-type": "application/json"})
try:
    u.urlopen(r)
except Exception as e:
    print("refused:", e)
'"#;
    let (output, _dir) = run_with(&format!("{post}\nexit 1"), "");
    let all = text(&output);
    assert_eq!(output.status.code(), Some(2), "{all}");
    assert!(
        all.contains("it sent 1 request(s) the mock endpoint could not read"),
        "{all}"
    );
    assert!(all.contains("refused: HTTP Error 400"), "{all}");
}

/// Whether a process whose command line holds `needle` is running.
fn running(needle: &str) -> bool {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries.flatten().any(|e| {
                std::fs::read(e.path().join("cmdline")).is_ok_and(|c| {
                    String::from_utf8_lossy(&c)
                        .replace('\0', " ")
                        .contains(needle)
                })
            })
        })
        .unwrap_or(false)
}

#[test]
fn an_agent_that_hangs_is_killed_with_everything_it_started() {
    // A child of its own, named by a duration no other process uses.
    let marker = format!("sleep 300.{}", std::process::id());
    let script = format!("{marker} &\necho hanging >&2\nwait");
    let (output, _run) = run_with(&script, "  timeout_s: 2\n");
    let all = text(&output);
    assert_eq!(output.status.code(), Some(2), "{all}");
    assert!(
        all.contains("it made no model request within its timeout (2 s) and was killed"),
        "{all}"
    );
    assert!(all.contains("hanging"), "{all}");
    assert!(!running(&marker), "`{marker}` outlived the run");
}

#[test]
fn an_agent_that_crashes_mid_run_is_a_failed_run_with_its_output_logged() {
    // One valid request (a model response comes back), then a crash.
    let request = r#"python3 -c 'import json, os, urllib.request as u
body = {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "Write a.txt"}],
        "tools": [{"name": "Write", "description": "", "input_schema": {"type": "object"}}]}
r = u.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=json.dumps(body).encode(),
              headers={"content-type": "application/json"})
print(json.load(u.urlopen(r))["content"][-1]["name"])
'"#;
    let (output, dir) = run_with(
        &format!("{request}\necho 'segmentation fault (core dumped)' >&2\nexit 139"),
        "",
    );
    let all = text(&output);
    assert!(matches!(output.status.code(), Some(0) | Some(1)), "{all}");
    let log = std::fs::read_to_string(dir.path().join("logs/s.jsonl")).expect("run log");
    let record: Value = serde_json::from_str(log.lines().next().expect("one run")).unwrap();
    assert_eq!(record["metrics"]["stop"], "agent_exit", "{record}");
    assert_eq!(record["metrics"]["turns"], 1, "{record}");
    let tail = record["agent_log_tail"]
        .as_str()
        .expect("the output's tail");
    // The model's write_file went out as Claude Code's Write.
    assert!(tail.contains("Write"), "{tail}");
    assert!(tail.contains("segmentation fault"), "{tail}");
}

/// The presets this file's newer tests cover, with their binaries.
const NEW_PRESETS: [(&str, &str); 3] = [
    ("gemini-cli", "gemini"),
    ("qwen-code", "qwen"),
    ("opencode", "opencode"),
];

#[test]
fn a_missing_gemini_qwen_or_opencode_cli_is_bad_input() {
    let empty = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (preset, binary) in NEW_PRESETS {
        let file = scenario(dir.path(), &format!("  preset: {preset}\n"));
        let output = agent_eval(empty.path(), &["run", file.to_str().unwrap()]);
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{all}");
        assert!(
            all.contains(&format!(
                "{}: agent preset `{preset}`: the `{binary}` CLI is not installed",
                file.display()
            )),
            "{all}"
        );
        assert!(all.contains("bash .ci/install-agents.sh"), "{all}");
    }
}

#[test]
fn each_new_preset_has_its_own_dialect_only() {
    let dir = tempfile::tempdir().unwrap();
    for (preset, binary, own, other) in [
        ("gemini-cli", "gemini", "gemini", "qwen-code"),
        ("qwen-code", "qwen", "qwen-code", "opencode"),
        ("opencode", "opencode", "opencode", "gemini"),
    ] {
        let agents = fake_cli(binary, "exit 0");
        let file = scenario(
            dir.path(),
            &format!("  preset: {preset}\n  dialect: {other}\n"),
        );
        let output = agent_eval(agents.path(), &["check", file.to_str().unwrap()]);
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{all}");
        assert!(
            all.contains(&format!(
                "{}:12:12: agent preset `{preset}` has no `{other}` dialect (it has: {own})",
                file.display()
            )),
            "{all}"
        );
    }
}

/// Runs the scenario on `preset` with a stand-in `binary`; returns the
/// output and the folder holding the scenario and its logs.
fn run_preset(
    preset: &str,
    binary: &str,
    script: &str,
    extra: &str,
) -> (Output, tempfile::TempDir) {
    let agents = fake_cli(binary, script);
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), &format!("  preset: {preset}\n{extra}"));
    let logs = dir.path().join("logs");
    let output = agent_eval(
        agents.path(),
        &[
            "run",
            file.to_str().unwrap(),
            "--log-dir",
            logs.to_str().unwrap(),
        ],
    );
    (output, dir)
}

#[test]
fn a_new_preset_agent_that_crashes_or_hangs_is_broken_and_quoted() {
    for (preset, binary) in NEW_PRESETS {
        let (output, _dir) = run_preset(
            preset,
            binary,
            &format!("echo '{binary}: fatal: bad settings' >&2\nexit 4"),
            "",
        );
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{preset}: {all}");
        assert!(all.contains("it exited with status 4"), "{preset}: {all}");
        assert!(
            all.contains(&format!("{binary}: fatal: bad settings")),
            "{all}"
        );

        let marker = format!("sleep 301.{}{}", std::process::id(), binary.len());
        let script = format!("{marker} &\necho stuck >&2\nwait");
        let (output, _dir) = run_preset(preset, binary, &script, "  timeout_s: 2\n");
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{preset}: {all}");
        assert!(all.contains("was killed"), "{preset}: {all}");
        assert!(all.contains("stuck"), "{preset}: {all}");
        assert!(!running(&marker), "{preset}: `{marker}` outlived the run");
    }
}

#[test]
fn the_gemini_preset_speaks_the_gemini_api_from_its_throwaway_settings() {
    // A stand-in Gemini CLI: reads the settings the preset wrote, sends one
    // request the way the CLI does, prints the call it got, then crashes.
    let request = r#"python3 -c 'import json, os, urllib.request as u
s = json.load(open(os.environ["HOME"] + "/.gemini/settings.json"))
print("auth", s["security"]["auth"]["selectedType"], "tools", ",".join(s["tools"]["core"]))
print("key", os.environ["GEMINI_API_KEY"], "trust", os.environ["GEMINI_CLI_TRUST_WORKSPACE"])
body = {"contents": [{"role": "user", "parts": [{"text": "Write a.txt"}]}],
        "tools": [{"functionDeclarations": [{"name": n, "parametersJsonSchema": {"type": "object"}}
                                            for n in s["tools"]["core"]]}]}
url = os.environ["GOOGLE_GEMINI_BASE_URL"] + "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
r = u.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
for line in u.urlopen(r).read().decode().splitlines():
    if line.startswith("data: "):
        for part in json.loads(line[6:])["candidates"][0]["content"]["parts"]:
            if "functionCall" in part:
                print("call", json.dumps(part["functionCall"], sort_keys=True))
'"#;
    let (output, dir) = run_preset(
        "gemini-cli",
        "gemini",
        &format!("{request}\necho 'gemini: crashed' >&2\nexit 1"),
        "",
    );
    let all = text(&output);
    assert!(matches!(output.status.code(), Some(0) | Some(1)), "{all}");
    let log = std::fs::read_to_string(dir.path().join("logs/s.jsonl")).expect("run log");
    let record: Value = serde_json::from_str(log.lines().next().expect("one run")).unwrap();
    assert_eq!(record["metrics"]["stop"], "agent_exit", "{record}");
    assert_eq!(record["metrics"]["turns"], 1, "{record}");
    let tail = record["agent_log_tail"]
        .as_str()
        .expect("the output's tail");
    assert!(
        tail.contains(
            "auth gemini-api-key tools read_file,write_file,replace,run_shell_command,write_todos"
        ),
        "{tail}"
    );
    assert!(tail.contains("key agent-eval-dummy trust true"), "{tail}");
    // The simulated model planned in write_todos (the gemini dialect), and
    // its write_file went out in Gemini's shape (`file_path`).
    assert!(
        tail.contains(r#"call {"args": {"todos": [{"description": "Write it", "status": "in_progress"}]}, "id": "call_1_1", "name": "write_todos"}"#),
        "{tail}"
    );
    assert!(
        tail.contains(r#"call {"args": {"content": "x", "file_path": "a.txt"}, "id": "call_1_2", "name": "write_file"}"#),
        "{tail}"
    );
    assert!(tail.contains("gemini: crashed"), "{tail}");
}
