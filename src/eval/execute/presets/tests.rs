//! Presets: settling a scenario, and the command lines they run.

use super::*;
use crate::scenario::load_str;

fn scenario(agent: &str, runs: &str) -> Scenario {
    load_str(
        Path::new("s.yaml"),
        &format!(
            "task: t\nsteps:\n  - text: a\n    do: [{{tool: bash, input: {{command: ls}}}}]\nmodel:\n  simulate: {{}}\nagent:\n{agent}{runs}"
        ),
    )
    .unwrap()
}

#[test]
fn an_unset_dialect_becomes_the_agents_own() {
    let mut s = scenario(
        "  preset: codex\n  nag: {threshold: 2}\n",
        "runs:\n  nag_threshold: [1, 2]\n",
    );
    settle(&mut s, false).unwrap();
    assert_eq!(s.agent.dialect, Dialect::Codex);
    assert_eq!(s.agent.reminder, ReminderSpec::Off);
    assert!(s.runs.axes.is_empty(), "the nag axis does not apply");
    let mut s = scenario("  preset: claude-code\n", "");
    settle(&mut s, false).unwrap();
    assert_eq!(s.agent.dialect, Dialect::ClaudeCode);
    assert_eq!(s.agent.reminder.name(), "claude-code");
}

#[test]
fn a_dialect_the_agent_lacks_is_named_with_its_line() {
    let mut s = scenario("  preset: codex\n  dialect: claude-code\n", "");
    let e = settle(&mut s, false).unwrap_err().to_string();
    assert_eq!(
        e,
        "s.yaml:9:12: agent preset `codex` has no `claude-code` dialect (it has: codex)"
    );
    let mut s = scenario(
        "  preset: claude-code\n",
        "runs:\n  dialect: [claude-code, s03]\n",
    );
    let e = settle(&mut s, false).unwrap_err().to_string();
    assert!(
        e.starts_with("s.yaml:9:1: agent preset `claude-code` has no `s03` dialect"),
        "{e}"
    );
}

#[test]
fn a_preset_and_a_command_together_are_refused() {
    let e = load_str(
        Path::new("s.yaml"),
        "task: t\nmodel: {script: [{text: done}]}\nagent: {preset: codex, command: x}\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("agent.preset and agent.command"), "{e}");
}

#[test]
fn command_lines_offer_the_cells_tools() {
    let bin = Path::new("/opt/x/claude");
    let with = of(AgentPreset::ClaudeCode).command_line(bin, true, Dialect::ClaudeCode);
    assert!(
        with.command.contains(
            "--tools Bash,Write,Read,Edit,TodoWrite --allowedTools Bash,Write,Read,Edit,TodoWrite"
        ),
        "{}",
        with.command
    );
    assert!(with.command.contains("exec '/opt/x/claude' -p"));
    assert_eq!(with.env["CLAUDE_CODE_ENABLE_TASKS"], "0");
    let without = of(AgentPreset::ClaudeCode).command_line(bin, false, Dialect::ClaudeCode);
    assert!(
        without
            .command
            .contains("--tools Bash,Write,Read,Edit --allowedTools Bash,Write,Read,Edit")
    );
    let codex = of(AgentPreset::Codex).command_line(Path::new("/c"), false, Dialect::Codex);
    assert!(
        codex
            .command
            .contains("\"enabled = false\" > \"$PWD/.agent-home/codex/config.toml\""),
        "{}",
        codex.command
    );
    assert!(
        codex
            .command
            .contains("\"base_url = \\\"$OPENAI_BASE_URL\\\"\""),
        "{}",
        codex.command
    );
    let run = agent_command(
        AgentPreset::ClaudeCode,
        bin,
        (true, Dialect::ClaudeCode),
        false,
        &Default::default(),
        Some(9),
    );
    assert_eq!(
        run.reminder_pattern.as_deref(),
        Some(claude_code::TODO_WRITE_REMINDER)
    );
    assert!(run.reminder_pattern_only);
    assert_eq!(run.timeout_s, 9);
    assert_eq!(run.task_via, TaskVia::Stdin);
    // A session reaches Claude Code one JSON user message at a time.
    let session = agent_command(
        AgentPreset::ClaudeCode,
        bin,
        (true, Dialect::ClaudeCode),
        true,
        &Default::default(),
        None,
    );
    assert_eq!(session.task_via, TaskVia::StreamJson);
    assert!(
        session
            .command
            .ends_with("--input-format stream-json --output-format stream-json --verbose")
    );
}

#[test]
fn a_session_on_a_preset_without_sessions_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.yaml");
    let text = "model:\n  script: [{text: done}]\nagent: {preset: codex}\nsession:\n  - task: a\n    steps: [{text: a}]\n  - task: b\n    steps: [{text: b}]\n";
    std::fs::write(&file, text).unwrap();
    let mut s = crate::scenario::load(&file).unwrap();
    let e = settle(&mut s, false).unwrap_err().to_string();
    assert!(e.ends_with(":4:1: agent preset `codex` cannot run a session (several user messages): its CLI takes one prompt a process"), "{e}");
    let mut s = crate::scenario::load(&file).unwrap();
    s.agent.preset = Some(AgentPreset::ClaudeCode);
    s.agent.dialect_set_at = None;
    settle(&mut s, false).unwrap();
}

