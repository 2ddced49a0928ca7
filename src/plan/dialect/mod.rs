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
//! [`Dialect`]. Why a dialect refuses a call is typed in `error.rs`, one
//! enum a dialect, each message the agent's own text (`refusals.rs` pins
//! them).
//!
//! The dialects, by scenario name: `s03` (the reference), `s03-guarded`,
//! `planning-state`, `java-port`, `create-update`, `claude-code` (Claude
//! Code's TodoWrite), `claude-code-tasks` (Claude Code's Task tools),
//! `codex` (Codex CLI's update_plan), `gemini` (Gemini CLI's
//! write_todos), `qwen-code` (Qwen Code's todo_write), `opencode`
//! (OpenCode's todowrite) and `copilot-sql` (GitHub Copilot CLI's `todos`
//! table behind its `sql` tool). `docs/dialects.md` lists their schemas,
//! rules and exact texts.

mod claude_code;
mod claude_code_tasks;
mod codex;
mod copilot_sql;
mod create_update;
mod error;
mod gemini;
mod java_port;
mod opencode;
mod planning_state;
mod qwen_code;
#[cfg(test)]
mod refusals;
mod s03;
mod s03_guarded;
mod schema_file;
mod shared_call;
#[cfg(test)]
mod test_support;
mod todo_write_issues;
mod whole_list;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

use crate::llm::ToolSchema;

