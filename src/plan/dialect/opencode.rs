//! `opencode`: OpenCode's `todowrite` (probed on 1.18.33: the texts in
//! `tests/data/agents/probe/opencode.json`). The whole list is sent every
//! time (`{todos: [{content, status, priority}]}`), every field a string;
//! nothing else is checked — an empty content, an unknown status or
//! priority, any number in progress are all taken as written.
//!
//! The result is the list itself as JSON (two-space indent, each item's
//! fields in the order `content`, `status`, `priority`, fields it does not
//! know dropped), so the plan does flow back to the model. An error is its
//! schema library's first complaint: `The todowrite tool was called with
//! invalid arguments: SchemaError(Missing key\n  at ["todos"][0]["status"]).
//! \nPlease rewrite the input so it satisfies the expected schema.`
//!
//! Statuses: pending, in_progress, completed and cancelled are read as
//! such; any other word OpenCode keeps is read as pending here (a plan
//! item has no free-form status). The priority is not part of a plan
//! item: the result echoes it as sent, and the simulated model writes
//! `medium`.

use serde_json::{Map, Value, json};
use std::sync::LazyLock;

use super::error::{OpenCodeError, Refusal};
use super::whole_list::{Apply, WholeList};
use super::{InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome, PlanStatus, numbered};
use crate::llm::ToolSchema;

const TOOL: &str = "todowrite";
const PREFIX: &str = OpenCodeError::PREFIX;
const FIELDS: [&str; 3] = ["content", "status", "priority"];
/// The priority the simulated model writes.
const PRIORITY: &str = "medium";

#[derive(Debug, Clone, Copy)]
pub struct OpenCode;

fn parse_status(word: &str) -> PlanStatus {
    match word {
        "in_progress" => PlanStatus::InProgress,
        "completed" => PlanStatus::Completed,
        "cancelled" => PlanStatus::Cancelled,
        _ => PlanStatus::Pending,
    }
}

fn word(status: PlanStatus) -> &'static str {
    match status {
        PlanStatus::InProgress => "in_progress",
        PlanStatus::Completed => "completed",
        PlanStatus::Cancelled | PlanStatus::Failed => "cancelled",
        PlanStatus::Pending => "pending",
    }
}

/// The complaint about `got` at `at` (`["todos"][0]`; empty at the top).
fn expected(what: &'static str, got: &Value, at: &str) -> OpenCodeError {
    OpenCodeError::Expected {
        what,
        got: got.to_string(),
        at: at.into(),
    }
}

fn missing(at: &str) -> OpenCodeError {
    OpenCodeError::MissingKey { at: at.into() }
}

/// The list as OpenCode keeps it (known fields only, in schema order).
fn decode(input: &Value) -> Result<Vec<Map<String, Value>>, OpenCodeError> {
    let object = input
        .as_object()
        .ok_or_else(|| expected("object", input, ""))?;
    let at = "[\"todos\"]";
    let todos = match object.get("todos") {
        None => return Err(missing(at)),
        Some(Value::Array(todos)) => todos,
        Some(other) => return Err(expected("array", other, at)),
    };
    let mut kept = Vec::with_capacity(todos.len());
    for (i, todo) in todos.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let fields = todo
            .as_object()
            .ok_or_else(|| expected("Todo", todo, &at))?;
        let mut item = Map::new();
        for field in FIELDS {
            let at = format!("{at}[\"{field}\"]");
            match fields.get(field) {
                None => return Err(missing(&at)),
                Some(Value::String(s)) => item.insert(field.into(), Value::from(s.as_str())),
                Some(other) => return Err(expected("string", other, &at)),
            };
        }
        kept.push(item);
    }
    Ok(kept)
}

fn items_of(kept: &[Map<String, Value>]) -> Vec<PlanItem> {
    let text = |m: &Map<String, Value>, k: &str| {
        m.get(k).and_then(Value::as_str).unwrap_or("").to_string()
    };
    numbered(
        kept.iter()
            .map(|m| (text(m, "content"), parse_status(&text(m, "status")), None)),
    )
}

fn echo(kept: Vec<Map<String, Value>>) -> String {
    let list = Value::Array(kept.into_iter().map(Value::Object).collect());
    serde_json::to_string_pretty(&list).unwrap_or_else(|_| "[]".into())
}

fn item_json(item: &PlanItem) -> Value {
    json!({"content": item.text, "status": word(item.status), "priority": PRIORITY})
}

