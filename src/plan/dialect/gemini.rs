//! `gemini`: Gemini CLI's `write_todos` (probed on 0.61.0: the texts in
//! `tests/data/agents/probe/gemini.json`). The whole list is sent every
//! time (`{todos: [{description, status}]}`), statuses are pending,
//! in_progress, completed, cancelled and blocked, at most one item may be
//! in progress, and the result lists the plan back (`Successfully updated
//! the todo list. The current list is now:\n1. [pending] ...`).
//!
//! Validation follows the binary: a non-object input is `Value of params
//! must be an object`; then its JSON schema (in Ajv's order and wording,
//! no prefix: `params/todos/0 must have required property 'status'`); then
//! a blank description (`Each todo must have a non-empty description
//! string`); then more than one item in progress, the one error worded
//! `Invalid parameters: Only one task can be "in_progress" at a time.`.
//! `blocked` has no neutral status of its own: it is kept as
//! [`PlanStatus::Failed`] (stuck, not done), which this dialect words
//! `blocked` (Gemini has no `failed`).

use serde_json::{Value, json};

use super::{
    AddedItem, InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanStatus, js_blank, numbered,
};
use std::sync::LazyLock;

use super::error::{GeminiError, Refusal};
use super::whole_list::{Apply, WholeList};
use crate::llm::ToolSchema;

const TOOL: &str = "write_todos";
const PREFIX: &str = "Invalid parameters: ";
/// How every error the binary gave begins (schema errors have no prefix).
const ERROR_OPENINGS: [&str; 4] = [PREFIX, "params", "Value of params", "Each todo must"];
const UPDATED: &str = "Successfully updated the todo list. The current list is now:\n";
const CLEARED: &str = "Successfully cleared the todo list.";

#[derive(Debug, Clone, Copy)]
pub struct Gemini;

fn parse_status(word: &str) -> Option<PlanStatus> {
    match word {
        "pending" => Some(PlanStatus::Pending),
        "in_progress" => Some(PlanStatus::InProgress),
        "completed" => Some(PlanStatus::Completed),
        "cancelled" => Some(PlanStatus::Cancelled),
        "blocked" => Some(PlanStatus::Failed),
        _ => None,
    }
}

fn word(status: PlanStatus) -> &'static str {
    match status {
        PlanStatus::Pending => "pending",
        PlanStatus::InProgress => "in_progress",
        PlanStatus::Completed => "completed",
        PlanStatus::Cancelled => "cancelled",
        PlanStatus::Failed => "blocked",
    }
}

/// The schema check, stopping at the first error as Ajv does by default.
fn check_schema(input: &Value) -> Result<Vec<(String, PlanStatus)>, GeminiError> {
    let object = input.as_object().ok_or(GeminiError::NotAnObject)?;
    let todos = object.get("todos").ok_or(GeminiError::NoTodos)?;
    if object.keys().any(|k| k != "todos") {
        return Err(GeminiError::ExtraParam);
    }
    let todos = match todos {
        Value::Array(todos) => todos,
        _ => return Err(GeminiError::TodosNotAnArray),
    };
    let mut items = Vec::with_capacity(todos.len());
    for (i, todo) in todos.iter().enumerate() {
        let at = format!("params/todos/{i}");
        let Some(fields) = todo.as_object() else {
            return Err(GeminiError::TodoNotAnObject { at });
        };
        for key in ["description", "status"] {
            if !fields.contains_key(key) {
                return Err(GeminiError::MissingKey { at, key });
            }
        }
        if fields.keys().any(|k| k != "description" && k != "status") {
            return Err(GeminiError::ExtraKey { at });
        }
        let description = match fields.get("description") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(GeminiError::DescriptionNotAString { at }),
        };
        let status = match fields.get("status") {
            Some(Value::String(s)) => match parse_status(s) {
                Some(status) => status,
                None => return Err(GeminiError::UnknownStatus { at }),
            },
            _ => return Err(GeminiError::StatusNotAString { at }),
        };
        items.push((description, status));
    }
    Ok(items)
}

fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    Ok(check(input)?)
}

