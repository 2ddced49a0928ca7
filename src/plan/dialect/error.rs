//! Why a planning call is refused, one enum a dialect, each message the
//! agent's own text (the tool result the model reads; `refusals.rs` pins
//! every one byte for byte). [`Refusal`] is what a whole-list dialect's
//! validation gives the shared piece (`whole_list.rs`): one of these.
//!
//! Claude Code's refusals list the input's issues in one text (Zod's way);
//! their types are the issue lists in `todo_write_issues.rs` and
//! `claude_code_tasks.rs`, and the text is assembled where the list is.

use thiserror::Error;

use crate::plan::todo::TodoError;

/// Why a whole-list dialect refused a call: its own enum's message.
#[derive(Debug, Error)]
pub enum Refusal {
    /// `s03` and `java-port`: the reference's `TodoManager` checks.
    #[error(transparent)]
    Todo(#[from] TodoError),
    #[error(transparent)]
    PlanningState(#[from] PlanningStateError),
    #[error(transparent)]
    Guarded(#[from] GuardedError),
    #[error(transparent)]
    Gemini(#[from] GeminiError),
    #[error(transparent)]
    Codex(#[from] CodexError),
    #[error(transparent)]
    Qwen(#[from] QwenTodoError),
    #[error(transparent)]
    OpenCode(#[from] OpenCodeError),
    /// Claude Code's `TodoWrite`: the list of the input's issues.
    #[error(transparent)]
    ClaudeCode(#[from] super::todo_write_issues::Issues),
}

/// `planning-state`'s checks; the message is the text after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlanningStateError {
    #[error("todo input must be an object with an items array, got {kind}")]
    NotAnObject { kind: &'static str },
    #[error("items is required: an array of {{content, status, activeForm}} objects")]
    NoItems,
    #[error("items must be an array of plan items, got {kind}")]
    ItemsNotAnArray { kind: &'static str },
    #[error("Max {max} plan items allowed")]
    TooMany { max: usize },
    /// Item `i` (0-based) is not an object.
    #[error("Item {i}: must be an object with content and status, got {kind}")]
    ItemNotAnObject { i: usize, kind: &'static str },
    #[error("Item {i}: content required")]
    NoContent { i: usize },
    #[error("Item {i}: invalid status '{word}'")]
    BadStatus { i: usize, word: String },
    #[error("Only one plan item can be in_progress")]
    TwoInProgress,
}

/// `s03-guarded`'s checks, in the reference's order; the message is the
/// text after the `Error in tool call: ` wrapper.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GuardedError {
    #[error("todo input must be an object with a todos list, got {kind}")]
    NotAnObject { kind: &'static str },
    #[error("todos is required: a list of {{id, text, status}} objects")]
    NoTodos,
    #[error("todos must be a list of todo objects, got {kind}")]
    TodosNotAList { kind: &'static str },
    #[error("Max {max} todos allowed")]
    TooMany { max: usize },
    /// Todo `i` (0-based) is not an object.
    #[error("Todo {i}: must be an object with id, text and status, got {kind}")]
    TodoNotAnObject { i: usize, kind: &'static str },
    #[error("Todo {id}: text required")]
    NoText { id: String },
    #[error("Todo {id}: invalid status '{word}'")]
    BadStatus { id: String, word: String },
    #[error("Max 1 in_progress todo allowed")]
    TwoInProgress,
}

/// Gemini CLI's `write_todos` checks: Ajv's schema errors (the first
/// only, `at` the path such as `params/todos/0`), then the tool's own.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GeminiError {
    #[error("Value of params must be an object")]
    NotAnObject,
    #[error("params must have required property 'todos'")]
    NoTodos,
    #[error("params must NOT have additional properties")]
    ExtraParam,
    #[error("params/todos must be array")]
    TodosNotAnArray,
    #[error("{at} must be object")]
    TodoNotAnObject { at: String },
    #[error("{at} must have required property '{key}'")]
    MissingKey { at: String, key: &'static str },
    #[error("{at} must NOT have additional properties")]
    ExtraKey { at: String },
    #[error("{at}/description must be string")]
    DescriptionNotAString { at: String },
    #[error("{at}/status must be equal to one of the allowed values")]
    UnknownStatus { at: String },
    #[error("{at}/status must be string")]
    StatusNotAString { at: String },
    #[error("Each todo must have a non-empty description string")]
    BlankDescription,
    #[error("Invalid parameters: Only one task can be \"in_progress\" at a time.")]
    TwoInProgress,
}

/// Codex's `update_plan`: serde's error over the arguments' JSON text.
#[derive(Debug, Error)]
#[error("failed to parse function arguments: {0}")]
pub struct CodexError(#[from] pub serde_json::Error);

/// OpenCode's `todowrite`: Effect Schema's complaint at a path (`at`,
/// such as `["todos"][0]`), wrapped in the tool's own sentence.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OpenCodeError {
    #[error("{}Missing key\n  at {at}{}", Self::PREFIX, Self::SUFFIX)]
    MissingKey { at: String },
    /// `got` is the value sent, as compact JSON; the top level has no `at`.
    #[error(
        "{}Expected {what}, got {got}{}{}",
        Self::PREFIX,
        at_line(at),
        Self::SUFFIX
    )]
    Expected {
        what: &'static str,
        got: String,
        at: String,
    },
}

impl OpenCodeError {
    /// How every complaint begins.
    pub const PREFIX: &str = "The todowrite tool was called with invalid arguments: SchemaError(";
    /// How every complaint ends.
    pub const SUFFIX: &str = ").\nPlease rewrite the input so it satisfies the expected schema.";
}

/// The `\n  at PATH` line of an OpenCode complaint; none at the top.
fn at_line(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!("\n  at {at}")
    }
}

/// GitHub Copilot CLI's `sql` tool, before anything runs: Zod's wording
/// of a bad input, then the guard's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CopilotSqlError {
    #[error("Invalid input: Expected object, received {received}")]
    NotAnObject { received: &'static str },
    #[error("Invalid input: \"{field}\": Required")]
    Required { field: &'static str },
    #[error("Invalid input: \"{field}\": Expected string, received {received}")]
    NotAString {
        field: &'static str,
        received: &'static str,
    },
    #[error("Error: Empty query provided.")]
    EmptyQuery,
    #[error("SQL Error: Error: string or blob too big")]
    TooBig,
    #[error("Error: Blocked SQL statement: \"{name}\" is not allowed for security reasons.")]
    Blocked { name: &'static str },
}

/// Qwen Code's checks of a `todo_write` list, in the binary's order.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QwenTodoError {
    #[error("Parameter \"todos\" must be an array.")]
    NotAnArray,
    #[error("Each todo must be an object.")]
    NotAnObject,
    #[error("Each todo must have a non-empty \"id\" string of at most 500 characters.")]
    BadId,
    #[error("Each todo must have a non-empty \"content\" string.")]
    BadContent,
    #[error("Each todo must have a valid \"status\" (pending, in_progress, completed).")]
    BadStatus,
    #[error(
        "Each todo \"blockedBy\" value must be an array of non-empty Todo IDs of at most 500 characters."
    )]
    BadBlockedBy,
    #[error("Todo IDs must be unique within the array.")]
    DuplicateIds,
    #[error("Todo \"{id}\" must not contain duplicate blockedBy references.")]
    DuplicateBlockers { id: String },
    #[error("Todo \"{id}\" must not depend on itself.")]
    SelfDependency { id: String },
    #[error("Todo \"{id}\" references unknown dependency \"{missing}\".")]
    UnknownDependency { id: String, missing: String },
    #[error("Todo dependencies must not contain a cycle.")]
    Cycle,
}

/// The `create_todos` / `update_todo` checks, in Chinese as the tools
/// answer (each message starts with `错误:`, which is how
/// `is_error` knows a refusal).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CreateUpdateError {
    #[error("错误:参数必须是一个对象,收到的是 {kind}。")]
    NotAnObject { kind: &'static str },
    #[error("错误:必须提供至少一个步骤描述。")]
    NoSteps,
    #[error("错误:items 必须是字符串列表,收到的是 {kind}。")]
    ItemsNotAList { kind: &'static str },
    /// Step `n` (1-based) is not a string.
    #[error("错误:第 {n} 个步骤描述必须是字符串,收到的是 {kind}。")]
    StepNotAString { n: usize, kind: &'static str },
    #[error("错误:第 {n} 个步骤描述不能为空。")]
    EmptyStep { n: usize },
    #[error("错误:无效状态 \"{status}\",可选值: running, completed, failed")]
    BadStatus { status: String },
    #[error("错误:必须提供步骤 ID。")]
    MissingId,
    #[error("错误:未找到 ID 为 \"{id}\" 的步骤。")]
    UnknownId { id: String },
}

#[cfg(test)]
mod tests {
    use super::CreateUpdateError as C;
    use super::QwenTodoError as E;

    /// The `create-update` messages, pinned byte for byte as they were
    /// when the checks returned strings.
    #[test]
    fn create_update_messages_are_the_tools_own() {
        let cases = [
            (
                C::NotAnObject { kind: "list" },
                "错误:参数必须是一个对象,收到的是 list。",
            ),
            (C::NoSteps, "错误:必须提供至少一个步骤描述。"),
            (
                C::ItemsNotAList { kind: "str" },
                "错误:items 必须是字符串列表,收到的是 str。",
            ),
            (
                C::StepNotAString { n: 2, kind: "int" },
                "错误:第 2 个步骤描述必须是字符串,收到的是 int。",
            ),
            (C::EmptyStep { n: 1 }, "错误:第 1 个步骤描述不能为空。"),
            (
                C::BadStatus {
                    status: "done".into(),
                },
                "错误:无效状态 \"done\",可选值: running, completed, failed",
            ),
            (C::MissingId, "错误:必须提供步骤 ID。"),
            (
                C::UnknownId { id: "9".into() },
                "错误:未找到 ID 为 \"9\" 的步骤。",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    /// The messages the model reads, pinned byte for byte as they were
    /// when the checks returned strings.
    #[test]
    fn messages_are_the_cli_s_own() {
        let id = || "a".to_string();
        let cases = [
            (E::NotAnArray, "Parameter \"todos\" must be an array."),
            (E::NotAnObject, "Each todo must be an object."),
            (
                E::BadId,
                "Each todo must have a non-empty \"id\" string of at most 500 characters.",
            ),
            (
                E::BadContent,
                "Each todo must have a non-empty \"content\" string.",
            ),
            (
                E::BadStatus,
                "Each todo must have a valid \"status\" (pending, in_progress, completed).",
            ),
            (
                E::BadBlockedBy,
                "Each todo \"blockedBy\" value must be an array of non-empty Todo IDs of at most 500 characters.",
            ),
            (E::DuplicateIds, "Todo IDs must be unique within the array."),
            (
                E::DuplicateBlockers { id: id() },
                "Todo \"a\" must not contain duplicate blockedBy references.",
            ),
            (
                E::SelfDependency { id: id() },
                "Todo \"a\" must not depend on itself.",
            ),
            (
                E::UnknownDependency {
                    id: id(),
                    missing: "b".into(),
                },
                "Todo \"a\" references unknown dependency \"b\".",
            ),
            (E::Cycle, "Todo dependencies must not contain a cycle."),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
