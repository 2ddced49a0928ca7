//! `s03-guarded`: the s03 design hardened in Python (agents-demo). The tool
//! is still `todo`, but its list is `todos`, the limits are tighter (15
//! items), every value goes through Python's `str()`, a missing status is
//! an error, ids default to `todo_<i>`, every handler error is wrapped as
//! `Error in tool call: <msg>`, and the render is coloured with ANSI codes.

use serde_json::{Map, Value, json};

use super::{InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanStatus, completed_count};
use std::sync::LazyLock;

use super::error::{GuardedError, Refusal};
use super::whole_list::{Apply, WholeList};
use crate::llm::ToolSchema;
use crate::plan::pyrepr::{json_kind, python_str, python_strip, python_truthy};

const TOOL: &str = "todo";
/// The most items one list may hold.
pub const MAX_ITEMS: usize = 15;
const PREFIX: &str = "Error in tool call: ";

const RESET: &str = "\x1b[0m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const GREEN: &str = "\x1b[32m";

#[derive(Debug, Clone, Copy)]
pub struct S03Guarded;

fn colour(status: PlanStatus) -> &'static str {
    match status {
        PlanStatus::InProgress => CYAN,
        PlanStatus::Completed => GREEN,
        PlanStatus::Pending | PlanStatus::Failed | PlanStatus::Cancelled => YELLOW,
    }
}

/// Validates the whole input in the reference's order; the message is the
/// text after the `Error in tool call: ` wrapper.
fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    Ok(check(input)?)
}

/// The checks in the reference's order.
fn check(input: &Value) -> Result<Vec<PlanItem>, GuardedError> {
    let object = input.as_object().ok_or(GuardedError::NotAnObject {
        kind: json_kind(input),
    })?;
    let todos = object.get("todos").ok_or(GuardedError::NoTodos)?;
    let todos = todos.as_array().ok_or(GuardedError::TodosNotAList {
        kind: json_kind(todos),
    })?;
    if todos.len() > MAX_ITEMS {
        return Err(GuardedError::TooMany { max: MAX_ITEMS });
    }
    let mut plan = Vec::with_capacity(todos.len());
    let mut in_progress = 0usize;
    for (i, todo) in todos.iter().enumerate() {
        let fields: &Map<String, Value> =
            todo.as_object().ok_or(GuardedError::TodoNotAnObject {
                i,
                kind: json_kind(todo),
            })?;
        let id = match fields.get("id") {
            Some(id) => python_strip(&python_str(id)).to_string(),
            None => format!("todo_{i}"),
        };
        let text = fields.get("text").map(python_str).unwrap_or_default();
        let text = python_strip(&text).to_string();
        // `str(status or "")`: every falsy value is the empty word.
        let status_word = match fields.get("status") {
            Some(status) if python_truthy(status) => {
                python_strip(&python_str(status)).to_lowercase()
            }
            _ => String::new(),
        };
        if text.is_empty() {
            return Err(GuardedError::NoText { id });
        }
        let status =
            PlanStatus::from_three_words(&status_word).ok_or_else(|| GuardedError::BadStatus {
                id: id.clone(),
                word: status_word.clone(),
            })?;
        if status == PlanStatus::InProgress {
            in_progress += 1;
        }
        plan.push(PlanItem::new(id, text, status));
    }
    if in_progress > 1 {
        return Err(GuardedError::TwoInProgress);
    }
    Ok(plan)
}

fn item_json(item: &PlanItem) -> Value {
    let status = item.status.three_words();
    json!({"id": item.id, "text": item.text, "status": status})
}

/// The tool schemas offered to the model, from `s03_guarded.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("s03_guarded.json");

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "s03-guarded",
    tool: TOOL,
    key: "todos",
    schemas: &SCHEMAS,
    validate,
    item_json: |item, _| item_json(item),
    apply: Apply::Replace {
        accepted: |plan| S03Guarded.render(plan),
        refused: |message| format!("{PREFIX}{message}"),
    },
};

impl PlanDialect for S03Guarded {
    super::whole_list::forward_to_whole_list!(LIST);

