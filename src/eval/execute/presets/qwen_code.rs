//! The Qwen Code preset (`--agent qwen-code`; pinned 0.24.4).
//!
//! Runs `qwen --yolo` (no approval prompts) with the task on stdin (not a
//! terminal: one headless turn, exit when the model ends it), against the
//! mock's Chat Completions (`OPENAI_BASE_URL`, a dummy `OPENAI_API_KEY`,
//! `OPENAI_MODEL`). Its `settings.json`, written into `HOME/.qwen` with
//! `HOME` = `.agent-home` in the workspace, selects OpenAI auth, turns
//! telemetry, usage statistics and update checks off, limits the core
//! tools to `read_file`, `write_file`, `edit` and `run_shell_command`, and
//! turns `todo_write` (the `qwen-code` dialect; off by default since the
//! 0.2x releases) on only when the cell's `todo` is on
//! (`tools.todoWrite.enabled`). Qwen still offers its agent, goal, skill
//! and tool-search tools; the simulated model does not call them.
//!
//! Its planning reminder is a user text starting "The current task still
//! has unfinished todo items:" (the `qwen-code` policy); the
//! `<system-reminder>` inside `todo_write`'s own result is the tool's
//! answer, not a reminder.
//!
//! Qwen Code 0.24.4 declares Node >= 22; on Node 20 it runs every path
//! agent-eval uses (docs/real-agents.md).

use std::path::Path;

use super::{Preset, quiet_command, sh_quoted};
use crate::plan::dialect::Dialect;
use crate::plan::reminder::{QWEN_CODE_TEXT, ReminderSpec};
use crate::scenario::{AgentCommand, TaskVia};

/// Qwen Code.
pub struct QwenCode;

/// The model name Qwen is told.
pub const MODEL: &str = "qwen3-coder-plus";

/// The throwaway `settings.json` for the cell's `todo`.
pub fn settings(todo: bool) -> String {
    let mut tools = vec!["read_file", "write_file", "edit", "run_shell_command"];
    if todo {
        tools.push("todo_write");
    }
    serde_json::json!({
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": MODEL},
        "tools": {"core": tools, "todoWrite": {"enabled": todo}},
        "telemetry": {"enabled": false},
        "privacy": {"usageStatisticsEnabled": false},
        "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
    })
    .to_string()
}

impl Preset for QwenCode {
    fn binary(&self) -> &'static str {
        "qwen"
    }

    fn dialects(&self) -> Vec<Dialect> {
        vec![Dialect::QwenCode]
    }

    fn reminder_text(&self, _dialect: Dialect) -> Option<&'static str> {
        // The opening line, without the `<system-reminder>` tag.
        QWEN_CODE_TEXT.strip_prefix("<system-reminder>\n")
    }

    fn own_reminder(&self) -> ReminderSpec {
        ReminderSpec::by_name("qwen-code").unwrap_or_default()
    }

    fn own_reminder_words(&self) -> &'static str {
        "qwen-code's own (the unfinished items, every 3rd tool turn after a todo_write)"
    }

    fn command_line(&self, binary: &Path, todo: bool, _dialect: Dialect) -> AgentCommand {
        let command = format!(
            "mkdir -p \"$PWD/.agent-home/.qwen\" \"$PWD/.agent-home/tmp\" && printf '%s\\n' {} > \"$PWD/.agent-home/.qwen/settings.json\" && HOME=\"$PWD/.agent-home\" TMPDIR=\"$PWD/.agent-home/tmp\" exec {} --yolo",
            sh_quoted(&settings(todo)),
            sh_quoted(&binary.to_string_lossy())
        );
        quiet_command(
            command,
            TaskVia::Stdin,
            &[("OPENAI_MODEL", MODEL), ("NO_COLOR", "1")],
        )
    }
}
