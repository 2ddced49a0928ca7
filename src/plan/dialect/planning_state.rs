//! `planning-state`: a session plan kept as state. One `todo` tool whose
//! input is the whole plan (`{items: [{content, status, activeForm?}]}`);
//! items have no ids (their position is the id), at most 12 are allowed,
//! and the in-progress item shows its `activeForm` in the render.

use serde_json::{Value, json};

use super::{
    AddedItem, InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanStatus, active_form_for,
    completed_count, numbered,
};
use std::sync::LazyLock;

use super::error::{PlanningStateError, Refusal};
use super::whole_list::{Apply, WholeList};
use crate::llm::ToolSchema;
use crate::plan::pyrepr::{json_kind, python_str, python_strip};

const TOOL: &str = "todo";
/// The most items one plan may hold.
pub const MAX_ITEMS: usize = 12;
const PREFIX: &str = "Error: ";
const EMPTY: &str = "No session plan yet.";

#[derive(Debug, Clone, Copy)]
pub struct PlanningState;

fn parse_marker(marker: &str) -> Option<PlanStatus> {
    match marker {
        "[ ]" => Some(PlanStatus::Pending),
        "[>]" => Some(PlanStatus::InProgress),
        "[x]" => Some(PlanStatus::Completed),
        _ => None,
    }
}

/// Validates the whole input; the message is the text after `Error: `.
fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    Ok(check(input)?)
}

/// The checks in the reference's order.
fn check(input: &Value) -> Result<Vec<PlanItem>, PlanningStateError> {
    let object = input.as_object().ok_or(PlanningStateError::NotAnObject {
        kind: json_kind(input),
    })?;
    let items = object.get("items").ok_or(PlanningStateError::NoItems)?;
    let items = items
        .as_array()
        .ok_or(PlanningStateError::ItemsNotAnArray {
            kind: json_kind(items),
        })?;
    if items.len() > MAX_ITEMS {
        return Err(PlanningStateError::TooMany { max: MAX_ITEMS });
    }
    let mut plan = Vec::with_capacity(items.len());
    let mut in_progress = 0usize;
    for (i, item) in items.iter().enumerate() {
        let fields = item
            .as_object()
            .ok_or(PlanningStateError::ItemNotAnObject {
                i,
                kind: json_kind(item),
            })?;
        let content = fields.get("content").map(python_str).unwrap_or_default();
        let content = python_strip(&content).to_string();
        if content.is_empty() {
            return Err(PlanningStateError::NoContent { i });
        }
        let word = fields
            .get("status")
            .map(python_str)
            .unwrap_or_else(|| "pending".into())
            .to_lowercase();
        let status =
            PlanStatus::from_three_words(&word).ok_or_else(|| PlanningStateError::BadStatus {
                i,
                word: word.clone(),
            })?;
        if status == PlanStatus::InProgress {
            in_progress += 1;
        }
        let active_form = match fields.get("activeForm") {
            None | Some(Value::Null) => None,
            Some(value) => {
                Some(python_strip(&python_str(value)).to_string()).filter(|s| !s.is_empty())
            }
        };
        plan.push((content, status, active_form));
    }
    if in_progress > 1 {
        return Err(PlanningStateError::TwoInProgress);
    }
    Ok(numbered(plan))
}

/// Splits `text (form)` where `(form)` is a balanced parenthesised group at
/// the very end, preceded by a space.
fn split_active_form(line: &str) -> Option<(&str, &str)> {
    let inner = line.strip_suffix(')')?;
    let mut depth = 1usize;
    for (at, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    let text = inner[..at].strip_suffix(' ')?;
                    let form = &inner[at + 1..];
                    return (!text.is_empty() && !form.is_empty()).then_some((text, form));
                }
            }
            _ => {}
        }
    }
    None
}

fn item_json(item: &PlanItem) -> Value {
    let status = item.status.three_words();
    let form = item
        .active_form
        .clone()
        .unwrap_or_else(|| active_form_for(&item.text));
    json!({"content": item.text, "status": status, "activeForm": form})
}

/// The tool schemas offered to the model, from `planning_state.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("planning_state.json");

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "planning-state",
    tool: TOOL,
    key: "items",
    schemas: &SCHEMAS,
    validate,
    item_json: |item, _| item_json(item),
    apply: Apply::Replace {
        accepted: |plan| PlanningState.render(plan),
        refused: |message| format!("{PREFIX}{message}"),
    },
};

impl PlanDialect for PlanningState {
    // `write_update` sends the whole plan; every item carries an
    // `activeForm` (its own, or `Working on: <text>`), so the in-progress
    // line always reads back whole even when its text ends in parentheses.
    super::whole_list::forward_to_whole_list!(LIST);

