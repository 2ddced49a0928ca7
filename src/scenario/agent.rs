//! The loop's settings (`agent:`): planning tool on/off, dialect, reminder
//! policy and placement, turn cap, repeat guard.
//!
//! `agent.nag` is the s03 shorthand: `nag.threshold` sets the s03 policy's
//! threshold, `nag.placement` the placement of every policy. Writing both
//! `agent.reminder` and `agent.nag.threshold` is an error (two thresholds).

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::agent::dialect::Dialect;
use crate::agent::reminder::{NagThreshold, Placement, ReminderSpec};
use crate::agent::{LoopSettings, RepeatGuard};

/// The loop's settings, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    pub todo: bool,
    pub dialect: Dialect,
    pub reminder: ReminderSpec,
    pub placement: Placement,
    pub max_turns: usize,
    pub repeat_guard: Option<RepeatGuard>,
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
        Ok(AgentSettings {
            todo: self.todo,
            dialect: self.dialect,
            reminder,
            placement: self.nag.placement,
            max_turns: self.max_turns,
            repeat_guard: self.repeat_guard,
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

fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = u64::deserialize(d)?;
    match usize::try_from(n) {
        Ok(n) if (1..=MAX_TURNS_LIMIT).contains(&n) => Ok(n),
        _ => Err(de::Error::custom(format!(
            "max_turns must be between 1 and {MAX_TURNS_LIMIT}, got {n}"
        ))),
    }
}
