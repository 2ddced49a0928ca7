//! The registry of reminder policies: a policy's name, its parameters and
//! how its per-run state is made. Written in scenarios as a name
//! (`reminder: interval`, default parameters) or a map
//! (`reminder: {policy: interval, every: 4}`).

use serde::de::{self, Deserializer};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

use super::claude_code::ClaudeCode;
use super::every_turn::EveryTurn;
use super::interval::Interval;
use super::off::Off;
use super::planning_state::PlanningState;
use super::s03::S03;
use super::{EVERY_TURN_HEADER, INTERVAL_TEXT, NagThreshold, ReminderPolicy};

/// A reminder policy with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReminderSpec {
    S03 {
        threshold: NagThreshold,
    },
    PlanningState {
        interval: u32,
    },
    ClaudeCode {
        turns_since_write: u32,
        turns_between: u32,
    },
    Interval {
        every: u32,
    },
    EveryTurn,
    Off,
}

impl Default for ReminderSpec {
    fn default() -> Self {
        Self::S03 {
            threshold: NagThreshold::default(),
        }
    }
}

impl ReminderSpec {
    /// Every policy's name, in the order reports list them.
    pub const NAMES: [&'static str; 6] = [
        "s03",
        "planning-state",
        "claude-code",
        "interval",
        "every-turn",
        "off",
    ];

    /// The policy called `name` with its default parameters.
    pub fn by_name(name: &str) -> Option<Self> {
        Some(match name {
            "s03" => Self::default(),
            "planning-state" => Self::PlanningState { interval: 3 },
            "claude-code" => Self::ClaudeCode {
                turns_since_write: 10,
                turns_between: 10,
            },
            "interval" => Self::Interval { every: 6 },
            "every-turn" => Self::EveryTurn,
            "off" => Self::Off,
            _ => return None,
        })
    }

    /// Every policy with its default parameters.
    pub fn all() -> Vec<Self> {
        Self::NAMES
            .iter()
            .filter_map(|n| Self::by_name(n))
            .collect()
    }

    pub fn name(&self) -> &'static str {
        match self {
            Self::S03 { .. } => "s03",
            Self::PlanningState { .. } => "planning-state",
            Self::ClaudeCode { .. } => "claude-code",
            Self::Interval { .. } => "interval",
            Self::EveryTurn => "every-turn",
            Self::Off => "off",
        }
    }

    /// The parameters, by name, in a fixed order.
    pub fn params(&self) -> Vec<(&'static str, Value)> {
        match *self {
            Self::S03 { threshold } => vec![("threshold", serde_json::json!(threshold))],
            Self::PlanningState { interval } => vec![("interval", interval.into())],
            Self::ClaudeCode {
                turns_since_write,
                turns_between,
            } => vec![
                ("turns_since_write", turns_since_write.into()),
                ("turns_between", turns_between.into()),
            ],
            Self::Interval { every } => vec![("every", every.into())],
            Self::EveryTurn | Self::Off => Vec::new(),
        }
    }

    /// Whether the parameters are the policy's defaults.
    pub fn has_default_params(&self) -> bool {
        Self::by_name(self.name()) == Some(*self)
    }

    /// A fresh per-run state.
    pub fn policy(&self) -> Box<dyn ReminderPolicy> {
        match *self {
            Self::S03 { threshold } => Box::new(S03 {
                threshold,
                rounds_since_planning: 0,
            }),
            Self::PlanningState { interval } => Box::new(PlanningState {
                interval,
                rounds_since_update: 0,
            }),
            Self::ClaudeCode {
                turns_since_write,
                turns_between,
            } => Box::new(ClaudeCode {
                turns_since_write,
                turns_between,
                since_write: 0,
                since_reminder: None,
            }),
            Self::Interval { every } => Box::new(Interval {
                every,
                since_planning: 0,
            }),
            Self::EveryTurn => Box::new(EveryTurn),
            Self::Off => Box::new(Off),
        }
    }

    /// Text that marks this policy's reminders beyond `<reminder>` and
    /// `<system-reminder>` (what a model or a wire reader looks for).
    pub fn marker(&self) -> Option<&'static str> {
        match self {
            Self::Interval { .. } => Some(INTERVAL_TEXT),
            Self::EveryTurn => Some(EVERY_TURN_HEADER),
            _ => None,
        }
    }

    /// Whether this policy can ever fire.
    pub fn is_off(&self) -> bool {
        matches!(
            self,
            Self::Off
                | Self::S03 {
                    threshold: NagThreshold::Off
                }
        )
    }

    /// Parses the scenario form: a name, or a map with `policy` and
    /// parameters.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let known = || Self::NAMES.join(", ");
        match value {
            Value::String(name) => Self::by_name(name)
                .ok_or_else(|| format!("unknown reminder policy `{name}` (known: {})", known())),
            Value::Object(map) => {
                let name = map.get("policy").and_then(Value::as_str).ok_or_else(|| {
                    format!("a reminder map needs `policy: NAME` (one of {})", known())
                })?;
                let mut spec = Self::by_name(name).ok_or_else(|| {
                    format!("unknown reminder policy `{name}` (known: {})", known())
                })?;
                for (key, v) in map.iter().filter(|(k, _)| k.as_str() != "policy") {
                    spec.set(key, v)?;
                }
                Ok(spec)
            }
            other => Err(format!(
                "reminder must be a policy name or a map with `policy`, got {other}"
            )),
        }
    }

    fn set(&mut self, key: &str, value: &Value) -> Result<(), String> {
        let count = || -> Result<u32, String> {
            value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n >= 1)
                .ok_or_else(|| {
                    format!("reminder parameter `{key}` must be an integer >= 1, got {value}")
                })
        };
        match (self, key) {
            (Self::S03 { threshold }, "threshold") => {
                let text = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                *threshold = NagThreshold::parse(&text)?;
            }
            (Self::PlanningState { interval }, "interval") => *interval = count()?,
            (
                Self::ClaudeCode {
                    turns_since_write, ..
                },
                "turns_since_write",
            ) => *turns_since_write = count()?,
            (Self::ClaudeCode { turns_between, .. }, "turns_between") => *turns_between = count()?,
            (Self::Interval { every }, "every") => *every = count()?,
            (spec, _) => {
                let params: Vec<&str> = spec.params().iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "unknown parameter `{key}` for reminder policy `{}` (its parameters: {})",
                    spec.name(),
                    if params.is_empty() {
                        "none".to_string()
                    } else {
                        params.join(", ")
                    }
                ));
            }
        }
        Ok(())
    }
}

/// `s03`, or `interval(every=4)` when the parameters are not the defaults.
impl fmt::Display for ReminderSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        if !self.has_default_params() {
            let params: Vec<String> = self
                .params()
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => format!("{k}={s}"),
                    other => format!("{k}={other}"),
                })
                .collect();
            write!(f, "({})", params.join(","))?;
        }
        Ok(())
    }
}

/// The name when the parameters are the defaults, else the map form.
impl Serialize for ReminderSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.has_default_params() {
            return s.serialize_str(self.name());
        }
        let params = self.params();
        let mut map = s.serialize_map(Some(params.len() + 1))?;
        map.serialize_entry("policy", self.name())?;
        for (k, v) in &params {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ReminderSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Self::from_value(&value).map_err(de::Error::custom)
    }
}
