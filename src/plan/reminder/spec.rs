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
use super::qwen_code::QwenCode;
use super::s03::S03;
use super::{EVERY_TURN_HEADER, INTERVAL_TEXT, NagThreshold, ReminderPolicy, ReminderSpecError};

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
    QwenCode {
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
    pub const NAMES: [&'static str; 7] = [
        "s03",
        "planning-state",
        "claude-code",
        "qwen-code",
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
            "qwen-code" => Self::QwenCode { every: 3 },
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
            Self::QwenCode { .. } => "qwen-code",
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
            Self::Interval { every } | Self::QwenCode { every } => vec![("every", every.into())],
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
            Self::QwenCode { every } => Box::new(QwenCode {
                every,
                armed: None,
                elapsed: 0,
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
    pub fn from_value(value: &Value) -> Result<Self, ReminderSpecError> {
        let known = || Self::NAMES.join(", ");
        let unknown = |name: &str| ReminderSpecError::UnknownPolicy {
            name: name.to_string(),
            known: known(),
        };
        match value {
            Value::String(name) => Self::by_name(name).ok_or_else(|| unknown(name)),
            Value::Object(map) => {
                let name = map
                    .get("policy")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ReminderSpecError::MissingPolicy { known: known() })?;
                let mut spec = Self::by_name(name).ok_or_else(|| unknown(name))?;
                for (key, v) in map.iter().filter(|(k, _)| k.as_str() != "policy") {
                    spec.set(key, v)?;
                }
                Ok(spec)
            }
            other => Err(ReminderSpecError::NotNameOrMap { got: other.clone() }),
        }
    }

    fn set(&mut self, key: &str, value: &Value) -> Result<(), ReminderSpecError> {
        let count = || -> Result<u32, ReminderSpecError> {
            value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n >= 1)
                .ok_or_else(|| ReminderSpecError::NotACount {
                    key: key.to_string(),
                    got: value.clone(),
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
            (Self::Interval { every } | Self::QwenCode { every }, "every") => *every = count()?,
            (spec, _) => {
                let params: Vec<&str> = spec.params().iter().map(|(n, _)| *n).collect();
                return Err(ReminderSpecError::UnknownParameter {
                    key: key.to_string(),
                    policy: spec.name(),
                    params: if params.is_empty() {
                        "none".to_string()
                    } else {
                        params.join(", ")
                    },
                });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::{Dialect, PlanItem, PlanStatus};
    use crate::plan::reminder::{CLAUDE_CODE_TEXT, TurnFacts};

    /// What a turn did: planning calls and accepted updates.
    #[derive(Clone, Copy)]
    enum Turn {
        Work,
        Plan,
        Rejected,
    }

    fn plan(done: usize, total: usize) -> Vec<PlanItem> {
        (0..total)
            .map(|i| {
                let status = if i < done {
                    PlanStatus::Completed
                } else {
                    PlanStatus::Pending
                };
                PlanItem::new((i + 1).to_string(), format!("Step {}", i + 1), status)
            })
            .collect()
    }

    /// The turns after which `spec` reminds, over `turns`, with `plan`
    /// standing after every turn; and the texts.
    fn reminders(
        spec: ReminderSpec,
        turns: &[Turn],
        plan: &[PlanItem],
    ) -> (Vec<usize>, Vec<String>) {
        let mut policy = spec.policy();
        let dialect = Dialect::default().get();
        let mut at = Vec::new();
        let mut texts = Vec::new();
        for (i, turn) in turns.iter().enumerate() {
            let facts = TurnFacts {
                turn: i + 1,
                planning_calls: usize::from(!matches!(turn, Turn::Work)),
                accepted_updates: usize::from(matches!(turn, Turn::Plan)),
            };
            if let Some(text) = policy.after_turn(&facts, plan, dialect) {
                at.push(i + 1);
                texts.push(text);
            }
        }
        (at, texts)
    }

    use Turn::{Plan, Rejected, Work};

    #[test]
    fn s03_counts_any_planning_call_and_nags_every_turn_once_reached() {
        let turns = [
            Work, Work, Work, Work, Rejected, Work, Work, Work, Plan, Work,
        ];
        let (at, texts) = reminders(ReminderSpec::default(), &turns, &plan(1, 3));
        assert_eq!(at, [3, 4, 8]);
        assert!(
            texts
                .iter()
                .all(|t| t == "<reminder>Update your todos.</reminder>")
        );
        let off = ReminderSpec::S03 {
            threshold: NagThreshold::Off,
        };
        assert!(reminders(off, &turns, &plan(1, 3)).0.is_empty());
        let one = ReminderSpec::S03 {
            threshold: NagThreshold::After(1),
        };
        assert_eq!(
            reminders(one, &turns, &[]).0,
            [1, 2, 3, 4, 6, 7, 8, 10],
            "s03 needs no plan"
        );
    }

    #[test]
    fn planning_state_counts_accepted_updates_only_and_needs_a_plan() {
        let spec = ReminderSpec::by_name("planning-state").unwrap();
        let turns = [Plan, Work, Work, Work, Rejected, Work, Plan, Work];
        let (at, texts) = reminders(spec, &turns, &plan(0, 2));
        // Rounds since the last accepted update: 0 1 2 3 4 5 0 1.
        assert_eq!(at, [4, 5, 6]);
        assert_eq!(
            texts[0],
            "<reminder>Refresh your current plan before continuing.</reminder>"
        );
        assert!(
            reminders(spec, &turns, &[]).0.is_empty(),
            "no plan, nothing to refresh"
        );
        let two = ReminderSpec::PlanningState { interval: 2 };
        assert_eq!(reminders(two, &turns, &plan(0, 2)).0, [3, 4, 5, 6]);
    }

    #[test]
    fn claude_code_waits_ten_turns_since_a_write_and_since_the_last_reminder() {
        let spec = ReminderSpec::by_name("claude-code").unwrap();
        let mut turns = vec![Work; 25];
        let (at, texts) = reminders(spec, &turns, &[]);
        assert_eq!(at, [10, 20]);
        assert_eq!(
            texts[0],
            format!("<system-reminder>{CLAUDE_CODE_TEXT}</system-reminder>")
        );
        assert!(texts[0].ends_with("to the user\n</system-reminder>"));
        // A planning call restarts the write count.
        turns[14] = Rejected;
        assert_eq!(reminders(spec, &turns, &[]).0, [10, 25]);
        let items = vec![
            PlanItem::new("1", "Read", PlanStatus::Completed),
            PlanItem::new("2", "Write", PlanStatus::InProgress),
        ];
        let (_, texts) = reminders(spec, &[Work; 10], &items);
        assert_eq!(
            texts[0],
            format!(
                "<system-reminder>{CLAUDE_CODE_TEXT}\n\nHere are the existing contents of your todo list:\n\n[1. [completed] Read\n2. [in_progress] Write]</system-reminder>"
            )
        );
        let quick = ReminderSpec::ClaudeCode {
            turns_since_write: 2,
            turns_between: 3,
        };
        assert_eq!(reminders(quick, &[Work; 9], &[]).0, [2, 5, 8]);
    }

    #[test]
    fn interval_restarts_after_each_reminder_and_each_planning_call() {
        let spec = ReminderSpec::by_name("interval").unwrap();
        let mut turns = vec![Work; 14];
        assert_eq!(reminders(spec, &turns, &[]).0, [6, 12]);
        turns[3] = Plan;
        assert_eq!(reminders(spec, &turns, &[]).0, [10]);
        let (_, texts) = reminders(spec, &[Work; 6], &[]);
        assert_eq!(
            texts[0],
            "# TODO LIST UPDATE REQUIRED - You MUST update your plan with your NEXT tool call."
        );
        // 2 of 3 done is 66.67%: rounded down.
        let (_, texts) = reminders(spec, &[Work; 6], &plan(2, 3));
        assert_eq!(
            texts[0],
            "# TODO LIST UPDATE REQUIRED - You MUST update your plan with your NEXT tool call.\n\n**Current Progress: 2/3 items completed (66%)**"
        );
    }

    #[test]
    fn every_turn_shows_the_plan_as_the_dialect_renders_it() {
        let (at, texts) = reminders(
            ReminderSpec::EveryTurn,
            &[Work, Plan, Rejected],
            &plan(1, 2),
        );
        assert_eq!(at, [1, 2, 3]);
        assert_eq!(
            texts[0],
            "REMINDERS\n\nBelow is your current plan. Keep it updated as you progress.\n\n[x] #1: Step 1\n[ ] #2: Step 2\n\n(1/2 completed)"
        );
        let (_, texts) = reminders(ReminderSpec::EveryTurn, &[Work], &[]);
        assert!(texts[0].ends_with("\n\nNo todos."), "{}", texts[0]);
    }

    #[test]
    fn off_never_fires() {
        assert!(
            reminders(ReminderSpec::Off, &[Work; 30], &plan(0, 3))
                .0
                .is_empty()
        );
    }

    #[test]
    fn specs_read_and_write_names_and_maps() {
        for name in ReminderSpec::NAMES {
            let spec = ReminderSpec::by_name(name).unwrap();
            assert_eq!(serde_json::to_value(spec).unwrap(), serde_json::json!(name));
            assert_eq!(spec.to_string(), name);
        }
        let spec = ReminderSpec::from_value(&serde_json::json!({"policy": "interval", "every": 4}))
            .unwrap();
        assert_eq!(spec, ReminderSpec::Interval { every: 4 });
        assert_eq!(spec.to_string(), "interval(every=4)");
        let back: ReminderSpec =
            serde_json::from_value(serde_json::to_value(spec).unwrap()).unwrap();
        assert_eq!(back, spec);
        let s03: ReminderSpec =
            serde_json::from_value(serde_json::json!({"policy": "s03", "threshold": "off"}))
                .unwrap();
        assert!(s03.is_off());
    }
}
