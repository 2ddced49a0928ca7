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
    #[serde(default)]
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
        }
    }
}
