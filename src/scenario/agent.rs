//! The loop's settings (`agent:`): planning tool on/off, dialect, reminder
//! policy and placement, turn cap, repeat guard; and, for an external agent
//! run instead of the built-in loop, its `command`, `env`, `task_via`,
//! `timeout_s` and `reminder_pattern`, or a `preset` naming a real CLI
//! agent (`claude-code`, `codex`: only the name is read here; what a
//! preset runs is the engine's, see `crate::eval::presets`).
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
    /// The real CLI agent run instead of the built-in loop (`agent.preset`,
    /// or `run --agent claude-code|codex|gemini-cli|qwen-code|opencode`); its `env` and `timeout_s` are
    /// in `external`'s place in [`AgentSettings::preset_env`].
    pub preset: Option<AgentPreset>,
    /// `agent.env` and `agent.timeout_s` given with a preset.
    pub preset_env: BTreeMap<String, String>,
    pub preset_timeout_s: Option<u64>,
    /// The preset runs in its Agent Client Protocol mode (`task_via: acp`
    /// with `agent.preset`).
    pub preset_acp: bool,
    /// Where the file sets `agent.dialect` (line, column), when it does: a
    /// preset takes its own default dialect only when none is set.
    pub dialect_set_at: Option<(u64, u64)>,
    /// `agent.env`, `task_via`, `timeout_s`, `reminder_pattern` or
    /// `sandbox` written without `agent.command`: kept (with where `agent:`
    /// is) for `--agent COMMAND` to complete. A scenario still awaiting its
    /// command when it is admitted is refused there, at that line
    /// ([`AgentSettings::awaiting_command_error`]).
    pub awaiting_command: Option<(AgentCommand, Option<(u64, u64)>)>,
}

/// A real CLI agent the engine knows how to run (`agent.preset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentPreset {
    ClaudeCode,
    Codex,
    GeminiCli,
    QwenCode,
    #[serde(rename = "opencode")]
    OpenCode,
    Copilot,
}

impl AgentPreset {
    pub const ALL: [Self; 6] = [
        Self::ClaudeCode,
        Self::Codex,
        Self::GeminiCli,
        Self::QwenCode,
        Self::OpenCode,
        Self::Copilot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::GeminiCli => "gemini-cli",
            Self::QwenCode => "qwen-code",
            Self::OpenCode => "opencode",
            Self::Copilot => "copilot",
        }
    }

    /// Every preset's name in backticks, in [`Self::ALL`]'s order, the
    /// last after "and": the one list `run --help`, docs/cli.md and the
    /// README show (a test holds them to it).
    pub fn listing() -> String {
        let names: Vec<String> = Self::ALL
            .iter()
            .map(|p| format!("`{}`", p.name()))
            .collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// The preset of this name (`--agent NAME`).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The preset a one-word command that is not one was likely meant
    /// as: `gemini` (a prefix of `gemini-cli`) or `clade-code` (at most two
    /// edits away). None for a preset's own name or a command with
    /// arguments.
    pub fn near(command: &str) -> Option<Self> {
        let word = command.trim();
        if word.is_empty() || word.contains(char::is_whitespace) || Self::parse(word).is_some() {
            return None;
        }
        let prefix = Self::ALL
            .into_iter()
            .find(|p| p.name().starts_with(word) && word.len() >= 3);
        prefix.or_else(|| {
            Self::ALL
                .into_iter()
                .map(|p| (edit_distance(word, p.name()), p))
                .filter(|(d, _)| *d <= 2)
                .min_by_key(|(d, _)| *d)
                .map(|(_, p)| p)
        })
    }
}

/// Levenshtein distance between `a` and `b`, by characters.
#[allow(
    clippy::indexing_slicing,
    reason = "`row` holds b.len() + 1 entries and j < b.len(): every index is in 0..=b.len()"
)]
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod near_tests {
    use super::AgentPreset;

    #[test]
    fn near_names_the_preset_meant() {
        assert_eq!(AgentPreset::near("gemini"), Some(AgentPreset::GeminiCli));
        assert_eq!(AgentPreset::near("claude"), Some(AgentPreset::ClaudeCode));
        assert_eq!(
            AgentPreset::near("clade-code"),
            Some(AgentPreset::ClaudeCode)
        );
        assert_eq!(AgentPreset::near("qwen"), Some(AgentPreset::QwenCode));
        assert_eq!(AgentPreset::near("codex"), None);
        assert_eq!(AgentPreset::near("python3 agent.py"), None);
        assert_eq!(AgentPreset::near("./my-agent"), None);
    }
}

