//! The refusals every dialect answers, pinned byte for byte: the table
//! below was taken from the dialects when their checks still returned
//! strings, before they became the enums of `error.rs`. A refusal is the
//! tool result the model reads, so not one byte of it may change.

use serde_json::{Value, json};

use super::Dialect;
use super::test_support::apply_to_kept;

/// One call of `tool` to `dialect` on a one-item plan, which a refusal
/// leaves as it was: the text answered.
fn refusal(dialect: Dialect, tool: &str, input: &Value) -> String {
    let outcome = apply_to_kept(dialect.get(), tool, input);
    assert!(!outcome.accepted, "{dialect:?} {input}: accepted");
    outcome.content
}

/// The reference and its kin: `s03`, `java-port`, `planning-state`, `s03-guarded`.
fn reference_cases() -> Vec<(Dialect, &'static str, Value)> {
    use Dialect as D;
    let many =
        |n: usize, key: &str| -> Value { (0..n).map(|i| json!({key: format!("t{i}")})).collect() };
    vec![
        (D::S03, "todo", json!({"items": "x"})),
        (
            D::S03,
            "todo",
            json!({"items": [{"text": "a", "status": "done"}]}),
        ),
        (
            D::JavaPort,
            "todo",
            json!({"items": [{"id": "a", "text": " "}]}),
        ),
        (D::PlanningState, "todo", json!(null)),
        (D::PlanningState, "todo", json!({})),
        (D::PlanningState, "todo", json!({"items": 1})),
        (
            D::PlanningState,
            "todo",
            json!({"items": many(13, "content")}),
        ),
        (D::PlanningState, "todo", json!({"items": [true]})),
        (
            D::PlanningState,
            "todo",
            json!({"items": [{"content": ""}]}),
        ),
        (
            D::PlanningState,
            "todo",
            json!({"items": [{"content": "a", "status": "x"}]}),
        ),
        (
            D::PlanningState,
            "todo",
            json!({"items": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]}),
        ),
        (D::S03Guarded, "todo", json!([])),
        (D::S03Guarded, "todo", json!({})),
        (D::S03Guarded, "todo", json!({"todos": "a"})),
        (D::S03Guarded, "todo", json!({"todos": many(21, "text")})),
        (D::S03Guarded, "todo", json!({"todos": [1]})),
        (
            D::S03Guarded,
            "todo",
            json!({"todos": [{"id": "q", "text": ""}]}),
        ),
        (
            D::S03Guarded,
            "todo",
            json!({"todos": [{"text": "a", "status": "Done"}]}),
        ),
        (
            D::S03Guarded,
            "todo",
            json!({"todos": [{"text": "a", "status": "in_progress"}, {"text": "b", "status": "in_progress"}]}),
        ),
    ]
}

/// The agents whose refusals are schema checks: Gemini CLI, Codex, OpenCode.
fn schema_cases() -> Vec<(Dialect, &'static str, Value)> {
    use Dialect as D;
    vec![
        (D::Gemini, "write_todos", json!("x")),
        (D::Gemini, "write_todos", json!({})),
        (D::Gemini, "write_todos", json!({"todos": [], "x": 1})),
        (D::Gemini, "write_todos", json!({"todos": {}})),
        (D::Gemini, "write_todos", json!({"todos": [2]})),
        (
            D::Gemini,
            "write_todos",
            json!({"todos": [{"description": "a"}]}),
        ),
        (
            D::Gemini,
            "write_todos",
            json!({"todos": [{"description": "a", "status": "pending", "y": 1}]}),
        ),
        (
            D::Gemini,
            "write_todos",
            json!({"todos": [{"description": 1, "status": "pending"}]}),
        ),
        (
            D::Gemini,
            "write_todos",
            json!({"todos": [{"description": "a", "status": "done"}]}),
        ),
        (
            D::Gemini,
            "write_todos",
            json!({"todos": [{"description": "a", "status": 3}]}),
        ),
        (
            D::Gemini,
            "write_todos",
            json!({"todos": [{"description": " ", "status": "pending"}]}),
        ),
        (
            D::Gemini,
            "write_todos",
            json!({"todos": [{"description": "a", "status": "in_progress"}, {"description": "b", "status": "in_progress"}]}),
        ),
        (
            D::Codex,
            "update_plan",
            json!({"plan": [{"step": "a", "status": "done"}]}),
        ),
        (D::Codex, "update_plan", json!({"plan": [], "extra": 1})),
        (D::OpenCode, "todowrite", json!([])),
        (D::OpenCode, "todowrite", json!({})),
        (D::OpenCode, "todowrite", json!({"todos": 1})),
        (D::OpenCode, "todowrite", json!({"todos": [null]})),
        (
            D::OpenCode,
            "todowrite",
            json!({"todos": [{"content": "a"}]}),
        ),
        (
            D::OpenCode,
            "todowrite",
            json!({"todos": [{"content": "a", "status": 1, "priority": "high"}]}),
        ),
    ]
}