/// The schema, then the tool's own checks.
fn check(input: &Value) -> Result<Vec<PlanItem>, GeminiError> {
    let items = check_schema(input)?;
    if items.iter().any(|(d, _)| js_blank(d)) {
        return Err(GeminiError::BlankDescription);
    }
    if items
        .iter()
        .filter(|(_, s)| *s == PlanStatus::InProgress)
        .count()
        > 1
    {
        return Err(GeminiError::TwoInProgress);
    }
    Ok(numbered(items.into_iter().map(|(d, s)| (d, s, None))))
}

fn item_json(item: &PlanItem) -> Value {
    json!({"description": item.text, "status": word(item.status)})
}

/// The tool schemas offered to the model, from `gemini.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("gemini.json");

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "gemini",
    tool: TOOL,
    key: "todos",
    schemas: &SCHEMAS,
    validate,
    item_json: |item, _| item_json(item),
    apply: Apply::Replace {
        accepted: |plan| Gemini.render(plan),
        refused: |message| message,
    },
};

impl PlanDialect for Gemini {
    super::whole_list::forward_to_whole_list!(LIST);

    fn render(&self, plan: &[PlanItem]) -> String {
        if plan.is_empty() {
            return CLEARED.into();
        }
        let lines: Vec<String> = plan
            .iter()
            .enumerate()
            .map(|(k, item)| format!("{}. [{}] {}", k + 1, word(item.status), item.text))
            .collect();
        format!("{UPDATED}{}", lines.join("\n"))
    }

