//! `s03`: the reference nag. Rounds without a planning call (accepted or
//! rejected) are counted; from `threshold` on, every turn gets
//! `<reminder>Update your todos.</reminder>`.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

use super::{PlanDialect, PlanItem, ReminderPolicy, ReminderSpecError, TurnFacts};

/// The reminder text.
pub const S03_TEXT: &str = "<reminder>Update your todos.</reminder>";

/// The nag threshold: a number of rounds without a planning call, or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NagThreshold {
    After(u32),
    Off,
}

impl Default for NagThreshold {
    fn default() -> Self {
        Self::After(3)
    }
}

impl NagThreshold {
    pub fn parse(raw: &str) -> Result<Self, ReminderSpecError> {
        if raw == "off" {
            return Ok(Self::Off);
        }
        match raw.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Self::After(n)),
            _ => Err(ReminderSpecError::Threshold {
                raw: raw.to_string(),
            }),
        }
    }
}

impl fmt::Display for NagThreshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::After(n) => write!(f, "{n}"),
            Self::Off => f.write_str("off"),
        }
    }
}

impl Serialize for NagThreshold {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::After(n) => s.serialize_u32(*n),
            Self::Off => s.serialize_str("off"),
        }
    }
}

impl<'de> Deserialize<'de> for NagThreshold {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = match Value::deserialize(d)? {
            Value::String(s) => s,
            other => other.to_string(),
        };
        Self::parse(&text).map_err(de::Error::custom)
    }
}

/// The s03 policy's state.
#[derive(Debug, Clone)]
pub(super) struct S03 {
    pub threshold: NagThreshold,
    pub rounds_since_planning: usize,
}

impl ReminderPolicy for S03 {
    /// The count restarts: in the s03 reference `rounds_since_todo` is local
    /// to `agent_loop`, which each user message of the REPL calls afresh.
    fn user_message(&mut self) {
        self.rounds_since_planning = 0;
    }

    fn after_turn(
        &mut self,
        facts: &TurnFacts,
        _plan: &[PlanItem],
        _dialect: &dyn PlanDialect,
    ) -> Option<String> {
        self.rounds_since_planning = if facts.planning_calls > 0 {
            0
        } else {
            self.rounds_since_planning + 1
        };
        match self.threshold {
            NagThreshold::After(n) if self.rounds_since_planning >= n as usize => {
                Some(S03_TEXT.to_string())
            }
            _ => None,
        }
    }
}