/// Claude Code's issue lists, Qwen Code, Copilot's SQL tool and the Task tools.
fn issue_cases() -> Vec<(Dialect, &'static str, Value)> {
    use Dialect as D;
    vec![
        (D::ClaudeCode, "TodoWrite", json!(7)),
        (
            D::ClaudeCode,
            "TodoWrite",
            json!({"todos": [{"content": "", "status": "x"}], "more": 1}),
        ),
        (D::QwenCode, "todo_write", json!({"todos": 1})),
        (
            D::QwenCode,
            "todo_write",
            json!({"todos": [{"id": "a", "content": "b", "status": "pending", "blockedBy": ["a"]}]}),
        ),
        (D::CopilotSql, "sql", json!("q")),
        (D::CopilotSql, "sql", json!({"query": "SELECT 1"})),
        (
            D::CopilotSql,
            "sql",
            json!({"description": "d", "query": 1}),
        ),
        (
            D::CopilotSql,
            "sql",
            json!({"description": "d", "query": "  "}),
        ),
        (
            D::CopilotSql,
            "sql",
            json!({"description": "d", "query": "x".repeat(1_000_001)}),
        ),
        (
            D::CopilotSql,
            "sql",
            json!({"description": "d", "query": "vacuum   into x"}),
        ),
        (D::ClaudeCodeTasks, "TaskCreate", json!(1)),
        (D::ClaudeCodeTasks, "TaskUpdate", json!([])),
        (
            D::ClaudeCodeTasks,
            "TaskUpdate",
            json!({"taskId": 1, "status": "x", "extra": 2}),
        ),
    ]
}

/// Every case, in the order of [`ANSWERS`].
fn cases() -> Vec<(Dialect, &'static str, Value)> {
    [reference_cases(), schema_cases(), issue_cases()].concat()
}