/// The probe of which tools claude 2.1.330 offers with
/// `CLAUDE_CODE_ENABLE_TASKS=1` (`tests/data/claude-code-tasks/probe/offered_tools.json`):
/// by default, in print mode, no Task tool at all (neither offered nor
/// deferred); named in `--tools` with `ToolSearch`, deferred behind it;
/// named without it, offered directly. The preset names them without
/// `ToolSearch`, so the request it sends offers them directly.
#[test]
fn the_task_preset_offers_the_task_tools_as_the_probe_showed_for_its_command() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/claude-code-tasks/probe/offered_tools.json");
    let probe: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let run = |name: &str| {
        probe["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()
            .clone()
    };
    let names = |run: &serde_json::Value, key: &str| -> Vec<String> {
        run[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.get("name").unwrap_or(t).as_str().unwrap().to_string())
            .collect()
    };
    let is_task = |n: &String| TASK_TOOLS_PROBED.contains(&n.as_str());
    let default = run("default");
    assert!(!names(&default, "tools").iter().any(is_task));
    assert!(
        !names(&default, "deferred_via_tool_search")
            .iter()
            .any(is_task)
    );
    let named = run("named");
    assert!(!names(&named, "tools").iter().any(is_task));
    assert_eq!(
        names(&named, "deferred_via_tool_search")
            .iter()
            .filter(|n| is_task(n))
            .count(),
        4
    );
    let direct = run("direct");
    assert_eq!(
        names(&direct, "tools")
            .iter()
            .filter(|n| is_task(n))
            .count(),
        4
    );
    assert!(!names(&direct, "tools").contains(&"ToolSearch".to_string()));
    // The preset's command names the tools exactly as the direct probe did.
    let command = of(AgentPreset::ClaudeCode)
        .command_line(Path::new("claude"), true, Dialect::ClaudeCodeTasks)
        .command;
    let tools = direct["claude_args"][2].as_str().unwrap();
    assert!(command.contains(&format!("--tools {tools} ")), "{command}");
}

const TASK_TOOLS_PROBED: [&str; 4] = ["TaskCreate", "TaskUpdate", "TaskList", "TaskGet"];

#[test]
fn gemini_qwen_and_opencode_settle_on_their_own_dialect_and_reminder() {
    for (preset, dialect, reminder) in [
        ("gemini-cli", Dialect::Gemini, "off"),
        ("qwen-code", Dialect::QwenCode, "qwen-code"),
        ("opencode", Dialect::OpenCode, "off"),
    ] {
        let mut s = scenario(&format!("  preset: {preset}\n"), "");
        settle(&mut s, false).unwrap();
        assert_eq!(s.agent.dialect, dialect, "{preset}");
        assert_eq!(s.agent.reminder.name(), reminder, "{preset}");
    }
}

