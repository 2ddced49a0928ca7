//! `claude-code`: Claude Code's `TodoWrite`. The whole list is sent every
//! time (`{todos: [{content, status, activeForm}]}`), every field is
//! required and non-empty, there is no count limit and any number of items
//! may be in progress. The result is one fixed sentence: the list is never
//! shown back. When every item is completed, the stored list becomes empty.
//!
//! Validation follows the source's zod schema and its error formatting:
//! `<tool_use_error>InputValidationError: TodoWrite failed due to the
//! following issue(s):\n...</tool_use_error>`, with the missing, unexpected
//! and mistyped parameters named by path (`todos[0].activeForm`).

use serde_json::{Value, json};

use super::{
    AddedItem, InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome, PlanStatus,
    active_form_for, numbered, numbered_status_lines, zod_type,
};
use std::sync::LazyLock;

use super::error::Refusal;
use super::todo_write_issues::{Issues, PREFIX, TOOL};
use super::whole_list::{Apply, WholeList};
use crate::llm::ToolSchema;

/// The tool result of every accepted call.
pub const SUCCESS: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";
const STATUS_ENUM: &str = "'pending' | 'in_progress' | 'completed'";

#[derive(Debug, Clone, Copy)]
pub struct ClaudeCode;

/// The list as the call wrote it, or the error text.
fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    Ok(check(input)?)
}

/// Every issue of the input, as zod finds them.
fn check(input: &Value) -> Result<Vec<PlanItem>, Issues> {
    let mut issues = Issues::default();
    let Some(object) = input.as_object() else {
        issues
            .mistyped
            .push((String::new(), "object", zod_type(input)));
        return Err(issues);
    };
    issues
        .unexpected
        .extend(object.keys().filter(|k| k.as_str() != "todos").cloned());
    let mut items = Vec::new();
    match object.get("todos") {
        None => issues.missing.push("todos".into()),
        Some(Value::Array(todos)) => {
            for (i, todo) in todos.iter().enumerate() {
                let Some(fields) = todo.as_object() else {
                    issues
                        .mistyped
                        .push((format!("todos[{i}]"), "object", zod_type(todo)));
                    continue;
                };
                let content = issues.string(
                    format!("todos[{i}].content"),
                    fields.get("content"),
                    "Content cannot be empty",
                );
                let path = format!("todos[{i}].status");
                let status = match fields.get("status") {
                    None => {
                        issues.missing.push(path);
                        None
                    }
                    Some(Value::String(word)) => {
                        let status = PlanStatus::from_three_words(word);
                        if status.is_none() {
                            issues.invalid.push((
                                path,
                                format!(
                                    "Invalid enum value. Expected {STATUS_ENUM}, received '{word}'"
                                ),
                            ));
                        }
                        status
                    }
                    Some(other) => {
                        issues.mistyped.push((path, STATUS_ENUM, zod_type(other)));
                        None
                    }
                };
                let form = issues.string(
                    format!("todos[{i}].activeForm"),
                    fields.get("activeForm"),
                    "Active form cannot be empty",
                );
                if let (Some(content), Some(status), Some(form)) = (content, status, form) {
                    items.push((content.to_string(), status, Some(form.to_string())));
                }
            }
        }
        Some(other) => issues
            .mistyped
            .push(("todos".into(), "array", zod_type(other))),
    }
    if issues.is_empty() {
        Ok(numbered(items))
    } else {
        Err(issues)
    }
}

fn item_json(item: &PlanItem) -> Value {
    let status = item.status.three_words();
    let form = item
        .active_form
        .clone()
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| active_form_for(&item.text));
    json!({"content": item.text, "status": status, "activeForm": form})
}

/// The tool schemas offered to the model, from `claude_code.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("claude_code.json");

/// An accepted list is stored, or nothing when every item is completed;
/// the answer is always the fixed sentence.
fn apply(plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
    match validate(input) {
        Ok(items) => {
            let all_done = items
                .iter()
                .all(|item| item.status == PlanStatus::Completed);
            *plan = if all_done { Vec::new() } else { items };
            PlanOutcome::accepted(SUCCESS)
        }
        Err(refusal) => PlanOutcome::rejected(refusal.to_string()),
    }
}

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "claude-code",
    tool: TOOL,
    key: "todos",
    schemas: &SCHEMAS,
    validate,
    item_json: |item, _| item_json(item),
    apply: Apply::Own(apply),
};

impl PlanDialect for ClaudeCode {
    // `plan_from_call` is the list as the call wrote it — also when every
    // item is completed and the stored list became empty: the model that
    // wrote it knows.
    super::whole_list::forward_to_whole_list!(LIST);

    /// Not a tool result (the tool never shows the list): the form Claude
    /// Code's own reminder lists it in, `<k>. [<status>] <content>`.
    fn render(&self, plan: &[PlanItem]) -> String {
        numbered_status_lines(plan, "No todos.")
    }

    fn plan_from_result(&self, _result: &str) -> Option<Vec<PlanItem>> {
        None
    }