impl std::fmt::Display for AgentPreset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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
            preset: None,
            preset_env: BTreeMap::new(),
            preset_timeout_s: None,
            preset_acp: false,
            dialect_set_at: None,
            awaiting_command: None,
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
        if let Some(preset) = AgentPreset::parse(command) {
            self.use_preset(preset);
            return;
        }
        self.preset = None;
        match &mut self.external {
            Some(agent) => agent.command = command.to_string(),
            None => {
                let mut agent = self
                    .awaiting_command
                    .take()
                    .map_or_else(|| AgentCommand::new(""), |(agent, _)| agent);
                agent.command = command.to_string();
                self.external = Some(agent);
            }
        }
    }

    /// The error of a scenario whose outside-agent keys still await their
    /// command (no `agent.command`, no `--agent`): where `agent:` is, and
    /// why. `check` and every command that runs scenarios ask it when
    /// they admit one.
    pub fn awaiting_command_error(&self) -> Option<(Option<(u64, u64)>, String)> {
        self.awaiting_command.as_ref().map(|(_, at)| {
            (
                *at,
                "agent.env, agent.task_via, agent.timeout_s, agent.reminder_pattern and agent.sandbox set up an external agent: they need agent.command, agent.preset or `--agent COMMAND`".to_string(),
            )
        })
    }

    /// Runs the real CLI `preset` instead of the built-in loop (`--agent
    /// claude-code`): keeps the `env` and `timeout_s` of a command the
    /// scenario has.
    pub fn use_preset(&mut self, preset: AgentPreset) {
        let waiting = self.awaiting_command.take().map(|(agent, _)| agent);
        if let Some(agent) = self.external.take().or(waiting) {
            self.preset_env = agent.env;
            self.preset_timeout_s = Some(agent.timeout_s);
            self.preset_acp = agent.task_via == TaskVia::Acp;
        }
        self.preset = Some(preset);
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
    pub dialect: Option<serde_saphyr::Spanned<Dialect>>,
    pub reminder: Option<serde_saphyr::Spanned<ReminderSpec>>,
    #[serde(default)]
    pub nag: RawNag,
    #[serde(default = "default_max_turns", deserialize_with = "positive")]
    pub max_turns: usize,
    pub repeat_guard: Option<RepeatGuard>,
    pub command: Option<String>,
    #[serde(default, deserialize_with = "super::agent_command::checked_env")]
    pub env: BTreeMap<String, String>,
    pub task_via: Option<TaskVia>,
    #[serde(default, deserialize_with = "positive_seconds")]
    pub timeout_s: Option<u64>,
    pub reminder_pattern: Option<String>,
    pub sandbox: Option<bool>,
    pub preset: Option<AgentPreset>,
}

impl Default for RawAgent {
    fn default() -> Self {
        Self {
            todo: true,
            dialect: None,
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
            preset: None,
        }
    }
}

/// Keys of `agent:` that cannot go together, found after parsing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentConflict {
    /// At the `reminder:` key (1-based line and column).
    #[error(
        "agent.reminder and agent.nag.threshold both set a reminder policy; write the threshold as `reminder: {{policy: s03, threshold: N}}` or drop one"
    )]
    TwoReminders { at: (u64, u64) },
    #[error("agent.preset and agent.command both name the agent to run; keep one")]
    PresetAndCommand,
    #[error(
        "agent.task_via (but `acp`), agent.reminder_pattern and agent.sandbox are a command's; a preset sets them itself (it takes agent.env, agent.timeout_s and `task_via: acp`)"
    )]
    PresetWithCommandKeys,
    #[error("agent.command is empty")]
    EmptyCommand,
}

impl AgentConflict {
    /// Where the conflict is written, when one key is at fault.
    pub fn position(&self) -> Option<(u64, u64)> {
        match self {
            Self::TwoReminders { at } => Some(*at),
            _ => None,
        }
    }
}

impl RawAgent {
    /// The settings, or the keys that conflict.
    pub fn validate(mut self) -> Result<AgentSettings, AgentConflict> {
        let reminder = match (self.reminder, self.nag.threshold) {
            (Some(spanned), Some(_)) => {
                return Err(AgentConflict::TwoReminders {
                    at: (spanned.referenced.line(), spanned.referenced.column()),
                });
            }
            (Some(spanned), None) => spanned.value,
            (None, threshold) => ReminderSpec::S03 {
                threshold: threshold.unwrap_or_default(),
            },
        };
        if self.preset.is_some() {
            if self.command.is_some() {
                return Err(AgentConflict::PresetAndCommand);
            }
            let task_via = self.task_via.filter(|via| *via != TaskVia::Acp);
            if task_via.is_some() || self.reminder_pattern.is_some() || self.sandbox.is_some() {
                return Err(AgentConflict::PresetWithCommandKeys);
            }
        }
        let dialect_set_at = self
            .dialect
            .as_ref()
            .map(|d| (d.referenced.line(), d.referenced.column()));
        let dialect = self.dialect.map(|d| d.value).unwrap_or_default();
        let (preset_env, preset_timeout_s) = if self.preset.is_some() {
            (std::mem::take(&mut self.env), self.timeout_s.take())
        } else {
            (BTreeMap::new(), None)
        };
        let mut awaiting_command = None;
        let preset_acp = self.preset.is_some() && self.task_via.take() == Some(TaskVia::Acp);
        let external = match self.command {
            Some(command) if command.trim().is_empty() => {
                return Err(AgentConflict::EmptyCommand);
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
                // Completed by `--agent COMMAND`, or refused at admission.
                let mut agent = AgentCommand::new("");
                agent.env = self.env;
                agent.task_via = self.task_via.unwrap_or_default();
                agent.timeout_s = self.timeout_s.unwrap_or(agent.timeout_s);
                agent.reminder_pattern = self.reminder_pattern;
                agent.sandbox = self.sandbox.unwrap_or(false);
                awaiting_command = Some((agent, None));
                None
            }
            None => None,
        };
        Ok(AgentSettings {
            todo: self.todo,
            dialect,
            reminder,
            placement: self.nag.placement,
            max_turns: self.max_turns,
            repeat_guard: self.repeat_guard,
            external,
            preset: self.preset,
            preset_env,
            preset_timeout_s,
            preset_acp,
            dialect_set_at,
            awaiting_command,
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
