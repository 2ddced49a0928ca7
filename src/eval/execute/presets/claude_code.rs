//! The Claude Code preset (`--agent claude-code`; pinned 2.1.330).
//!
//! Runs `claude -p` (print mode: the task on stdin, one headless session,
//! exit when the model ends its turn) with `--tools` naming exactly the
//! tools offered and `--allowedTools` the same (no permission prompts):
//! `Bash`, `Write`, `Read`, `Edit`, plus the planning tools of the cell's
//! dialect when `todo` is on — `TodoWrite` (`claude-code`, with
//! `CLAUDE_CODE_ENABLE_TASKS=0`: 2.1.330 offers TodoWrite only so) or
//! `TaskCreate`, `TaskUpdate`, `TaskList`, `TaskGet` (`claude-code-tasks`,
//! with `CLAUDE_CODE_ENABLE_TASKS=1`; named in `--tools`, they are offered
//! directly rather than deferred behind `ToolSearch`). `todo: false`
//! offers no planning tool at all.
//!
//! `HOME`, `TMPDIR`, `CLAUDE_CONFIG_DIR` and the XDG folders point into
//! `.agent-home` in the workspace (Claude Code keeps `~/.claude` and a
//! folder per cwd under `$TMPDIR`), whatever the user set; telemetry,
//! error reports, update checks and every other non-model request are off
//! (`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`), so the model calls are the
//! only requests it makes. `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=1` makes
//! it run a response's calls one at a time, in the order sent, so a run's
//! results do not depend on which concurrent call finishes first.
//!
//! Its planning reminder is a `system` text starting "The TodoWrite tool
//! hasn't been used recently" ("The task tools haven't been used
//! recently" with the Task tools), after 10 turns without a planning call
//! and 10 since the last reminder; its other `<system-reminder>` texts are
//! not planning reminders.

use std::path::Path;

use super::{Preset, QUIET_ENV, THROWAWAY_HOME, sh_quoted};
use crate::plan::dialect::Dialect;
use crate::plan::reminder::ReminderSpec;
use crate::scenario::{AgentCommand, TaskVia};

/// The TodoWrite reminder's opening words.
pub const TODO_WRITE_REMINDER: &str = "The TodoWrite tool hasn't been used recently";

/// The Task tools' reminder's opening words.
pub const TASKS_REMINDER: &str = "The task tools haven't been used recently";

/// The dialect name of the Task tools.
pub const TASKS_DIALECT: &str = "claude-code-tasks";

const TASK_TOOLS: [&str; 4] = ["TaskCreate", "TaskUpdate", "TaskList", "TaskGet"];

/// Claude Code.
pub struct ClaudeCode;

fn is_tasks(dialect: Dialect) -> bool {
    dialect.name() == TASKS_DIALECT
}

impl Preset for ClaudeCode {
    fn binary(&self) -> &'static str {
        "claude"
    }

    fn dialects(&self) -> Vec<Dialect> {
        // The Task tools' dialect where this build has it.
        std::iter::once(Dialect::ClaudeCode)
            .chain(Dialect::from_name(TASKS_DIALECT))
            .collect()
    }

    fn reminder_text(&self, dialect: Dialect) -> Option<&'static str> {
        Some(if is_tasks(dialect) {
            TASKS_REMINDER
        } else {
            TODO_WRITE_REMINDER
        })
    }

    fn own_reminder(&self) -> ReminderSpec {
        ReminderSpec::from_value(&serde_json::Value::from("claude-code")).unwrap_or_default()
    }

    fn own_reminder_words(&self) -> &'static str {
        "claude-code's own (after 10 turns without a planning call, then every 10 turns)"
    }

    fn transcript_dir(&self) -> Option<&'static str> {
        Some(".agent-home/.claude/projects")
    }

    fn session_options(&self) -> Option<&'static str> {
        // Headless, it answers each JSON user message in the same
        // conversation (agent-eval writes the next once the model ended
        // its turn).
        Some("--input-format stream-json --output-format stream-json --verbose")
    }

    fn command_line(&self, binary: &Path, todo: bool, dialect: Dialect) -> AgentCommand {
        let mut tools = vec!["Bash", "Write", "Read", "Edit"];
        if todo {
            if is_tasks(dialect) {
                tools.extend(TASK_TOOLS);
            } else {
                tools.push("TodoWrite");
            }
        }
        let tools = tools.join(",");
        let command = format!(
            "{THROWAWAY_HOME} exec {} -p --tools {tools} --allowedTools {tools}",
            sh_quoted(&binary.to_string_lossy())
        );
        let mut agent = AgentCommand::new(command);
        agent.task_via = TaskVia::Stdin;
        agent.timeout_s = super::DEFAULT_TIMEOUT_S;
        let tasks = if todo && is_tasks(dialect) { "1" } else { "0" };
        agent
            .env
            .insert("CLAUDE_CODE_ENABLE_TASKS".into(), tasks.into());
        agent.env.insert(
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        );
        // One tool at a time, in the order sent: by default Claude Code runs
        // a response's concurrency-safe calls together (Read, read-only
        // Bash, and TaskUpdate beside TaskList and TaskGet) and returns
        // their results as they finish, so the same response got different
        // results from run to run (docs/real-agents.md, "Determinism").
        agent
            .env
            .insert("CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY".into(), "1".into());
        for (key, value) in QUIET_ENV {
            agent.env.insert(key.into(), value.into());
        }
        agent
    }
}