pub use shared_call::apply_shared;

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

    /// The three-status vocabulary most dialects share (`pending`,
    /// `in_progress`, `completed`); `None` for any other word.
    pub fn from_three_words(word: &str) -> Option<Self> {
        match word {
            "pending" => Some(Self::Pending),
            "in_progress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }

    /// The word of the three-status vocabulary ([`Self::from_three_words`]):
    /// `failed` and `cancelled`, which it lacks, are written `pending`
    /// (not done).
    pub fn three_words(self) -> &'static str {
        match self {
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Pending | Self::Failed | Self::Cancelled => "pending",
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
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanItem {
    /// The dialect's id; dialects without ids use the 1-based position.
    pub id: String,
    /// The item's text (`text`, `content`, `step`, `description`, ...).
    pub text: String,
    pub status: PlanStatus,
    /// Claude Code's and planning-state's present-tense form, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    /// What a task of Claude Code's Task tools holds besides its subject
    /// and status (`claude-code-tasks` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Box<TaskFields>>,
}

/// The fields of a `claude-code-tasks` task that no other dialect has.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskFields {
    pub description: String,
    /// Empty when no owner was set.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub owner: String,
    /// Ids of the tasks this one blocks, in the order they were added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<String>,
    /// Ids of the tasks that block this one, in the order they were added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<String>,
    /// The highest id given out so far, as far as this task knows: a
    /// deleted task's id is never given again while any task remains.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub last_id: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Clone for PlanItem {
    fn clone(&self) -> Self {
        Self {
            id: self.id.clone(),
            text: self.text.clone(),
            status: self.status,
            active_form: self.active_form.clone(),
            task: self.task.clone(),
        }
    }

    /// Field by field, so a plan copied over one like it (a shared call's
    /// plan, taken again in the next run) reuses its strings' buffers.
    fn clone_from(&mut self, source: &Self) {
        self.id.clone_from(&source.id);
        self.text.clone_from(&source.text);
        self.status = source.status;
        self.active_form.clone_from(&source.active_form);
        self.task.clone_from(&source.task);
    }
}

impl PlanItem {
    pub fn new(id: impl Into<String>, text: impl Into<String>, status: PlanStatus) -> Self {
        Self {
            id: id.into(),
            text: text.into(),
            status,
            active_form: None,
            task: None,
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

impl PlanCall {
    /// A call of `tool` that sends the whole list under `key`: how every
    /// whole-list dialect writes an update.
    pub fn whole_list(tool: &str, key: &str, items: Vec<Value>) -> Self {
        let mut input = serde_json::Map::new();
        input.insert(key.to_string(), Value::Array(items));
        Self {
            tool: tool.to_string(),
            input: Value::Object(input),
        }
    }
}

/// The kinds of invalid update the simulated model sends now and then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidUpdate {
    TwoInProgress,
    EmptyText,
    UnknownStatus,
    TooMany,
}

/// An item a broken whole-list update adds (the dialect says how it looks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddedItem {
    /// The item that makes a second one in progress, numbered from the
    /// list's length (`position` = 1-based place in the list).
    SecondInProgress { position: usize },
    /// The only item of an otherwise empty list, with an empty text.
    EmptyText,
    /// The only item of an otherwise empty list, with an unknown status.
    UnknownStatus,
    /// One of the items past the limit: the `nth` added (from 1), at 1-based
    /// `position` in the list.
    OverLimit { nth: usize, position: usize },
}

impl InvalidUpdate {
    /// Breaks the rule in a whole list of items (`items`, the wanted plan
    /// in the dialect's shape): two items in progress, the first item's
    /// `text_field` empty, the first item's status `done`, or more than
    /// `limit` items. Items are added through `added` where the list is too
    /// short. `false` when the dialect has no such rule (`TooMany` without
    /// a limit).
    pub fn break_list(
        self,
        items: &mut Vec<Value>,
        text_field: &str,
        limit: Option<usize>,
        added: impl Fn(AddedItem) -> Value,
    ) -> bool {
        match self {
            Self::TwoInProgress => {
                while items.len() < 2 {
                    items.push(added(AddedItem::SecondInProgress {
                        position: items.len() + 1,
                    }));
                }
                for item in items.iter_mut().take(2) {
                    item["status"] = Value::from("in_progress");
                }
            }
            Self::EmptyText => match items.first_mut() {
                Some(item) => item[text_field] = Value::from(""),
                None => items.push(added(AddedItem::EmptyText)),
            },
            Self::UnknownStatus => match items.first_mut() {
                Some(item) => item["status"] = Value::from("done"),
                None => items.push(added(AddedItem::UnknownStatus)),
            },
            Self::TooMany => {
                let Some(limit) = limit else {
                    return false;
                };
                let mut nth = 0;
                while items.len() <= limit {
                    nth += 1;
                    items.push(added(AddedItem::OverLimit {
                        nth,
                        position: items.len() + 1,
                    }));
                }
            }
        }
        true
    }
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

    /// Whether `tool` is a planning tool that only reads the plan back
    /// (Claude Code's `TaskList` and `TaskGet`), rather than writing it.
    fn reads_plan_only(&self, _tool: &str) -> bool {
        false
    }

    /// The answer to a call of a tool that loads this dialect's tools
    /// (Claude Code's `ToolSearch` for its deferred Task tools); `None` for
    /// every other tool. Such a call is neither a planning call nor unknown.
    fn load_tools(&self, _tool: &str, _input: &Value) -> Option<String> {
        None
    }

    /// Validates one call of a planning tool and, when it is accepted,
    /// updates `plan`. A rejected call must leave `plan` unchanged. Never
    /// panics, whatever the input.
    fn apply(&self, plan: &mut Vec<PlanItem>, tool: &str, input: &Value) -> PlanOutcome;

    /// Whether [`Self::apply`] is a function of the plan, the tool and the
    /// input alone: the same call on the same plan always gives the same
    /// outcome and the same plan after it, so [`apply_shared`] may reuse
    /// them. Not by default: copilot-sql's SQL can ask for the time or a
    /// random number.
    fn apply_is_pure(&self) -> bool {
        false
    }

    /// The plan as the dialect shows it (its success render, or the render
    /// it would give if it echoed the plan; used by the every-turn reminder
    /// and the transcript view).
    fn render(&self, plan: &[PlanItem]) -> String;

    /// Reads a plan back from a tool result, if the result is one of this
    /// dialect's renders. Dialects that do not echo the plan return `None`.
    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>>;

    /// Reads the plan an *accepted* call set, given the plan before it
    /// (for dialects whose calls change one item at a time); `None` when
    /// the dialect would reject the call. This is the plan as the call
    /// wrote it: for claude-code, the list sent even when every item is
    /// completed and the stored list became empty. By default the call is
    /// applied to a copy of `before`, which is right for a dialect whose
    /// stored plan is the plan as written.
    fn plan_from_call(
        &self,
        before: &[PlanItem],
        tool: &str,
        input: &Value,
    ) -> Option<Vec<PlanItem>> {
        let mut plan = before.to_vec();
        self.apply(&mut plan, tool, input).accepted.then_some(plan)
    }

    /// Whether a planning-tool result is one of this dialect's errors.
    /// Every dialect words its errors behind its prefix, so this is the
    /// prefix test unless a dialect says otherwise.
    fn is_error(&self, result: &str) -> bool {
        result.starts_with(self.error_prefix())
    }

    /// The error prefix for messages this dialect does not list itself.
    fn error_prefix(&self) -> &'static str;

    /// Whether the agent this dialect imitates marks a refused or failed
    /// call's result with the API's `is_error: true` (Claude Code does;
    /// the s03 loop does not). The built-in loop does the same.
    fn flags_errors(&self) -> bool {
        false
    }

    /// The call(s) that turn plan `before` into `wanted` in this dialect's
    /// shape (`before` is empty when no plan exists yet).
    fn write_update(&self, before: &[PlanItem], wanted: &[PlanItem]) -> Vec<PlanCall>;

    /// An update this dialect rejects, of the given kind, built from
    /// `wanted`; `None` when the dialect accepts every update of that kind
    /// (Claude Code has no count limit, for instance).
    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall>;

    /// The dialect's own word for a status (create-update says `running`
    /// for [`PlanStatus::InProgress`]); for reminder texts and views.
    fn status_word(&self, status: PlanStatus) -> &'static str {
        status.as_str()
    }

    /// The statuses a stored plan can hold in this dialect, in the order
    /// the dialect lists them.
    fn statuses(&self) -> &'static [PlanStatus] {
        &[
            PlanStatus::Pending,
            PlanStatus::InProgress,
            PlanStatus::Completed,
        ]
    }

    /// The most items one accepted plan may hold, if the dialect limits it.
    fn max_items(&self) -> Option<usize> {
        None
    }

    /// Whether an accepted plan holds at most one in-progress item.
    fn single_in_progress(&self) -> bool {
        false
    }
}

/// An `activeForm` for a text that comes without one (Claude Code requires
/// it; the simulated model writes this one).
pub fn active_form_for(text: &str) -> String {
    format!("Working on: {text}")
}

/// How many items of `plan` are completed.
pub(crate) fn completed_count(plan: &[PlanItem]) -> usize {
    plan.iter()
        .filter(|item| item.status == PlanStatus::Completed)
        .count()
}

/// A plan as one line per item, `<k>. [<status>] <text>`, or `empty` when
/// it has none: the view of dialects whose tool never shows the plan.
pub(crate) fn numbered_status_lines(plan: &[PlanItem], empty: &str) -> String {
    if plan.is_empty() {
        return empty.into();
    }
    plan.iter()
        .enumerate()
        .map(|(k, item)| format!("{}. [{}] {}", k + 1, item.status.as_str(), item.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// zod's name for a JSON value's type, as Claude Code's validation errors
/// word it.
pub(crate) fn zod_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether JavaScript's `s.trim()` leaves nothing: its white space is
/// Unicode's space separators, tab, the line terminators, VT, FF and the
/// BOM (but not U+0085, which Rust counts).
pub(crate) fn js_blank(s: &str) -> bool {
    s.chars().all(|c| {
        matches!(
            c,
            '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
                ..='\u{200a}'
                    | '\u{2028}'
                    | '\u{2029}'
                    | '\u{202f}'
                    | '\u{205f}'
                    | '\u{3000}'
                    | '\u{feff}'
        )
    })
}

/// Matches each `wanted` item to the first item of `before` with its text
/// that no earlier wanted item took: the matches in `wanted`'s order
/// (`None` for an item new to the plan), then the items of `before` none
/// matched (the ones a rewritten plan dropped), in their order.
pub(crate) fn match_by_text<'b>(
    before: &'b [PlanItem],
    wanted: &[PlanItem],
) -> (Vec<Option<&'b PlanItem>>, Vec<&'b PlanItem>) {
    let mut free: Vec<Option<&PlanItem>> = before.iter().map(Some).collect();
    let matches = wanted
        .iter()
        .map(|item| {
            free.iter_mut()
                .find(|slot| slot.is_some_and(|old| old.text == item.text))
                .and_then(Option::take)
        })
        .collect();
    let dropped = free.into_iter().flatten().collect();
    (matches, dropped)
}

/// Positions as ids (1, 2, ...), for dialects whose items have none.
pub(crate) fn numbered(
    items: impl IntoIterator<Item = (String, PlanStatus, Option<String>)>,
) -> Vec<PlanItem> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, (text, status, active_form))| PlanItem {
            id: (i + 1).to_string(),
            text,
            status,
            active_form,
            task: None,
        })
        .collect()
}

