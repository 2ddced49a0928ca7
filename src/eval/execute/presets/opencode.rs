//! The OpenCode preset (`--agent opencode`; pinned 1.18.33).
//!
//! Runs `opencode run TASK` (headless: one turn, exit when the model ends
//! it) with its config in a throwaway `opencode.json` in `.agent-home`
//! (`OPENCODE_CONFIG`; `HOME` and the XDG folders point there too, and
//! the workspace's own config is not read): one provider, `agent-eval`,
//! through `@ai-sdk/openai-compatible` at the mock's Chat Completions
//! (`{env:OPENAI_BASE_URL}`, `{env:OPENAI_API_KEY}`), model
//! `agent-eval/mock` (also for its title requests: `small_model`), the
//! only provider enabled (a key of another provider in your environment
//! does not make OpenCode use it); edits and commands allowed without asking, web
//! fetches denied, sharing and auto-update off; tools limited to `read`,
//! `write`, `edit` and `bash`, plus `todowrite` (the `opencode` dialect)
//! when the cell's `todo` is on. Model-list fetches, LSP downloads and
//! default plugins are off (`OPENCODE_DISABLE_*`).
//!
//! OpenCode 1.18 has no planning reminder.

use std::path::Path;

use super::{OneDialectCli, quiet_command, sh_quoted};
use crate::plan::dialect::Dialect;
use crate::scenario::{AgentCommand, TaskVia};

/// OpenCode.
pub struct OpenCode;

/// The throwaway `opencode.json` for the cell's `todo`.
pub fn config(todo: bool) -> String {
    serde_json::json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"agent-eval": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "agent-eval",
            "options": {"baseURL": "{env:OPENAI_BASE_URL}", "apiKey": "{env:OPENAI_API_KEY}"},
            "models": {"mock": {"name": "mock", "tool_call": true}},
        }},
        "model": "agent-eval/mock",
        "small_model": "agent-eval/mock",
        "enabled_providers": ["agent-eval"],
        "autoupdate": false,
        "share": "disabled",
        "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"},
        "tools": {
            "glob": false, "grep": false, "list": false, "skill": false, "task": false,
            "webfetch": false, "todoread": false, "todowrite": todo,
        },
    })
    .to_string()
}

impl OneDialectCli for OpenCode {
    const BINARY: &'static str = "opencode";
    const DIALECT: Dialect = Dialect::OpenCode;
    const REMINDER_WORDS: &'static str = "none (opencode has no planning reminder)";
    const ACP_BINARY: &'static str = "opencode";

    fn run(binary: &Path, todo: bool, acp: bool) -> AgentCommand {
        if acp {
            // `opencode acp`: the same home, config and tools, speaking ACP.
            command(binary, todo, "acp", TaskVia::Acp)
        } else {
            command(binary, todo, "run </dev/null", TaskVia::Arg)
        }
    }
}

/// One run of OpenCode with its throwaway home and config, the binary's
/// arguments `tail`, the task given `via`.
fn command(binary: &Path, todo: bool, tail: &str, via: TaskVia) -> AgentCommand {
    let home = "$PWD/.agent-home";
    let command = format!(
        "mkdir -p \"{home}/tmp\" && printf '%s\\n' {} > \"{home}/opencode.json\" && HOME=\"{home}\" TMPDIR=\"{home}/tmp\" XDG_CONFIG_HOME=\"{home}/.config\" XDG_DATA_HOME=\"{home}/.local/share\" XDG_CACHE_HOME=\"{home}/.cache\" XDG_STATE_HOME=\"{home}/.local/state\" OPENCODE_CONFIG=\"{home}/opencode.json\" exec {} {tail}",
        sh_quoted(&config(todo)),
        sh_quoted(&binary.to_string_lossy())
    );
    quiet_command(
        command,
        via,
        &[
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
            ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
            ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
            ("OPENCODE_DISABLE_SHARE", "1"),
            ("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1"),
            ("OPENCODE_DISABLE_PROJECT_CONFIG", "1"),
            ("OPENCODE_DISABLE_CLAUDE_CODE", "1"),
            ("NO_COLOR", "1"),
        ],
    )
}
