//! The ground-truth plan (`steps:`): each step's text, its check against
//! the workspace, and its `do` calls (the simulated model's skill).

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

use super::workspace::WorkspacePath;
use crate::model::ToolCall;
use crate::model::simulated::Skill;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawStep {
    pub id: Option<serde_saphyr::Spanned<IdText>>,
    pub text: String,
    pub check: Option<Check>,
    #[serde(default, rename = "do")]
    pub actions: Vec<ToolCall>,
}

/// An id written as a string or a number; kept as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdText(pub String);

impl<'de> Deserialize<'de> for IdText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) if !s.trim().is_empty() => Ok(Self(s)),
            Value::Number(n) => Ok(Self(n.to_string())),
            other => Err(de::Error::custom(format!(
                "step id must be a non-empty string or a number, got {other}"
            ))),
        }
    }
}

/// One ground-truth step.
#[derive(Debug, Clone)]
pub struct Step {
    pub id: String,
    pub text: String,
    pub check: Option<Check>,
    /// The tool calls that perform the step (used by the simulated model).
    pub actions: Vec<ToolCall>,
    /// Where the step is written (1-based line and column), for errors
    /// found after loading (`check`'s dry run of its `do` calls).
    pub position: Option<(u64, u64)>,
}

/// How a step is scored against the workspace.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Check {
    Contains {
        file: WorkspacePath,
        contains: String,
    },
    NotContains {
        file: WorkspacePath,
        not_contains: String,
    },
    Equals {
        file: WorkspacePath,
        equals: String,
    },
    Exists {
        file: WorkspacePath,
        exists: bool,
    },
    Command {
        command: String,
        exit_code: i32,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    file: Option<WorkspacePath>,
    contains: Option<String>,
    not_contains: Option<String>,
    equals: Option<String>,
    exists: Option<bool>,
    command: Option<String>,
    exit_code: Option<i32>,
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawCheck::deserialize(d)?;
        let file_kinds = [
            raw.contains.is_some(),
            raw.not_contains.is_some(),
            raw.equals.is_some(),
            raw.exists.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        const KINDS: &str = "a check is one of {file, contains}, {file, not_contains}, {file, equals}, {file, exists}, {command, exit_code}";
        match (raw.file, raw.command) {
            (Some(file), None) if file_kinds == 1 && raw.exit_code.is_none() => {
                Ok(if let Some(contains) = raw.contains {
                    Check::Contains { file, contains }
                } else if let Some(not_contains) = raw.not_contains {
                    Check::NotContains { file, not_contains }
                } else if let Some(equals) = raw.equals {
                    Check::Equals { file, equals }
                } else {
                    Check::Exists {
                        file,
                        exists: raw.exists.unwrap_or(true),
                    }
                })
            }
            (None, Some(command)) if file_kinds == 0 => Ok(Check::Command {
                command,
                exit_code: raw.exit_code.unwrap_or(0),
            }),
            _ => Err(de::Error::custom(KINDS)),
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Contains { file, contains } => {
                write!(f, "{} contains {contains:?}", file.as_str())
            }
            Check::NotContains { file, not_contains } => {
                write!(f, "{} does not contain {not_contains:?}", file.as_str())
            }
            Check::Equals { file, .. } => write!(f, "{} equals the expected text", file.as_str()),
            Check::Exists { file, exists } => {
                let verb = if *exists { "exists" } else { "does not exist" };
                write!(f, "{} {verb}", file.as_str())
            }
            Check::Command { command, exit_code } => {
                write!(f, "`{command}` exits {exit_code}")
            }
        }
    }
}

impl Step {
    /// What the simulated model knows of this step.
    pub fn skill(&self) -> Skill {
        Skill {
            id: self.id.clone(),
            text: self.text.clone(),
            actions: self.actions.clone(),
        }
    }
}
