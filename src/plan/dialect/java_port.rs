//! `java-port`: the s03 design as ported to Java. Same tool, input, limits,
//! messages and render as `s03`, with one difference: a status word the
//! port does not know silently becomes `pending` instead of an error.

use serde_json::Value;

use super::error::Refusal;
use super::s03::{self, PREFIX, S03, to_plan};
use super::whole_list::{Apply, WholeList};
use super::{InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanOutcome};
use crate::plan::todo::{self, TodoManager, UnknownStatus};

#[derive(Debug, Clone, Copy)]
pub struct JavaPort;

/// s03's validation, an unknown status word read as `pending`.
fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    todo::parse_input(input, UnknownStatus::Pending)
        .map(to_plan)
        .map_err(Refusal::from)
}

/// A call as s03 applies it (`TodoManager`'s render, or its error behind
/// `Error: `), an unknown status word read as `pending`.
fn apply(plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
    let mut manager = TodoManager::new();
    match manager.handle_input_with(input, UnknownStatus::Pending) {
        Ok(render) => {
            *plan = to_plan(manager.into_items());
            PlanOutcome::accepted(render)
        }
        Err(e) => PlanOutcome::rejected(format!("{PREFIX}{e}")),
    }
}

/// The shared whole-list piece, described for this dialect: s03's tool,
/// schemas and calls.
static LIST: WholeList = WholeList {
    name: "java-port",
    tool: s03::TOOL,
    key: "items",
    schemas: &s03::SCHEMAS,
    validate,
    item_json: |item, _| s03::item_json(item),
    apply: Apply::Own(apply),
};

impl PlanDialect for JavaPort {
    super::whole_list::forward_to_whole_list!(LIST);

    fn render(&self, plan: &[PlanItem]) -> String {
        S03.render(plan)
    }

    fn plan_from_result(&self, result: &str) -> Option<Vec<PlanItem>> {
        S03.plan_from_result(result)
    }

    // The error prefix and the limits are s03's: the port changed only
    // how an unknown status word is read.
    fn error_prefix(&self) -> &'static str {
        S03.error_prefix()
    }

    fn max_items(&self) -> Option<usize> {
        S03.max_items()
    }

    fn single_in_progress(&self) -> bool {
        S03.single_in_progress()
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        match kind {
            // The port accepts any status word.
            InvalidUpdate::UnknownStatus => None,
            _ => Some(s03::invalid_call(wanted, kind)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::PlanStatus;
    use serde_json::json;

    #[test]
    fn unknown_status_becomes_pending() {
        let mut plan = Vec::new();
        let outcome = JavaPort.apply(
            &mut plan,
            "todo",
            &json!({"items": [{"id": "1", "text": "Read", "status": "Done"}, {"id": "2", "text": "Write", "status": "IN_PROGRESS"}]}),
        );
        assert_eq!(
            outcome,
            PlanOutcome::accepted("[ ] #1: Read\n[>] #2: Write\n\n(0/2 completed)")
        );
        assert_eq!(plan[0].status, PlanStatus::Pending);
        assert_eq!(JavaPort.plan_from_result(&outcome.content), Some(plan));
    }

    #[test]
    fn every_other_message_is_s03s() {
        let cases = [
            (
                json!({"items": (0..21).map(|i| json!({"text": format!("t{i}")})).collect::<Vec<_>>()}),
                "Error: Max 20 todos allowed",
            ),
            (
                json!({"items": [{"id": "a", "text": " "}]}),
                "Error: Item a: text required",
            ),
            (
                json!({"items": [{"text": "x", "status": "in_progress"}, {"text": "y", "status": "in_progress"}]}),
                "Error: Only one task can be in_progress at a time",
            ),
            (
                json!({"items": "x"}),
                "Error: items must be an array of todo objects, got a string",
            ),
            (
                json!({}),
                "Error: items is required: an array of {id, text, status} objects",
            ),
        ];
        for (input, message) in cases {
            let mut plan = vec![PlanItem::new("1", "Keep", PlanStatus::Pending)];
            let before = plan.clone();
            let outcome = JavaPort.apply(&mut plan, "todo", &input);
            assert_eq!(outcome, PlanOutcome::rejected(message));
            assert_eq!(plan, before);
            assert!(JavaPort.is_error(&outcome.content));
        }
        assert_eq!(JavaPort.render(&[]), "No todos.");
    }

    #[test]
    fn invalid_kinds() {
        let wanted = vec![PlanItem::new("1", "Read", PlanStatus::Pending)];
        assert!(
            JavaPort
                .write_invalid(&wanted, InvalidUpdate::UnknownStatus)
                .is_none()
        );
        for kind in [
            InvalidUpdate::TwoInProgress,
            InvalidUpdate::EmptyText,
            InvalidUpdate::TooMany,
        ] {
            let call = JavaPort
                .write_invalid(&wanted, kind)
                .unwrap_or_else(|| panic!("{kind:?}"));
            let mut plan = Vec::new();
            assert!(
                !JavaPort.apply(&mut plan, &call.tool, &call.input).accepted,
                "{kind:?}"
            );
        }
    }
}
