//! The loop's settings (`agent:`): planning tool on/off, dialect, reminder
//! policy and placement, turn cap, repeat guard; and, for an external agent
//! run instead of the built-in loop, its `command`, `env`, `task_via`,
//! `timeout_s` and `reminder_pattern`.
//!
//! `agent.nag` is the s03 shorthand: `nag.threshold` sets the s03 policy's
//! threshold, `nag.placement` the placement of every policy. Writing both
//! `agent.reminder` and `agent.nag.threshold` is an error (two thresholds).

use serde::Deserialize;
use serde::de::{self, Deserializer};
use std::collections::BTreeMap;

use super::agent_command::{AgentCommand, TaskVia};
use crate::agent::{LoopSettings, RepeatGuard};
use crate::plan::dialect::Dialect;
use crate::plan::reminder::{NagThreshold, Placement, ReminderSpec};

/// The loop's settings, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    pub todo: bool,
    pub dialect: Dialect,
    pub reminder: ReminderSpec,
    pub placement: Placement,
    pub max_turns: usize,
    pub repeat_guard: Option<RepeatGuard>,
    /// The external agent run instead of the built-in loop (`agent.command`,
    /// or `run --agent`).
    pub external: Option<AgentCommand>,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            todo: true,
            dialect: Dialect::default(),
            reminder: ReminderSpec::default(),
            placement: Placement::default(),
            max_turns: default_max_turns(),
            repeat_guard: None,
            external: None,
        }
    }
}

impl AgentSettings {
    /// The s03 threshold, when the policy is s03.
    pub fn nag_threshold(&self) -> Option<NagThreshold> {
        match self.reminder {
            ReminderSpec::S03 { threshold } => Some(threshold),
            _ => None,
        }
    }

    /// Runs `command` as an external agent instead of the built-in loop
    /// (`--agent`): replaces the scenario's command, keeping its `env`,
    /// `task_via`, `timeout_s` and `reminder_pattern` if it has them.
    pub fn use_command(&mut self, command: &str) {
        match &mut self.external {
            Some(agent) => agent.command = command.to_string(),
            None => self.external = Some(AgentCommand::new(command)),
        }
    }

    pub fn loop_settings(&self) -> LoopSettings {
        LoopSettings {
            todo: self.todo,
            dialect: self.dialect,
            reminder: self.reminder,
            placement: self.placement,
            max_turns: self.max_turns,
            repeat_guard: self.repeat_guard.clone(),
        }
    }
}

/// `agent.nag` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawNag {
    pub threshold: Option<NagThreshold>,
    #[serde(default)]
    pub placement: Placement,
}

/// `agent:` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAgent {
    #[serde(default = "yes")]
    pub todo: bool,
    #[serde(default)]
    pub dialect: Dialect,
    pub reminder: Option<serde_saphyr::Spanned<ReminderSpec>>,
    #[serde(default)]
    pub nag: RawNag,
    #[serde(default = "default_max_turns", deserialize_with = "positive")]
    pub max_turns: usize,
    pub repeat_guard: Option<RepeatGuard>,
    pub command: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub task_via: Option<TaskVia>,
    #[serde(default, deserialize_with = "positive_seconds")]
    pub timeout_s: Option<u64>,
    pub reminder_pattern: Option<String>,
    pub sandbox: Option<bool>,
}

impl Default for RawAgent {
    fn default() -> Self {
        Self {
            todo: true,
            dialect: Dialect::default(),
            reminder: None,
            nag: RawNag::default(),
            max_turns: default_max_turns(),
            repeat_guard: None,
            command: None,
            env: BTreeMap::new(),
            task_via: None,
            timeout_s: None,
            reminder_pattern: None,
            sandbox: None,
        }
    }
}

impl RawAgent {
    /// The settings, or the position and message of the conflict.
    pub fn validate(self) -> Result<AgentSettings, (Option<(u64, u64)>, String)> {
        let reminder = match (self.reminder, self.nag.threshold) {
            (Some(spanned), Some(_)) => {
                return Err((
                    Some((spanned.referenced.line(), spanned.referenced.column())),
                    "agent.reminder and agent.nag.threshold both set a reminder policy; write the threshold as `reminder: {policy: s03, threshold: N}` or drop one".into(),
                ));
            }
            (Some(spanned), None) => spanned.value,
            (None, threshold) => ReminderSpec::S03 {
                threshold: threshold.unwrap_or_default(),
            },
        };
        let external = match self.command {
            Some(command) if command.trim().is_empty() => {
                return Err((None, "agent.command is empty".into()));
            }
            Some(command) => {
                let mut agent = AgentCommand::new(command);
                agent.env = self.env;
                agent.task_via = self.task_via.unwrap_or_default();
                agent.timeout_s = self.timeout_s.unwrap_or(agent.timeout_s);
                agent.reminder_pattern = self.reminder_pattern;
                agent.sandbox = self.sandbox.unwrap_or(false);
                Some(agent)
            }
            None if !self.env.is_empty()
                || self.task_via.is_some()
                || self.timeout_s.is_some()
                || self.reminder_pattern.is_some()
                || self.sandbox.is_some() =>
            {
                return Err((
                    None,
                    "agent.env, agent.task_via, agent.timeout_s, agent.reminder_pattern and agent.sandbox set up an external agent: they need agent.command".into(),
                ));
            }
            None => None,
        };
        Ok(AgentSettings {
            todo: self.todo,
            dialect: self.dialect,
            reminder,
            placement: self.nag.placement,
            max_turns: self.max_turns,
            repeat_guard: self.repeat_guard,
            external,
        })
    }
}

fn yes() -> bool {
    true
}

fn default_max_turns() -> usize {
    50
}

/// The largest `max_turns` accepted: a guard against runaway runs.
pub const MAX_TURNS_LIMIT: usize = 10_000;

/// The longest `agent.timeout_s` accepted (a day).
pub const MAX_TIMEOUT_S: u64 = 86_400;

fn positive_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let n = u64::deserialize(d)?;
    if (1..=MAX_TIMEOUT_S).contains(&n) {
        Ok(Some(n))
    } else {
        Err(de::Error::custom(format!(
            "timeout_s must be between 1 and {MAX_TIMEOUT_S}, got {n}"
        )))
    }
}

fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = u64::deserialize(d)?;
    match usize::try_from(n) {
        Ok(n) if (1..=MAX_TURNS_LIMIT).contains(&n) => Ok(n),
        _ => Err(de::Error::custom(format!(
            "max_turns must be between 1 and {MAX_TURNS_LIMIT}, got {n}"
        ))),
    }
}
