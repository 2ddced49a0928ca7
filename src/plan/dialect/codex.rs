//! `codex`: Codex CLI's `update_plan`. The whole plan is sent every time
//! (`{explanation?, plan: [{step, status}]}`); unknown fields are rejected,
//! any number of steps may be in progress, and the result is always
//! `Plan updated`: the plan is never shown back.
//!
//! The arguments are parsed the way Codex parses them — serde with
//! `deny_unknown_fields` over the arguments' JSON text — so an error reads
//! exactly like Codex's: `failed to parse function arguments: <serde
//! error>` (the position is in the compact JSON text of the input).

use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    InvalidUpdate, PlanCall, PlanDialect, PlanItem, PlanStatus, numbered, numbered_status_lines,
};
use std::sync::LazyLock;

use super::error::{CodexError, Refusal};
use super::whole_list::{Apply, WholeList};
use crate::llm::ToolSchema;

const TOOL: &str = "update_plan";
const PREFIX: &str = "failed to parse function arguments: ";
/// The tool result of every accepted call.
pub const SUCCESS: &str = "Plan updated";

#[derive(Debug, Clone, Copy)]
pub struct Codex;

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanItemArg {
    step: String,
    status: StepStatus,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdatePlanArgs {
    #[serde(default)]
    #[allow(dead_code)] // read by Codex's UI, not by the plan
    explanation: Option<String>,
    plan: Vec<PlanItemArg>,
}

fn validate(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
    let args: UpdatePlanArgs =
        serde_json::from_str(&input.to_string()).map_err(CodexError::from)?;
    Ok(numbered(args.plan.into_iter().map(|item| {
        let status = match item.status {
            StepStatus::Pending => PlanStatus::Pending,
            StepStatus::InProgress => PlanStatus::InProgress,
            StepStatus::Completed => PlanStatus::Completed,
        };
        (item.step, status, None)
    })))
}

fn item_json(item: &PlanItem) -> Value {
    let status = item.status.three_words();
    json!({"step": item.text, "status": status})
}

/// The tool schemas offered to the model, from `codex.json` beside this file.
static SCHEMAS: LazyLock<Vec<ToolSchema>> = super::schema_file::schemas!("codex.json");

/// The shared whole-list piece, described for this dialect.
static LIST: WholeList = WholeList {
    name: "codex",
    tool: TOOL,
    key: "plan",
    schemas: &SCHEMAS,
    validate,
    item_json: |item, _| item_json(item),
    apply: Apply::Replace {
        accepted: |_| SUCCESS.to_string(),
        refused: |message| message,
    },
};

impl PlanDialect for Codex {
    super::whole_list::forward_to_whole_list!(LIST);

    /// Not a tool result (the tool never shows the plan): one line per
    /// step, `<k>. [<status>] <step>`.
    fn render(&self, plan: &[PlanItem]) -> String {
        numbered_status_lines(plan, "No plan.")
    }

    fn plan_from_result(&self, _result: &str) -> Option<Vec<PlanItem>> {
        None
    }

    fn error_prefix(&self) -> &'static str {
        PREFIX
    }

    fn write_invalid(&self, wanted: &[PlanItem], kind: InvalidUpdate) -> Option<PlanCall> {
        // Codex takes empty steps, any number of steps, and any number of
        // them in progress: only the status can be wrong.
        if kind != InvalidUpdate::UnknownStatus {
            return None;
        }
        let mut items: Vec<Value> = wanted.iter().map(item_json).collect();
        kind.break_list(
            &mut items,
            "step",
            None,
            |_| json!({"step": "Start", "status": "done"}),
        );
        Some(PlanCall::whole_list(TOOL, "plan", items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::PlanOutcome;
    use crate::plan::dialect::test_support::apply_checked;

    fn apply(input: Value) -> (PlanOutcome, Vec<PlanItem>) {
        let mut plan = vec![PlanItem::new("1", "Keep", PlanStatus::Pending)];
        let outcome = apply_checked(&Codex, &mut plan, TOOL, &input);
        (outcome, plan)
    }

    #[test]
    fn accepted_calls_say_plan_updated() {
        let (outcome, plan) = apply(json!({"explanation": "start", "plan": [
            {"step": "Read", "status": "completed"},
            {"step": "Write", "status": "in_progress"},
            {"step": "", "status": "in_progress"},
        ]}));
        assert_eq!(outcome, PlanOutcome::accepted("Plan updated"));
        assert_eq!(plan[2], PlanItem::new("3", "", PlanStatus::InProgress));
        assert_eq!(
            Codex.render(&plan),
            "1. [completed] Read\n2. [in_progress] Write\n3. [in_progress] "
        );
        assert_eq!(Codex.plan_from_result("Plan updated"), None);
        assert!(apply(json!({"plan": [], "explanation": null})).0.accepted);
    }

    #[test]
    fn every_rejection_message() {
        let cases = [
            (json!({}), "missing field `plan` at line 1 column 2"),
            (
                json!({"plan": [], "note": 1}),
                "unknown field `note`, expected `explanation` or `plan` at line 1 column 17",
            ),
            (
                json!({"plan": [{"step": "a", "status": "done"}]}),
                "unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36",
            ),
            (
                json!({"plan": [{"step": "a", "status": "pending", "id": "1"}]}),
                "unknown field `id`, expected `step` or `status` at line 1 column 44",
            ),
            (
                json!({"plan": [{"status": "pending"}]}),
                "missing field `step` at line 1 column 29",
            ),
            (
                json!({"plan": "a"}),
                "invalid type: string \"a\", expected a sequence at line 1 column 11",
            ),
            (
                json!([]),
                "invalid length 1, expected struct UpdatePlanArgs with 2 elements at line 1 column 2",
            ),
            (
                json!({"plan": [], "explanation": 3}),
                "invalid type: integer `3`, expected a string at line 1 column 26",
            ),
        ];
        for (input, message) in cases {
            let (outcome, _) = apply(input.clone());
            assert_eq!(
                outcome,
                PlanOutcome::rejected(format!("{PREFIX}{message}")),
                "{input}"
            );
        }
    }

    #[test]
    fn invalid_kinds() {
        let wanted = vec![PlanItem::new("1", "Read", PlanStatus::Pending)];
        for kind in [
            InvalidUpdate::EmptyText,
            InvalidUpdate::TwoInProgress,
            InvalidUpdate::TooMany,
        ] {
            assert!(Codex.write_invalid(&wanted, kind).is_none(), "{kind:?}");
        }
        for w in [vec![], wanted] {
            let call = Codex.write_invalid(&w, InvalidUpdate::UnknownStatus);
            let call = call.unwrap_or_else(|| panic!("unknown status"));
            assert!(!apply(call.input).0.accepted);
        }
    }
}
