//! The piece every whole-list dialect shares (s03-guarded, gemini,
//! planning-state, codex): one planning tool whose call sends the whole
//! list under one key, validated by the dialect's own rule; an accepted
//! call replaces the stored plan, a refused one leaves it. Each such
//! dialect describes itself in a [`WholeList`] and its `PlanDialect`
//! methods for these six things forward to it; what differs (the render,
//! reading a render back, the invalid updates) stays in its own file.

use std::sync::LazyLock;

use serde_json::Value;

use super::{PlanCall, PlanItem, PlanOutcome};
use crate::llm::ToolSchema;

/// A whole-list dialect's tool and rules.
pub(crate) struct WholeList {
    /// The dialect's name.
    pub name: &'static str,
    /// Its one planning tool.
    pub tool: &'static str,
    /// The input key holding the list.
    pub key: &'static str,
    pub schemas: &'static LazyLock<Vec<ToolSchema>>,
    /// The dialect's validation: the plan a call sets, or the message of
    /// its refusal.
    pub validate: fn(&Value) -> Result<Vec<PlanItem>, String>,
    /// An item as the dialect's call writes it.
    pub item_json: fn(&PlanItem) -> Value,
}

impl WholeList {
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn tools(&self) -> Vec<ToolSchema> {
        LazyLock::force(self.schemas).clone()
    }

    pub fn is_planning_tool(&self, tool: &str) -> bool {
        tool == self.tool
    }

    /// Applies a call: an accepted list replaces `plan` and is answered
    /// `accepted(plan)`; a refused one leaves it, answered
    /// `refused(message)`.
    pub fn apply(
        &self,
        plan: &mut Vec<PlanItem>,
        input: &Value,
        accepted: impl FnOnce(&[PlanItem]) -> String,
        refused: impl FnOnce(String) -> String,
    ) -> PlanOutcome {
        match (self.validate)(input) {
            Ok(items) => {
                *plan = items;
                PlanOutcome::accepted(accepted(plan))
            }
            Err(message) => PlanOutcome::rejected(refused(message)),
        }
    }

    /// The plan a call sets, if it is accepted.
    pub fn plan_from_call(&self, input: &Value) -> Option<Vec<PlanItem>> {
        (self.validate)(input).ok()
    }

    /// The one call that sends `wanted` whole.
    pub fn write_update(&self, wanted: &[PlanItem]) -> Vec<PlanCall> {
        vec![PlanCall::whole_list(
            self.tool,
            self.key,
            wanted.iter().map(self.item_json).collect(),
        )]
    }
}