/// The dialects a scenario can name: the registry.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    #[default]
    S03,
    S03Guarded,
    PlanningState,
    JavaPort,
    CreateUpdate,
    ClaudeCode,
    ClaudeCodeTasks,
    Codex,
    Gemini,
    QwenCode,
    #[serde(rename = "opencode")]
    OpenCode,
    CopilotSql,
}

impl Dialect {
    /// Every dialect, in the order reports list them.
    pub const ALL: &'static [Dialect] = &[
        Dialect::S03,
        Dialect::S03Guarded,
        Dialect::PlanningState,
        Dialect::JavaPort,
        Dialect::CreateUpdate,
        Dialect::ClaudeCode,
        Dialect::ClaudeCodeTasks,
        Dialect::Codex,
        Dialect::Gemini,
        Dialect::QwenCode,
        Dialect::OpenCode,
        Dialect::CopilotSql,
    ];

    /// The dialect's implementation.
    pub fn get(self) -> &'static dyn PlanDialect {
        match self {
            Self::S03 => &s03::S03,
            Self::S03Guarded => &s03_guarded::S03Guarded,
            Self::PlanningState => &planning_state::PlanningState,
            Self::JavaPort => &java_port::JavaPort,
            Self::CreateUpdate => &create_update::CreateUpdate,
            Self::ClaudeCode => &claude_code::ClaudeCode,
            Self::ClaudeCodeTasks => &claude_code_tasks::ClaudeCodeTasks,
            Self::Codex => &codex::Codex,
            Self::Gemini => &gemini::Gemini,
            Self::QwenCode => &qwen_code::QwenCode,
            Self::OpenCode => &opencode::OpenCode,
            Self::CopilotSql => &copilot_sql::CopilotSql,
        }
    }

    /// The dialect with this scenario name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|d| d.name() == name)
    }

    pub fn name(self) -> &'static str {
        self.get().name()
    }
}

