//! Planning dialects: one planning-tool design each.
//!
//! A dialect owns everything that makes a design what it is: its tool
//! schema(s), how a call is validated and applied to the plan, the exact
//! result texts (success and error), how a plan is read back from a tool
//! result or from a call's input, and how an update is written in its shape
//! (for the simulated model). The loop, the reminder policies, the simulated
//! model, the wire metrics and the transcript view only ever ask the
//! dialect; none of them knows a planning tool's name.
//!
//! Every dialect keeps its state as a plain list of [`PlanItem`]s, so a
//! dialect itself is stateless and a rejected call can be checked to leave
//! the list untouched for every dialect alike.
//!
//! Adding a dialect is one file beside this one plus one entry in
//! [`Dialect`].

mod s03;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

use crate::llm::ToolSchema;

/// A plan item's status, in the dialect-neutral vocabulary. Each dialect
/// maps its own words onto these (create-update's `running` is
/// [`PlanStatus::InProgress`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
    Cancelled,
}

impl PlanStatus {
    /// The neutral word (`pending`, `in_progress`, `completed`, `failed`,
    /// `cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// s03's three-character marker; statuses s03 does not know use the
    /// nearest one (`failed` and `cancelled` are finished, not done).
    pub fn marker(self) -> &'static str {
        match self {
            Self::Pending => "[ ]",
            Self::InProgress => "[>]",
            Self::Completed => "[x]",
            Self::Failed => "[!]",
            Self::Cancelled => "[-]",
        }
    }
}

/// One item of a plan, whatever the dialect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanItem {
    /// The dialect's id; dialects without ids use the 1-based position.
    pub id: String,
    /// The item's text (`text`, `content`, `step`, `description`, ...).
    pub text: String,
    pub status: PlanStatus,
    /// Claude Code's and planning-state's present-tense form, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
}

impl PlanItem {
    pub fn new(id: impl Into<String>, text: impl Into<String>, status: PlanStatus) -> Self {
        Self {
            id: id.into(),
            text: text.into(),
            status,
            active_form: None,
        }
    }
}

/// What one planning-tool call gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanOutcome {
    /// The tool result text the model sees (success or error, exactly as
    /// the dialect words it).
    pub content: String,
    /// Whether the plan was updated. A rejected call changes nothing.
    pub accepted: bool,
}

impl PlanOutcome {
    pub fn accepted(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            accepted: true,
        }
    }

    pub fn rejected(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            accepted: false,
        }
    }
}

/// A tool call a dialect writes (for the simulated model).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanCall {
    pub tool: String,
    pub input: Value,
}

/// The kinds of invalid update the simulated model sends now and then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidUpdate {
    TwoInProgress,
    EmptyText,
    UnknownStatus,
    TooMany,
}

/// One planning-tool design. Implementations are stateless values; the
/// plan itself is the `Vec<PlanItem>` the loop keeps per run.
pub trait PlanDialect: fmt::Debug + Send + Sync {
    /// The dialect's name as written in scenarios (`s03`, `claude-code`, ...).
    fn name(&self) -> &'static str;

    /// The planning tool schema(s), in the order they are offered (after
    /// the workspace tools).
    fn tools(&self) -> Vec<ToolSchema>;

    /// Whether `tool` is one of this dialect's planning tools.
    fn is_planning_tool(&self, tool: &str) -> bool;

    /// Validates one call of a planning tool and, when it is accepted,
    /// updates `plan`. A rejected call must leave `plan` unchanged. Never
    /// panics, whatever the input.
    fn apply(&self, plan: &mut Vec<PlanItem>, tool: &str, input: &Value) -> PlanOutcome;

    /// The plan as the dialect shows it (its success render, or the render
    /// it would give if it echoed the plan; used by the every-turn reminder
    /// and the transcript view).
    fn render(&self, plan: &[PlanItem]) -> String;

    /// Reads a plan back from a tool result, if the result is one of this
    /// dialect's renders. Dialects that do not echo the plan return `None`.
    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>>;

    /// Reads the plan an *accepted* call set, given the plan before it
    /// (for dialects whose calls change one item at a time).
    fn plan_from_call(
        &self,
        before: &[PlanItem],
        tool: &str,
        input: &Value,
    ) -> Option<Vec<PlanItem>>;

    /// Whether a planning-tool result is one of this dialect's errors.
    fn is_error(&self, result: &str) -> bool;

    /// The error prefix for messages this dialect does not list itself.
    fn error_prefix(&self) -> &'static str;

    /// The call(s) that turn plan `before` into `wanted` in this dialect's
    /// shape (`before` is empty when no plan exists yet).
    fn write_update(&self, before: &[PlanItem], wanted: &[PlanItem]) -> Vec<PlanCall>;

    /// An update this dialect rejects, of the given kind, built from
    /// `wanted`; `None` when the dialect accepts every update of that kind
    /// (Claude Code has no count limit, for instance).
    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall>;
}

/// The dialects a scenario can name: the registry.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    #[default]
    S03,
}

impl Dialect {
    /// Every dialect, in the order reports list them.
    pub const ALL: &'static [Dialect] = &[Dialect::S03];

    /// The dialect's implementation.
    pub fn get(self) -> &'static dyn PlanDialect {
        match self {
            Self::S03 => &s03::S03,
        }
    }

    pub fn name(self) -> &'static str {
        self.get().name()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