    fn render(&self, plan: &[PlanItem]) -> String {
        if plan.is_empty() {
            return "No todos".into();
        }
        let mut lines: Vec<String> = plan
            .iter()
            .map(|item| {
                format!(
                    "{}{} - {}: {}{RESET}",
                    colour(item.status),
                    item.status.marker(),
                    item.id,
                    item.text
                )
            })
            .collect();
        let done = completed_count(plan);
        let counter_colour = if done == plan.len() {
            GREEN
        } else if done > 0 {
            CYAN
        } else {
            YELLOW
        };
        lines.push(format!(
            "{counter_colour}Done: {done}/{}{RESET}",
            plan.len()
        ));
        lines.join("\n")
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        if result == "No todos" {
            return Some(Vec::new());
        }
        // Every line ends with the reset code, so a text holding a line
        // break still reads back whole.
        let body = result.strip_suffix(RESET)?;
        let mut segments: Vec<&str> = body.split("\x1b[0m\n").collect();
        let counter = segments.pop()?;
        let (done, total) = [GREEN, CYAN, YELLOW]
            .iter()
            .find_map(|c| counter.strip_prefix(c))?
            .strip_prefix("Done: ")?
            .split_once('/')?;
        let (done, total): (usize, usize) = (done.parse().ok()?, total.parse().ok()?);
        let mut plan = Vec::with_capacity(segments.len());
        for segment in segments {
            let status = [
                PlanStatus::Pending,
                PlanStatus::InProgress,
                PlanStatus::Completed,
            ]
            .into_iter()
            .find(|s| segment.starts_with(&format!("{}{}", colour(*s), s.marker())))?;
            let rest = segment
                .get(colour(status).len() + 3..)?
                .strip_prefix(" - ")?;
            let (id, text) = rest.split_once(": ")?;
            plan.push(PlanItem::new(id, text, status));
        }
        (plan.len() == total && completed_count(&plan) == done).then_some(plan)
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    fn max_items(&self) -> Option<usize> {
        Some(MAX_ITEMS)
    }

    fn single_in_progress(&self) -> bool {
        true
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        let mut items: Vec<Value> = wanted.iter().map(item_json).collect();
        kind.break_list(&mut items, "text", Some(MAX_ITEMS), super::s03::added_item);
        Some(PlanCall::whole_list(TOOL, "todos", items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::PlanOutcome;
    use crate::plan::dialect::test_support::apply_to_kept;

    fn apply(input: Value) -> PlanOutcome {
        apply_to_kept(&S03Guarded, TOOL, &input)
    }

    fn rejected(input: Value) -> String {
        let outcome = apply(input);
        assert!(!outcome.accepted, "{}", outcome.content);
        assert!(S03Guarded.is_error(&outcome.content));
        outcome.content
    }

    #[test]
    fn render_is_coloured_exactly() {
        let outcome = apply(json!({"todos": [
            {"id": "1", "text": "Read", "status": "completed"},
            {"id": "2", "text": "Write", "status": "in_progress"},
            {"id": "3", "text": "Test", "status": "pending"},
        ]}));
        assert_eq!(
            outcome,
            PlanOutcome::accepted(
                "\x1b[32m[x] - 1: Read\x1b[0m\n\x1b[36m[>] - 2: Write\x1b[0m\n\x1b[33m[ ] - 3: Test\x1b[0m\n\x1b[36mDone: 1/3\x1b[0m"
            )
        );
        assert_eq!(
            S03Guarded.render(&[PlanItem::new("a", "x", PlanStatus::Pending)]),
            "\x1b[33m[ ] - a: x\x1b[0m\n\x1b[33mDone: 0/1\x1b[0m"
        );
        assert_eq!(
            S03Guarded.render(&[PlanItem::new("a", "x", PlanStatus::Completed)]),
            "\x1b[32m[x] - a: x\x1b[0m\n\x1b[32mDone: 1/1\x1b[0m"
        );
        assert_eq!(
            apply(json!({"todos": []})),
            PlanOutcome::accepted("No todos")
        );
    }

    #[test]
    fn render_reads_back() {
        let plan = vec![
            PlanItem::new("todo_0", "a: b", PlanStatus::Completed),
            PlanItem::new("x", "line\nbreak", PlanStatus::InProgress),
            PlanItem::new("3", "c", PlanStatus::Pending),
        ];
        assert_eq!(
            S03Guarded.plan_from_result(&S03Guarded.render(&plan)),
            Some(plan)
        );
        assert_eq!(S03Guarded.plan_from_result("No todos"), Some(vec![]));
        assert_eq!(
            S03Guarded.plan_from_result("[x] #1: a\n\n(1/1 completed)"),
            None
        );
    }

    #[test]
    fn values_go_through_python_str() {
        let outcome = apply(json!({"todos": [
            {"id": 7, "text": 1.0, "status": "  Completed "},
            {"text": true, "status": "pending"},
            {"id": null, "text": null, "status": "pending"},
            {"id": " s ", "text": [1, "a"], "status": "pending"},
        ]}));
        assert_eq!(
            outcome.content,
            "\x1b[32m[x] - 7: 1.0\x1b[0m\n\x1b[33m[ ] - todo_1: True\x1b[0m\n\x1b[33m[ ] - None: None\x1b[0m\n\x1b[33m[ ] - s: [1, 'a']\x1b[0m\n\x1b[36mDone: 1/4\x1b[0m"
        );
    }

    #[test]
    fn every_rejection_message() {
        let many: Vec<Value> = (0..16)
            .map(|i| json!({"text": format!("t{i}"), "status": "pending"}))
            .collect();
        assert_eq!(
            rejected(json!({"todos": many})),
            "Error in tool call: Max 15 todos allowed"
        );
        assert_eq!(
            rejected(json!({"todos": [{"id": "a", "text": "  ", "status": "pending"}]})),
            "Error in tool call: Todo a: text required"
        );
        assert_eq!(
            rejected(json!({"todos": [{"text": "", "status": "bad"}]})),
            "Error in tool call: Todo todo_0: text required"
        );
        // A missing status is the empty word, and so is every falsy value.
        for status in [
            json!(null),
            json!(false),
            json!(0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert_eq!(
                rejected(json!({"todos": [{"id": "1", "text": "x", "status": status}]})),
                "Error in tool call: Todo 1: invalid status ''"
            );
        }
        assert_eq!(
            rejected(json!({"todos": [{"id": "1", "text": "x"}]})),
            "Error in tool call: Todo 1: invalid status ''"
        );
        assert_eq!(
            rejected(json!({"todos": [{"id": "1", "text": "x", "status": true}]})),
            "Error in tool call: Todo 1: invalid status 'true'"
        );
        assert_eq!(
            rejected(json!({"todos": [{"id": "1", "text": "x", "status": "Done"}]})),
            "Error in tool call: Todo 1: invalid status 'done'"
        );
        assert_eq!(
            rejected(json!({"todos": [
                {"text": "x", "status": "in_progress"},
                {"text": "y", "status": "in_progress"},
            ]})),
            "Error in tool call: Max 1 in_progress todo allowed"
        );
        assert_eq!(
            rejected(json!("todos")),
            "Error in tool call: todo input must be an object with a todos list, got a string"
        );
        assert_eq!(
            rejected(json!({"items": []})),
            "Error in tool call: todos is required: a list of {id, text, status} objects"
        );
        assert_eq!(
            rejected(json!({"todos": {"a": 1}})),
            "Error in tool call: todos must be a list of todo objects, got an object"
        );
        assert_eq!(
            rejected(json!({"todos": [3]})),
            "Error in tool call: Todo 0: must be an object with id, text and status, got a number"
        );
    }

    #[test]
    fn invalid_kinds_are_rejected() {
        for wanted in [
            vec![],
            vec![PlanItem::new("1", "Read", PlanStatus::Completed)],
        ] {
            for kind in [
                InvalidUpdate::TwoInProgress,
                InvalidUpdate::EmptyText,
                InvalidUpdate::UnknownStatus,
                InvalidUpdate::TooMany,
            ] {
                let call = S03Guarded.write_invalid(&wanted, kind);
                let call = call.unwrap_or_else(|| panic!("{kind:?}"));
                assert!(!apply(call.input).accepted, "{kind:?}");
            }
        }
    }
}
