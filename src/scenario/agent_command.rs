//! The outside agent under test as a scenario names it (`agent: {command,
//! env, task_via, timeout_s, reminder_pattern, sandbox}`): what to run and
//! how it gets its task. The engine's [`crate::eval::execute`] runs it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the agent receives its task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskVia {
    #[default]
    Stdin,
    Arg,
    Env,
    /// Each part of a session as one line on stdin (its own line breaks
    /// turned into spaces), then end of input: how a line REPL such as the
    /// s03 reference reads its user messages.
    Lines,
    /// Each part of a session as one user message of a JSON stream on
    /// stdin (`{"type":"user","message":{"role":"user","content":TASK}}` a
    /// line), then end of input: what `claude -p --input-format
    /// stream-json` reads, answering each message in the same conversation.
    #[serde(rename = "stream-json")]
    StreamJson,
    /// The Agent Client Protocol over the agent's stdio: agent-eval is the
    /// client (`initialize`, `session/new` in the workspace, one
    /// `session/prompt` per part), and reads the agent's plan from its
    /// `session/update`s.
    Acp,
}

impl TaskVia {
    /// Its name as a scenario writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Stdin => "stdin",
            Self::Arg => "arg",
            Self::Env => "env",
            Self::Lines => "lines",
            Self::StreamJson => "stream-json",
            Self::Acp => "acp",
        }
    }

    /// What the agent reads on stdin for `tasks` (the session's parts in
    /// order; one for a single task), if this delivery uses stdin.
    pub fn stdin_text(self, tasks: &[String]) -> Option<String> {
        match self {
            Self::Stdin => Some(tasks.join("\n")),
            Self::Lines => Some(tasks.iter().fold(String::new(), |mut text, task| {
                text.push_str(&crate::llm::session::one_line(task));
                text.push('\n');
                text
            })),
            Self::StreamJson => Some(tasks.iter().fold(String::new(), |mut text, task| {
                let message = serde_json::json!({
                    "type": "user",
                    "message": {"role": "user", "content": task},
                });
                text.push_str(&message.to_string());
                text.push('\n');
                text
            })),
            Self::Arg | Self::Env | Self::Acp => None,
        }
    }

    /// Whether this delivery can carry a session's parts one message each.
    pub fn carries_sessions(self) -> bool {
        matches!(self, Self::Lines | Self::StreamJson | Self::Acp)
    }
}

/// The variable that marks every process of one outside-agent run, so
/// strays that left its process group are found after it (see
/// docs/security.md). The harness sets it; `agent.env` may not.
pub const RUN_MARK_VAR: &str = "AGENT_EVAL_RUN_MARK";

/// Checks an `agent.env` as `execve` will see it: each name non-empty and
/// free of `=` and NUL (`A=B: x` would silently set `A` to `B=x`), each
/// value free of NUL, and [`RUN_MARK_VAR`] left to the harness.
pub fn check_env(env: &BTreeMap<String, String>) -> Result<(), AgentEnvError> {
    for (name, value) in env {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(AgentEnvError::BadName(name.clone()));
        }
        if value.contains('\0') {
            return Err(AgentEnvError::NulValue(name.clone()));
        }
        if name == RUN_MARK_VAR {
            return Err(AgentEnvError::RunMark);
        }
    }
    Ok(())
}

/// Why an `agent.env` cannot be given to the agent ([`check_env`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentEnvError {
    #[error(
        "agent.env: {0:?} is not a variable name (it may not be empty or hold `=` or a NUL byte)"
    )]
    BadName(String),
    #[error("agent.env `{0}`: the value holds a NUL byte")]
    NulValue(String),
    #[error(
        "agent.env may not set {RUN_MARK_VAR}: agent-eval marks the agent's processes with it to find every one after the run"
    )]
    RunMark,
}

/// `agent.env` as written, checked by [`check_env`].
pub(crate) fn checked_env<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    let env = BTreeMap::<String, String>::deserialize(d)?;
    check_env(&env).map_err(serde::de::Error::custom)?;
    Ok(env)
}

fn default_timeout() -> u64 {
    600
}

/// The agent under test (`agent: {command, env, task_via, timeout_s,
/// reminder_pattern}` in a scenario).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentCommand {
    /// A shell command line, run by `sh -c` in the workspace.
    pub command: String,
    #[serde(default, deserialize_with = "checked_env")]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub task_via: TaskVia,
    /// Seconds before the agent's process group is killed.
    #[serde(default = "default_timeout")]
    pub timeout_s: u64,
    /// Extra text that marks a reminder in a request (besides
    /// `<reminder>` and `<system-reminder>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminder_pattern: Option<String>,
    /// Run the agent under Landlock: writes only in the workspace (and
    /// `/dev/null`), TCP connect only to the run's mock server.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandbox: bool,
    /// Only `reminder_pattern` marks a reminder (not the `<reminder>` and
    /// `<system-reminder>` tags): an agent preset's own planning reminder.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reminder_pattern_only: bool,
}

impl AgentCommand {
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            env: BTreeMap::new(),
            task_via: TaskVia::Stdin,
            timeout_s: default_timeout(),
            reminder_pattern: None,
            sandbox: false,
            reminder_pattern_only: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_stream_carries_each_part_as_one_user_message_a_line() {
        let parts = ["first\nline".to_string(), "say \"two\"".to_string()];
        let text = TaskVia::StreamJson.stdin_text(&parts).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["type"], "user");
        assert_eq!(lines[0]["message"]["role"], "user");
        assert_eq!(lines[0]["message"]["content"], "first\nline");
        assert_eq!(lines[1]["message"]["content"], "say \"two\"");
        assert!(text.ends_with('\n'));
    }
}