    fn render(&self, plan: &[PlanItem]) -> String {
        if plan.is_empty() {
            return EMPTY.into();
        }
        let mut out = String::new();
        for item in plan {
            out.push_str(item.status.marker());
            out.push(' ');
            out.push_str(&item.text);
            if item.status == PlanStatus::InProgress
                && let Some(form) = item.active_form.as_deref().filter(|f| !f.is_empty())
            {
                out.push_str(" (");
                out.push_str(form);
                out.push(')');
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "\n({}/{} completed)",
            completed_count(plan),
            plan.len()
        ));
        out
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        if result == EMPTY {
            return Some(Vec::new());
        }
        let (body, counter) = result.rsplit_once("\n\n")?;
        let (done, total) = counter
            .strip_prefix('(')?
            .strip_suffix(" completed)")?
            .split_once('/')?;
        let (done, total): (usize, usize) = (done.parse().ok()?, total.parse().ok()?);
        let mut items = Vec::new();
        for line in body.split('\n') {
            let status = parse_marker(line.get(..3)?)?;
            let rest = line.get(3..)?.strip_prefix(' ')?;
            let (text, form) = match (status, split_active_form(rest)) {
                (PlanStatus::InProgress, Some((text, form))) => (text, Some(form.to_string())),
                _ => (rest, None),
            };
            items.push((text.to_string(), status, form));
        }
        let plan = numbered(items);
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
        let sub_task =
            |k: usize, status: &str| json!({"content": format!("Sub-task {k}"), "status": status});
        kind.break_list(
            &mut items,
            "content",
            Some(MAX_ITEMS),
            |added| match added {
                AddedItem::SecondInProgress { position }
                | AddedItem::OverLimit { position, .. } => sub_task(position, "pending"),
                AddedItem::EmptyText => json!({"content": "", "status": "pending"}),
                AddedItem::UnknownStatus => sub_task(1, "done"),
            },
        );
        Some(PlanCall::whole_list(TOOL, "items", items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::PlanOutcome;
    use crate::plan::dialect::test_support::apply_to_kept;

    fn apply(input: Value) -> PlanOutcome {
        apply_to_kept(&PlanningState, TOOL, &input)
    }

    #[test]
    fn render_exactly() {
        let outcome = apply(json!({"items": [
            {"content": " Read ", "status": "COMPLETED", "activeForm": "Reading"},
            {"content": "Write", "status": "in_progress", "activeForm": "Writing"},
            {"content": "Test"},
        ]}));
        assert_eq!(
            outcome,
            PlanOutcome::accepted("[x] Read\n[>] Write (Writing)\n[ ] Test\n\n(1/3 completed)")
        );
        let no_form = apply(
            json!({"items": [{"content": "Write", "status": "in_progress", "activeForm": "  "}]}),
        );
        assert_eq!(no_form.content, "[>] Write\n\n(0/1 completed)");
        assert_eq!(apply(json!({"items": []})).content, "No session plan yet.");
    }

    #[test]
    fn render_reads_back() {
        let mut plan = vec![
            PlanItem::new("1", "Fix f(x)", PlanStatus::Completed),
            PlanItem::new("2", "Add tests (unit)", PlanStatus::InProgress),
            PlanItem::new("3", "c", PlanStatus::Pending),
        ];
        plan[1].active_form = Some("Adding (unit) tests".into());
        assert_eq!(
            PlanningState.plan_from_result(&PlanningState.render(&plan)),
            Some(plan)
        );
        let simple = vec![PlanItem::new("1", "Fix f(x)", PlanStatus::InProgress)];
        assert_eq!(
            PlanningState.plan_from_result(&PlanningState.render(&simple)),
            Some(simple)
        );
        assert_eq!(
            PlanningState.plan_from_result("No session plan yet."),
            Some(vec![])
        );
        assert_eq!(
            PlanningState
                .plan_from_result("[x] #1: a\n\n(1/1 completed)")
                .map(|p| p[0].text.clone()),
            Some("#1: a".into())
        );
        assert_eq!(PlanningState.plan_from_result("Wrote 3 bytes"), None);
    }

    #[test]
    fn every_rejection_message() {
        let many: Vec<Value> = (0..13)
            .map(|i| json!({"content": format!("t{i}")}))
            .collect();
        assert_eq!(
            apply(json!({"items": many})).content,
            "Error: Max 12 plan items allowed"
        );
        assert_eq!(
            apply(json!({"items": [{"content": "a"}, {"content": " ", "status": "bad"}]})).content,
            "Error: Item 1: content required"
        );
        assert_eq!(
            apply(json!({"items": [{"status": "pending"}]})).content,
            "Error: Item 0: content required"
        );
        assert_eq!(
            apply(json!({"items": [{"content": "a", "status": "Done"}]})).content,
            "Error: Item 0: invalid status 'done'"
        );
        assert_eq!(
            apply(json!({"items": [{"content": "a", "status": null}]})).content,
            "Error: Item 0: invalid status 'none'"
        );
        assert_eq!(
            apply(json!({"items": [
                {"content": "a", "status": "in_progress"},
                {"content": "b", "status": "in_progress"},
            ]}))
            .content,
            "Error: Only one plan item can be in_progress"
        );
        assert_eq!(
            apply(json!(null)).content,
            "Error: todo input must be an object with an items array, got null"
        );
        assert_eq!(
            apply(json!({"todos": []})).content,
            "Error: items is required: an array of {content, status, activeForm} objects"
        );
        assert_eq!(
            apply(json!({"items": "a"})).content,
            "Error: items must be an array of plan items, got a string"
        );
        assert_eq!(
            apply(json!({"items": [[]]})).content,
            "Error: Item 0: must be an object with content and status, got an array"
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
                let call = PlanningState
                    .write_invalid(&wanted, kind)
                    .unwrap_or_else(|| panic!("{kind:?}"));
                assert!(!apply(call.input).accepted, "{kind:?}");
            }
        }
    }
}
