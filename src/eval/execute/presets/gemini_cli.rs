//! The Gemini CLI preset (`--agent gemini-cli`; pinned 0.61.0).
//!
//! Runs `gemini` with the task on stdin (not a terminal: one headless
//! turn, exit when the model ends it), `--approval-mode yolo` (no
//! approval prompts) and `-m gemini-2.5-pro` (the CLI offers `write_todos`
//! only to `gemini-2.x` model names). Its `settings.json`, written into
//! `HOME/.gemini` with `HOME` = `.agent-home` in the workspace, selects
//! API-key auth (`security.auth.selectedType: gemini-api-key`), turns
//! telemetry, usage statistics and update checks off, and offers exactly
//! `read_file`, `write_file`, `replace` and `run_shell_command`, plus
//! `write_todos` (the `gemini` dialect) when the cell's `todo` is on
//! (`tools.core`). `GOOGLE_GEMINI_BASE_URL` points at the mock (which
//! serves the Gemini API), `GEMINI_API_KEY` and `GOOGLE_API_KEY` are
//! dummies and Vertex AI is off (a real key or project in agent-eval's
//! environment never reaches it), and
//! `GEMINI_CLI_TRUST_WORKSPACE=true` skips the folder-trust question.
//!
//! The CLI lists the workspace in its first message; `.agent-home`, where
//! it writes its own files while it starts, would make that listing depend
//! on timing, so a `.geminiignore` in the workspace (appended to, if the
//! workspace has one) hides it and itself.
//!
//! Gemini CLI 0.61 has no planning reminder. Its loop detection (a
//! `System: Potential loop detected` text after the same call several
//! times in a row) is not one.

use std::path::Path;

use super::{OneDialectCli, quiet_command, sh_quoted};
use crate::plan::dialect::Dialect;
use crate::scenario::{AgentCommand, TaskVia};

/// The Gemini CLI.
pub struct GeminiCli;

/// The model name the CLI is told (see the module doc).
pub const MODEL: &str = "gemini-2.5-pro";

/// The throwaway `settings.json` for the cell's `todo`.
pub fn settings(todo: bool) -> String {
    let mut tools = vec!["read_file", "write_file", "replace", "run_shell_command"];
    if todo {
        tools.push("write_todos");
    }
    serde_json::json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "telemetry": {"enabled": false},
        "privacy": {"usageStatisticsEnabled": false},
        "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
        "tools": {"core": tools},
    })
    .to_string()
}

impl OneDialectCli for GeminiCli {
    const BINARY: &'static str = "gemini";
    const DIALECT: Dialect = Dialect::Gemini;
    const REMINDER_WORDS: &'static str = "none (gemini-cli has no planning reminder)";
    const ACP_BINARY: &'static str = "gemini";

    fn run(binary: &Path, todo: bool, acp: bool) -> AgentCommand {
        if acp {
            // `gemini --acp`: the same home, settings and tools, speaking ACP.
            command(binary, todo, "--acp ", TaskVia::Acp)
        } else {
            command(binary, todo, "", TaskVia::Stdin)
        }
    }
}

/// One run of Gemini CLI with its throwaway home and settings, `flags`
/// before its own, the task given `via`.
fn command(binary: &Path, todo: bool, flags: &str, via: TaskVia) -> AgentCommand {
    let command = format!(
        "mkdir -p \"$PWD/.agent-home/.gemini\" \"$PWD/.agent-home/tmp\" && printf '%s\\n' {} > \"$PWD/.agent-home/.gemini/settings.json\" && printf '%s\\n' .agent-home/ .geminiignore >> \"$PWD/.geminiignore\" && HOME=\"$PWD/.agent-home\" TMPDIR=\"$PWD/.agent-home/tmp\" GOOGLE_GEMINI_BASE_URL=\"$ANTHROPIC_BASE_URL\" exec {} {flags}-m {MODEL} --approval-mode yolo",
        sh_quoted(&settings(todo)),
        sh_quoted(&binary.to_string_lossy())
    );
    quiet_command(
        command,
        via,
        &[
            ("GEMINI_API_KEY", "agent-eval-dummy"),
            ("GOOGLE_API_KEY", "agent-eval-dummy"),
            ("GOOGLE_GENAI_USE_VERTEXAI", "false"),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
            ("GEMINI_TELEMETRY_ENABLED", "false"),
            ("NO_COLOR", "1"),
        ],
    )
}