#[test]
fn the_throwaway_configs_offer_the_planning_tool_only_with_todo() {
    let gemini = |todo| serde_json::from_str::<serde_json::Value>(&gemini_cli::settings(todo));
    let on = gemini(true).unwrap();
    assert_eq!(on["security"]["auth"]["selectedType"], "gemini-api-key");
    assert_eq!(on["tools"]["core"].as_array().map(Vec::len), Some(5));
    assert!(
        !gemini(false).unwrap()["tools"]["core"]
            .to_string()
            .contains("write_todos")
    );

    let qwen = |todo| serde_json::from_str::<serde_json::Value>(&qwen_code::settings(todo));
    assert_eq!(qwen(true).unwrap()["tools"]["todoWrite"]["enabled"], true);
    let off = qwen(false).unwrap();
    assert_eq!(off["tools"]["todoWrite"]["enabled"], false);
    assert!(!off["tools"]["core"].to_string().contains("todo_write"));

    let opencode = |todo| serde_json::from_str::<serde_json::Value>(&opencode::config(todo));
    assert_eq!(opencode(true).unwrap()["tools"]["todowrite"], true);
    assert_eq!(opencode(false).unwrap()["tools"]["todowrite"], false);
    assert_eq!(
        opencode(false).unwrap()["provider"]["agent-eval"]["options"]["baseURL"],
        "{env:OPENAI_BASE_URL}"
    );
}

#[test]
fn the_new_presets_keep_keys_and_homes_their_own() {
    let bin = Path::new("/opt/x/gemini");
    let gemini = gemini_cli::GeminiCli.command_line(bin, true, Dialect::Gemini);
    assert_eq!(
        gemini.env.get("GEMINI_API_KEY").map(String::as_str),
        Some("agent-eval-dummy")
    );
    assert!(
        gemini
            .command
            .contains("GOOGLE_GEMINI_BASE_URL=\"$ANTHROPIC_BASE_URL\"")
    );
    assert!(gemini.command.contains("HOME=\"$PWD/.agent-home\""));
    let qwen = qwen_code::QwenCode.command_line(bin, false, Dialect::QwenCode);
    assert!(qwen.command.contains("HOME=\"$PWD/.agent-home\"") && qwen.command.contains("--yolo"));
    assert_eq!(
        qwen_code::QwenCode.reminder_text(Dialect::QwenCode),
        Some("The current task still has unfinished todo items:\n")
    );
    let opencode = opencode::OpenCode.command_line(bin, true, Dialect::OpenCode);
    assert_eq!(opencode.task_via, TaskVia::Arg);
    assert!(
        opencode
            .command
            .contains("OPENCODE_CONFIG=\"$PWD/.agent-home/opencode.json\"")
    );
}

#[test]
fn the_copilot_preset_offers_sql_with_todo_and_sends_the_task_as_its_prompt() {
    let bin = Path::new("/opt/x/copilot");
    let with = of(AgentPreset::Copilot).command_line(bin, true, Dialect::CopilotSql);
    assert!(
        with.command
            .contains("--available-tools=bash,view,create,edit,sql -p"),
        "{}",
        with.command
    );
    assert!(
        with.command
            .contains("exec '/opt/x/copilot'  --allow-all-tools")
    );
    assert!(
        with.command
            .contains("COPILOT_PROVIDER_BASE_URL=\"$OPENAI_BASE_URL\"")
    );
    assert_eq!(with.task_via, TaskVia::Arg);
    assert_eq!(with.env["COPILOT_OFFLINE"], "true");
    assert_eq!(with.env["COPILOT_PROVIDER_TYPE"], "openai");
    let without = of(AgentPreset::Copilot).command_line(bin, false, Dialect::CopilotSql);
    assert!(
        without
            .command
            .contains("--available-tools=bash,view,create,edit -p")
    );
    assert_eq!(of(AgentPreset::Copilot).dialects(), [Dialect::CopilotSql]);
    assert_eq!(
        of(AgentPreset::Copilot).reminder_text(Dialect::CopilotSql),
        None
    );
    // Its ACP mode: the same binary, `--acp`.
    let acp = agent_command_in(
        AgentPreset::Copilot,
        bin,
        (true, Dialect::CopilotSql),
        (true, true),
        &Default::default(),
        None,
    );
    assert_eq!(acp.task_via, TaskVia::Acp);
    assert!(
        acp.command
            .contains("exec '/opt/x/copilot' --acp --allow-all-tools")
    );
    // Codex's ACP mode is its adapter, with no approvals asked.
    let codex = agent_command_in(
        AgentPreset::Codex,
        Path::new("/c/codex-acp"),
        (true, Dialect::Codex),
        (true, true),
        &Default::default(),
        None,
    );
    assert_eq!(codex.task_via, TaskVia::Acp);
    assert!(
        codex.command.ends_with("exec '/c/codex-acp'"),
        "{}",
        codex.command
    );
    assert!(
        codex.command.contains("approval_policy = \\\"never\\\""),
        "{}",
        codex.command
    );
}
