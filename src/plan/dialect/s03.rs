//! `s03`: the reference design. One `todo` tool whose input is the whole
//! list (`{items: [{id, text, status}]}`), validated by the
//! [`crate::plan::todo`] rules and rendered back on success.

use serde_json::{Value, json};

use super::{AddedItem, InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome, PlanStatus};
use std::sync::LazyLock;

use super::error::Refusal;
use super::whole_list::{Apply, WholeList};
use crate::llm::ToolSchema;
use crate::plan::todo::{self, TodoItem, TodoManager, TodoStatus, UnknownStatus};

/// The tool's name.
pub(super) const TOOL: &str = "todo";
/// What the reference's loop puts before a handler's error (java-port's too).
pub(super) const PREFIX: &str = "Error: ";

#[derive(Debug, Clone, Copy)]
pub struct S03;

pub(super) fn to_plan(items: Vec<TodoItem>) -> Vec<PlanItem> {
    items
        .into_iter()
        .map(|item| {
            PlanItem::new(
                item.id,
                item.text,
                match item.status {
                    TodoStatus::Pending => PlanStatus::Pending,
                    TodoStatus::InProgress => PlanStatus::InProgress,
                    TodoStatus::Completed => PlanStatus::Completed,
                },
            )
        })
        .collect()
}

pub(super) fn to_todo(items: &[PlanItem]) -> Vec<TodoItem> {
    items
        .iter()
        .map(|item| TodoItem {
            id: item.id.clone(),
            text: item.text.clone(),
            status: match item.status {
                PlanStatus::InProgress => TodoStatus::InProgress,
                PlanStatus::Completed => TodoStatus::Completed,
                PlanStatus::Pending | PlanStatus::Failed | PlanStatus::Cancelled => {
                    TodoStatus::Pending
                }
            },
        })
        .collect()
}

pub(super) fn item_json(item: &PlanItem) -> Value {
    let status = item.status.three_words();
    json!({"id": item.id, "text": item.text, "status": status})
}

/// The tool schemas offered to the model, from `s03.json` beside this file
/// (java-port offers them too).
pub(super) static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("s03.json");

/// The reference's validation: `todo`'s whole input, read without
/// touching any state.
fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    todo::parse_input(input, UnknownStatus::Reject)
        .map(to_plan)
        .map_err(Refusal::from)
}

/// A call as the reference's loop applies it: `TodoManager` validates it
/// and answers its render; its error comes back behind `Error: `.
fn apply(plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
    let mut manager = TodoManager::new();
    match manager.handle_input(input) {
        Ok(render) => {
            *plan = to_plan(manager.into_items());
            PlanOutcome::accepted(render)
        }
        Err(e) => PlanOutcome::rejected(format!("{PREFIX}{e}")),
    }
}

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "s03",
    tool: TOOL,
    key: "items",
    schemas: &SCHEMAS,
    validate,
    item_json: |item, _| item_json(item),
    apply: Apply::Own(apply),
};

impl PlanDialect for S03 {
    super::whole_list::forward_to_whole_list!(LIST);

    fn render(&self, plan: &[PlanItem]) -> String {
        todo::render_items(&to_todo(plan))
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        todo::parse_render(result).map(to_plan)
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    fn max_items(&self) -> Option<usize> {
        Some(todo::MAX_TODOS)
    }

    fn single_in_progress(&self) -> bool {
        true
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        Some(invalid_call(wanted, kind))
    }
}

/// An s03-shaped `todo` call that breaks one rule (also used by java-port,
/// which shares every rule but the status one).
pub(super) fn invalid_call(wanted: &[PlanItem], kind: InvalidUpdate) -> PlanCall {
    let mut items: Vec<Value> = wanted.iter().map(item_json).collect();
    kind.break_list(&mut items, "text", Some(todo::MAX_TODOS), added_item);
    PlanCall::whole_list(TOOL, "items", items)
}

/// An item a broken s03-shaped list adds (also s03-guarded's).
pub(super) fn added_item(added: AddedItem) -> Value {
    match added {
        AddedItem::SecondInProgress { position } => {
            json!({"id": format!("extra{position}"), "text": "Double-check", "status": "pending"})
        }
        AddedItem::EmptyText => json!({"id": "1", "text": "", "status": "pending"}),
        AddedItem::UnknownStatus => json!({"id": "1", "text": "Start", "status": "done"}),
        AddedItem::OverLimit { nth, .. } => {
            json!({"id": format!("sub{nth}"), "text": format!("Sub-task {nth}"), "status": "pending"})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_render_reads_back() {
        let mut plan = Vec::new();
        let input = json!({"items": [{"id": "1", "text": "Read", "status": "completed"}, {"id": "2", "text": "Write", "status": "in_progress"}]});
        let outcome = S03.apply(&mut plan, "todo", &input);
        assert!(outcome.accepted);
        assert_eq!(
            outcome.content,
            "[x] #1: Read\n[>] #2: Write\n\n(1/2 completed)"
        );
        assert_eq!(S03.plan_from_result(&outcome.content), Some(plan.clone()));
        assert_eq!(S03.render(&plan), outcome.content);
    }

    #[test]
    fn rejected_call_changes_nothing() {
        let mut plan = vec![PlanItem::new("1", "Read", PlanStatus::Pending)];
        let before = plan.clone();
        let outcome = S03.apply(
            &mut plan,
            "todo",
            &json!({"items": [{"id": "1", "text": "", "status": "pending"}]}),
        );
        assert_eq!(
            outcome,
            PlanOutcome::rejected("Error: Item 1: text required")
        );
        assert_eq!(plan, before);
        assert!(S03.is_error(&outcome.content));
    }

    #[test]
    fn every_invalid_kind_is_rejected() {
        for wanted in [
            vec![],
            vec![PlanItem::new("1", "Read", PlanStatus::Pending)],
        ] {
            every_invalid_kind_is_rejected_from(&wanted);
        }
    }

    fn every_invalid_kind_is_rejected_from(wanted: &[PlanItem]) {
        for kind in [
            InvalidUpdate::TwoInProgress,
            InvalidUpdate::EmptyText,
            InvalidUpdate::UnknownStatus,
            InvalidUpdate::TooMany,
        ] {
            let call = S03.write_invalid(wanted, kind).unwrap();
            let mut plan = Vec::new();
            assert!(
                !S03.apply(&mut plan, &call.tool, &call.input).accepted,
                "{kind:?}"
            );
        }
    }
}