/// The tool schemas offered to the model, from `opencode.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("opencode.json");

/// The plan a call sets, or OpenCode's complaint.
fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    Ok(decode(input).map(|kept| items_of(&kept))?)
}

/// An accepted list is answered with the fields OpenCode keeps, the
/// priorities as sent (a plan item keeps none).
fn apply(plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
    match decode(input) {
        Ok(kept) => {
            *plan = items_of(&kept);
            PlanOutcome::accepted(echo(kept))
        }
        Err(refusal) => PlanOutcome::rejected(refusal.to_string()),
    }
}

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "opencode",
    tool: TOOL,
    key: "todos",
    schemas: &SCHEMAS,
    validate,
    item_json: |item, _| item_json(item),
    apply: Apply::Own(apply),
};

impl PlanDialect for OpenCode {
    super::whole_list::forward_to_whole_list!(LIST);

    /// The list as the tool shows it, each priority `medium` (a plan item
    /// keeps none).
    fn render(&self, plan: &[PlanItem]) -> String {
        let list = Value::Array(plan.iter().map(item_json).collect());
        serde_json::to_string_pretty(&list).unwrap_or_else(|_| "[]".into())
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        if !result.starts_with('[') {
            return None;
        }
        let list: Value = serde_json::from_str(result).ok()?;
        decode(&json!({"todos": list}))
            .ok()
            .map(|kept| items_of(&kept))
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    /// OpenCode takes every list whose fields are strings: no update the
    /// simulated model breaks on purpose is refused.
    fn write_invalid(&self, _wanted: &[PlanItem], _kind: InvalidUpdate) -> Option<PlanCall> {
        None
    }

    fn statuses(&self) -> &'static [PlanStatus] {
        &[
            PlanStatus::Pending,
            PlanStatus::InProgress,
            PlanStatus::Completed,
            PlanStatus::Cancelled,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::test_support::apply_to_kept;

    fn apply(input: Value) -> PlanOutcome {
        apply_to_kept(&OpenCode, TOOL, &input)
    }

    #[test]
    fn the_result_is_the_list_as_kept() {
        let outcome = apply(json!({"todos": [
            {"priority": "high", "status": "done", "content": "", "id": "x"},
        ], "x": 1}));
        assert_eq!(
            outcome,
            PlanOutcome::accepted(
                "[\n  {\n    \"content\": \"\",\n    \"status\": \"done\",\n    \"priority\": \"high\"\n  }\n]"
            )
        );
        assert_eq!(
            OpenCode.plan_from_result(&outcome.content),
            Some(vec![PlanItem::new("1", "", PlanStatus::Pending)])
        );
        assert_eq!(apply(json!({"todos": []})), PlanOutcome::accepted("[]"));
        let plan = vec![PlanItem::new("1", "A", PlanStatus::InProgress)];
        assert_eq!(
            OpenCode.plan_from_result(&OpenCode.render(&plan)),
            Some(plan)
        );
    }

    #[test]
    fn every_rejection_message() {
        let cases = [
            (json!("x"), "Expected object, got \"x\""),
            (json!({}), "Missing key\n  at [\"todos\"]"),
            (
                json!({"todos": {}}),
                "Expected array, got {}\n  at [\"todos\"]",
            ),
            (
                json!({"todos": [1]}),
                "Expected Todo, got 1\n  at [\"todos\"][0]",
            ),
            (
                json!({"todos": [{}]}),
                "Missing key\n  at [\"todos\"][0][\"content\"]",
            ),
            (
                json!({"todos": [{"content": {"a": 1}, "status": "pending", "priority": "high"}]}),
                "Expected string, got {\"a\":1}\n  at [\"todos\"][0][\"content\"]",
            ),
            (
                json!({"todos": [{"content": "a", "status": null, "priority": "high"}]}),
                "Expected string, got null\n  at [\"todos\"][0][\"status\"]",
            ),
            (
                json!({"todos": [{"content": "a", "status": "pending"}]}),
                "Missing key\n  at [\"todos\"][0][\"priority\"]",
            ),
        ];
        for (input, message) in cases {
            assert_eq!(
                apply(input.clone()),
                PlanOutcome::rejected(format!("{PREFIX}{message}{}", OpenCodeError::SUFFIX)),
                "{input}"
            );
        }
        for kind in [InvalidUpdate::EmptyText, InvalidUpdate::UnknownStatus] {
            assert!(OpenCode.write_invalid(&[], kind).is_none());
        }
    }
}