/// The texts answered, in the order of [`cases`].
const ANSWERS: [&str; 52] = [
    "Error: items must be an array of todo objects, got a string",
    "Error: Item 1: invalid status 'done'",
    "Error: Item a: text required",
    "Error: todo input must be an object with an items array, got null",
    "Error: items is required: an array of {content, status, activeForm} objects",
    "Error: items must be an array of plan items, got a number",
    "Error: Max 12 plan items allowed",
    "Error: Item 0: must be an object with content and status, got a boolean",
    "Error: Item 0: content required",
    "Error: Item 0: invalid status 'x'",
    "Error: Only one plan item can be in_progress",
    "Error in tool call: todo input must be an object with a todos list, got an array",
    "Error in tool call: todos is required: a list of {id, text, status} objects",
    "Error in tool call: todos must be a list of todo objects, got a string",
    "Error in tool call: Max 15 todos allowed",
    "Error in tool call: Todo 0: must be an object with id, text and status, got a number",
    "Error in tool call: Todo q: text required",
    "Error in tool call: Todo todo_0: invalid status 'done'",
    "Error in tool call: Max 1 in_progress todo allowed",
    "Value of params must be an object",
    "params must have required property 'todos'",
    "params must NOT have additional properties",
    "params/todos must be array",
    "params/todos/0 must be object",
    "params/todos/0 must have required property 'status'",
    "params/todos/0 must NOT have additional properties",
    "params/todos/0/description must be string",
    "params/todos/0/status must be equal to one of the allowed values",
    "params/todos/0/status must be string",
    "Each todo must have a non-empty description string",
    "Invalid parameters: Only one task can be \"in_progress\" at a time.",
    "failed to parse function arguments: unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36",
    "failed to parse function arguments: unknown field `extra`, expected `explanation` or `plan` at line 1 column 18",
    "The todowrite tool was called with invalid arguments: SchemaError(Expected object, got []).\nPlease rewrite the input so it satisfies the expected schema.",
    "The todowrite tool was called with invalid arguments: SchemaError(Missing key\n  at [\"todos\"]).\nPlease rewrite the input so it satisfies the expected schema.",
    "The todowrite tool was called with invalid arguments: SchemaError(Expected array, got 1\n  at [\"todos\"]).\nPlease rewrite the input so it satisfies the expected schema.",
    "The todowrite tool was called with invalid arguments: SchemaError(Expected Todo, got null\n  at [\"todos\"][0]).\nPlease rewrite the input so it satisfies the expected schema.",
    "The todowrite tool was called with invalid arguments: SchemaError(Missing key\n  at [\"todos\"][0][\"status\"]).\nPlease rewrite the input so it satisfies the expected schema.",
    "The todowrite tool was called with invalid arguments: SchemaError(Expected string, got 1\n  at [\"todos\"][0][\"status\"]).\nPlease rewrite the input so it satisfies the expected schema.",
    "<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe parameter `` type is expected as `object` but provided as `number`</tool_use_error>",
    "<tool_use_error>InputValidationError: TodoWrite failed due to the following issues:\nThe required parameter `todos[0].activeForm` is missing\nAn unexpected parameter `more` was provided\nThe parameter `todos[0].content` is invalid: Content cannot be empty\nThe parameter `todos[0].status` is invalid: Invalid enum value. Expected 'pending' | 'in_progress' | 'completed', received 'x'</tool_use_error>",
    "Parameter \"todos\" must be an array.",
    "Todo \"a\" must not depend on itself.",
    "Invalid input: Expected object, received string",
    "Invalid input: \"description\": Required",
    "Invalid input: \"query\": Expected string, received number",
    "Error: Empty query provided.",
    "SQL Error: Error: string or blob too big",
    "Error: Blocked SQL statement: \"VACUUM INTO\" is not allowed for security reasons.",
    "<tool_use_error>InputValidationError: TaskCreate failed due to the following issue:\nThe parameter `input` type is expected as `object` but provided as `number`</tool_use_error>",
    "<tool_use_error>InputValidationError: TaskUpdate failed due to the following issue:\nThe parameter `input` type is expected as `object` but provided as `array`</tool_use_error>",
    "<tool_use_error>InputValidationError: [\n  {\n    \"code\": \"invalid_union\",\n    \"errors\": [\n      [\n        {\n          \"code\": \"invalid_value\",\n          \"values\": [\n            \"pending\",\n            \"in_progress\",\n            \"completed\"\n          ],\n          \"path\": [],\n          \"message\": \"Invalid option: expected one of \\\"pending\\\"|\\\"in_progress\\\"|\\\"completed\\\"\"\n        }\n      ],\n      [\n        {\n          \"code\": \"invalid_value\",\n          \"values\": [\n            \"deleted\"\n          ],\n          \"path\": [],\n          \"message\": \"Invalid input: expected \\\"deleted\\\"\"\n        }\n      ]\n    ],\n    \"path\": [\n      \"status\"\n    ],\n    \"message\": \"Invalid input\"\n  }\n]</tool_use_error>",
];

#[test]
fn every_refusal_is_the_text_pinned() {
    let cases = cases();
    assert_eq!(cases.len(), ANSWERS.len());
    for ((dialect, tool, input), answer) in cases.into_iter().zip(ANSWERS) {
        assert_eq!(
            refusal(dialect, tool, &input),
            answer,
            "{dialect:?} {input}"
        );
    }
}