    fn flags_errors(&self) -> bool {
        true
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        // Neither a count limit nor a single in-progress item.
        if matches!(kind, InvalidUpdate::TwoInProgress | InvalidUpdate::TooMany) {
            return None;
        }
        let mut items: Vec<Value> = wanted.iter().map(item_json).collect();
        kind.break_list(&mut items, "content", None, |added| {
            let (content, status) = match added {
                AddedItem::EmptyText => ("", "pending"),
                _ => ("Start", "done"),
            };
            json!({"content": content, "status": status, "activeForm": "Starting"})
        });
        Some(PlanCall::whole_list(TOOL, "todos", items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::test_support::apply_checked;

    fn apply(input: Value) -> (PlanOutcome, Vec<PlanItem>) {
        let mut plan = vec![PlanItem::new("1", "Keep", PlanStatus::Pending)];
        let outcome = apply_checked(&ClaudeCode, &mut plan, TOOL, &input);
        (outcome, plan)
    }

    fn error(input: Value) -> String {
        let (outcome, _) = apply(input);
        assert!(!outcome.accepted);
        outcome.content
    }

    #[test]
    fn accepted_calls_answer_the_fixed_sentence() {
        let (outcome, plan) = apply(json!({"todos": [
            {"content": "Read", "status": "completed", "activeForm": "Reading"},
            {"content": "Write", "status": "in_progress", "activeForm": "Writing", "id": "2"},
            {"content": "Test", "status": "in_progress", "activeForm": "Testing"},
        ]}));
        assert_eq!(outcome, PlanOutcome::accepted(SUCCESS));
        assert_eq!(plan.len(), 3);
        assert_eq!(plan[1].active_form.as_deref(), Some("Writing"));
        assert_eq!(
            ClaudeCode.render(&plan),
            "1. [completed] Read\n2. [in_progress] Write\n3. [in_progress] Test"
        );
        assert_eq!(ClaudeCode.plan_from_result(SUCCESS), None);
        let many: Vec<Value> = (0..40)
            .map(|i| json!({"content": format!("t{i}"), "status": "pending", "activeForm": "x"}))
            .collect();
        assert_eq!(apply(json!({"todos": many})).1.len(), 40);
    }

    #[test]
    fn all_completed_empties_the_stored_list() {
        let input =
            json!({"todos": [{"content": "Read", "status": "completed", "activeForm": "Reading"}]});
        let (outcome, plan) = apply(input.clone());
        assert!(outcome.accepted);
        assert!(plan.is_empty());
        let written = ClaudeCode
            .plan_from_call(&[], TOOL, &input)
            .unwrap_or_default();
        assert_eq!(written.len(), 1);
        assert_eq!(ClaudeCode.render(&plan), "No todos.");
    }

    #[test]
    fn every_rejection_message() {
        let head =
            "<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\n";
        let heads =
            "<tool_use_error>InputValidationError: TodoWrite failed due to the following issues:\n";
        let tail = "</tool_use_error>";
        assert_eq!(
            error(json!({})),
            format!("{head}The required parameter `todos` is missing{tail}")
        );
        assert_eq!(
            error(json!({"todos": "[]"})),
            format!(
                "{head}The parameter `todos` type is expected as `array` but provided as `string`{tail}"
            )
        );
        assert_eq!(
            error(json!({"query": 1})),
            format!(
                "{heads}The required parameter `todos` is missing\nAn unexpected parameter `query` was provided{tail}"
            )
        );
        assert_eq!(
            error(json!([])),
            format!(
                "{head}The parameter `` type is expected as `object` but provided as `array`{tail}"
            )
        );
        assert_eq!(
            error(json!({"todos": [{"content": "a", "status": "pending"}]})),
            format!("{head}The required parameter `todos[0].activeForm` is missing{tail}")
        );
        assert_eq!(
            error(json!({"todos": [{"content": "", "status": "pending", "activeForm": "x"}]})),
            format!(
                "{head}The parameter `todos[0].content` is invalid: Content cannot be empty{tail}"
            )
        );
        assert_eq!(
            error(json!({"todos": [{"content": "a", "status": "pending", "activeForm": ""}]})),
            format!(
                "{head}The parameter `todos[0].activeForm` is invalid: Active form cannot be empty{tail}"
            )
        );
        assert_eq!(
            error(json!({"todos": [{"content": "a", "status": "done", "activeForm": "x"}]})),
            format!(
                "{head}The parameter `todos[0].status` is invalid: Invalid enum value. Expected 'pending' | 'in_progress' | 'completed', received 'done'{tail}"
            )
        );
        assert_eq!(
            error(json!({"todos": [{"content": 5, "status": 1, "activeForm": "x"}, 7]})),
            format!(
                "{heads}The parameter `todos[0].content` type is expected as `string` but provided as `number`\nThe parameter `todos[0].status` type is expected as `'pending' | 'in_progress' | 'completed'` but provided as `number`\nThe parameter `todos[1]` type is expected as `object` but provided as `number`{tail}"
            )
        );
    }

    #[test]
    fn invalid_kinds() {
        let wanted = vec![PlanItem::new("1", "Read", PlanStatus::Pending)];
        assert!(
            ClaudeCode
                .write_invalid(&wanted, InvalidUpdate::TooMany)
                .is_none()
        );
        assert!(
            ClaudeCode
                .write_invalid(&wanted, InvalidUpdate::TwoInProgress)
                .is_none()
        );
        for w in [vec![], wanted] {
            for kind in [InvalidUpdate::EmptyText, InvalidUpdate::UnknownStatus] {
                let call = ClaudeCode
                    .write_invalid(&w, kind)
                    .unwrap_or_else(|| panic!("{kind:?}"));
                assert!(!apply(call.input).0.accepted, "{kind:?}");
            }
        }
    }
}