    /// A line that does not start the next item continues the previous
    /// item's description (descriptions may hold line breaks).
    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        if result == CLEARED {
            return Some(Vec::new());
        }
        let body = result.strip_prefix(UPDATED)?;
        let mut items: Vec<(String, PlanStatus, Option<String>)> = Vec::new();
        for line in body.split('\n') {
            let next = items.len() + 1;
            let item = line
                .strip_prefix(&format!("{next}. ["))
                .and_then(|rest| rest.split_once("] "))
                .and_then(|(status, text)| Some((text.to_string(), parse_status(status)?, None)));
            match (item, items.last_mut()) {
                (Some(item), _) => items.push(item),
                (None, Some(last)) => {
                    last.0.push('\n');
                    last.0.push_str(line);
                }
                (None, None) => return None,
            }
        }
        Some(numbered(items))
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    fn status_word(&self, status: PlanStatus) -> &'static str {
        word(status)
    }

    fn is_error(&self, result: &str) -> bool {
        ERROR_OPENINGS.iter().any(|o| result.starts_with(o))
    }

    fn statuses(&self) -> &'static [PlanStatus] {
        &[
            PlanStatus::Pending,
            PlanStatus::InProgress,
            PlanStatus::Completed,
            PlanStatus::Cancelled,
            PlanStatus::Failed,
        ]
    }

    fn single_in_progress(&self) -> bool {
        true
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        let mut items: Vec<Value> = wanted.iter().map(item_json).collect();
        // No count limit: `TooMany` breaks nothing.
        let broken = kind.break_list(&mut items, "description", None, |added| match added {
            AddedItem::EmptyText => json!({"description": "", "status": "pending"}),
            AddedItem::UnknownStatus => json!({"description": "Start", "status": "done"}),
            AddedItem::SecondInProgress { position } | AddedItem::OverLimit { position, .. } => {
                json!({"description": format!("Sub-task {position}"), "status": "pending"})
            }
        });
        if !broken {
            return None;
        }
        Some(PlanCall::whole_list(TOOL, "todos", items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::PlanOutcome;
    use crate::plan::dialect::test_support::apply_to_kept;

    fn apply(input: Value) -> PlanOutcome {
        apply_to_kept(&Gemini, TOOL, &input)
    }

    #[test]
    fn the_result_lists_the_plan() {
        let outcome = apply(json!({"todos": [
            {"description": "Read", "status": "completed"},
            {"description": "Write", "status": "in_progress"},
            {"description": "Drop", "status": "cancelled"},
            {"description": " Test ", "status": "pending"},
            {"description": "Wait", "status": "blocked"},
        ]}));
        assert_eq!(
            outcome,
            PlanOutcome::accepted(
                "Successfully updated the todo list. The current list is now:\n1. [completed] Read\n2. [in_progress] Write\n3. [cancelled] Drop\n4. [pending]  Test \n5. [blocked] Wait"
            )
        );
        let plan = Gemini
            .plan_from_result(&outcome.content)
            .unwrap_or_default();
        assert_eq!(plan.len(), 5);
        assert_eq!(plan[3].text, " Test ");
        assert_eq!(plan[4].status, PlanStatus::Failed);
        assert_eq!(Gemini.render(&plan), outcome.content);
        assert_eq!(
            apply(json!({"todos": []})),
            PlanOutcome::accepted("Successfully cleared the todo list.")
        );
        assert_eq!(
            Gemini.plan_from_result("Successfully cleared the todo list."),
            Some(vec![])
        );
        let multi = vec![PlanItem::new("1", "a\n2. [pending] b", PlanStatus::Pending)];
        assert_eq!(
            Gemini
                .plan_from_result(&Gemini.render(&multi))
                .map(|p| p.len()),
            Some(2)
        );
        let multi = vec![PlanItem::new("1", "a\nb", PlanStatus::Pending)];
        assert_eq!(Gemini.plan_from_result(&Gemini.render(&multi)), Some(multi));
    }

    #[test]
    fn every_rejection_message() {
        let cases = [
            (
                json!({"todos": [
                    {"description": "a", "status": "in_progress"},
                    {"description": "b", "status": "in_progress"},
                ]}),
                "Only one task can be \"in_progress\" at a time.",
            ),
            (
                json!({"todos": [{"description": "  ", "status": "pending"}]}),
                "Each todo must have a non-empty description string",
            ),
            (
                json!({"todos": [{"description": "\u{feff}\u{2028}", "status": "pending"}]}),
                "Each todo must have a non-empty description string",
            ),
            (json!("x"), "Value of params must be an object"),
            (json!({}), "params must have required property 'todos'"),
            (
                json!({"todos": [], "x": 1}),
                "params must NOT have additional properties",
            ),
            (json!({"todos": {}}), "params/todos must be array"),
            (json!({"todos": [1]}), "params/todos/0 must be object"),
            (
                json!({"todos": [{"status": "pending"}]}),
                "params/todos/0 must have required property 'description'",
            ),
            (
                json!({"todos": [{"description": "a"}]}),
                "params/todos/0 must have required property 'status'",
            ),
            (
                json!({"todos": [{"description": "a", "status": "pending", "id": 1}]}),
                "params/todos/0 must NOT have additional properties",
            ),
            (
                json!({"todos": [{"description": 1, "status": "pending"}]}),
                "params/todos/0/description must be string",
            ),
            (
                json!({"todos": [{"description": "a", "status": null}]}),
                "params/todos/0/status must be string",
            ),
            (
                json!({"todos": [{"description": "a", "status": "done"}]}),
                "params/todos/0/status must be equal to one of the allowed values",
            ),
        ];
        for (input, message) in cases {
            let expected = if message.starts_with("Only one") {
                format!("Invalid parameters: {message}")
            } else {
                message.to_string()
            };
            assert_eq!(
                apply(input.clone()),
                PlanOutcome::rejected(expected),
                "{input}"
            );
            assert!(Gemini.is_error(message) || message.starts_with("Only one"));
        }
    }

    #[test]
    fn invalid_kinds() {
        let wanted = vec![PlanItem::new("1", "Read", PlanStatus::Pending)];
        assert!(
            Gemini
                .write_invalid(&wanted, InvalidUpdate::TooMany)
                .is_none()
        );
        for w in [vec![], wanted] {
            for kind in [
                InvalidUpdate::TwoInProgress,
                InvalidUpdate::EmptyText,
                InvalidUpdate::UnknownStatus,
            ] {
                let call = Gemini
                    .write_invalid(&w, kind)
                    .unwrap_or_else(|| panic!("{kind:?}"));
                assert!(!apply(call.input).accepted, "{kind:?}");
            }
        }
    }
}