impl std::str::FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::from_name(name).ok_or_else(|| UnknownDialect(name.to_string()))
    }
}

/// A dialect name that is not in the registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown dialect `{0}`, expected one of: s03, s03-guarded, planning-state, java-port, create-update, claude-code, claude-code-tasks, codex, gemini, qwen-code, opencode, copilot-sql"
)]
pub struct UnknownDialect(pub String);

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(texts: &[&str]) -> Vec<PlanItem> {
        numbered(
            texts
                .iter()
                .map(|t| (t.to_string(), PlanStatus::Pending, None)),
        )
    }

    /// Each wanted item takes the first free item with its text, once;
    /// what none took is dropped, in the old order.
    #[test]
    fn match_by_text_takes_each_old_item_once() {
        let before = items(&["a", "b", "a", "c"]);
        let wanted = items(&["a", "x", "a", "a", "b"]);
        let (matches, dropped) = match_by_text(&before, &wanted);
        let ids: Vec<Option<&str>> = matches.iter().map(|m| m.map(|i| i.id.as_str())).collect();
        assert_eq!(ids, vec![Some("1"), None, Some("3"), None, Some("2")]);
        let dropped: Vec<&str> = dropped.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(dropped, vec!["4"]);
    }

    #[test]
    fn names_match_serde_and_the_registry() {
        for &dialect in Dialect::ALL {
            let json = serde_json::to_value(dialect).unwrap_or_default();
            assert_eq!(json, serde_json::json!(dialect.name()));
            assert_eq!(Dialect::from_name(dialect.name()), Some(dialect));
            assert_eq!(dialect.to_string(), dialect.name());
            assert_eq!(dialect.name().parse::<Dialect>(), Ok(dialect));
        }
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        assert_eq!(
            names,
            [
                "s03",
                "s03-guarded",
                "planning-state",
                "java-port",
                "create-update",
                "claude-code",
                "claude-code-tasks",
                "codex",
                "gemini",
                "qwen-code",
                "opencode",
                "copilot-sql"
            ]
        );
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = "claude_code".parse::<Dialect>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown dialect `claude_code`, expected one of: s03, s03-guarded, planning-state, java-port, create-update, claude-code, claude-code-tasks, codex, gemini, qwen-code, opencode, copilot-sql"
        );
    }

    #[test]
    fn every_tool_is_a_planning_tool_of_its_dialect_or_loads_them() {
        for &dialect in Dialect::ALL {
            let d = dialect.get();
            for tool in d.tools() {
                let loads = d.load_tools(&tool.name, &serde_json::json!({})).is_some();
                assert!(
                    d.is_planning_tool(&tool.name) != loads,
                    "{dialect}: {}",
                    tool.name
                );
            }
            assert!(!d.is_planning_tool("bash"));
        }
    }

    #[test]
    fn break_list_breaks_exactly_one_rule() {
        use serde_json::json;
        let added = |a: AddedItem| json!({"t": format!("{a:?}"), "status": "pending"});
        let wanted = || vec![json!({"t": "a", "status": "pending"})];

        let mut items = wanted();
        assert!(InvalidUpdate::TwoInProgress.break_list(&mut items, "t", None, added));
        assert_eq!(
            items,
            [
                json!({"t": "a", "status": "in_progress"}),
                json!({"t": "SecondInProgress { position: 2 }", "status": "in_progress"}),
            ]
        );

        let mut items = wanted();
        assert!(InvalidUpdate::EmptyText.break_list(&mut items, "t", None, added));
        assert_eq!(items, [json!({"t": "", "status": "pending"})]);
        let mut empty = Vec::new();
        InvalidUpdate::EmptyText.break_list(&mut empty, "t", None, added);
        assert_eq!(empty, [json!({"t": "EmptyText", "status": "pending"})]);

        let mut items = wanted();
        assert!(InvalidUpdate::UnknownStatus.break_list(&mut items, "t", None, added));
        assert_eq!(items, [json!({"t": "a", "status": "done"})]);

        let mut items = wanted();
        assert!(!InvalidUpdate::TooMany.break_list(&mut items, "t", None, added));
        assert_eq!(items, wanted());
        assert!(InvalidUpdate::TooMany.break_list(&mut items, "t", Some(3), added));
        assert_eq!(items.len(), 4);
        assert_eq!(
            items[3],
            json!({"t": "OverLimit { nth: 3, position: 4 }", "status": "pending"})
        );
    }
}
