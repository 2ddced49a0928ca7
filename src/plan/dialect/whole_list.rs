//! The piece every whole-list dialect shares: one planning tool whose call
//! sends the whole list under one key. Nine dialects are such: `s03`,
//! `s03-guarded`, `planning-state`, `java-port`, `claude-code`, `codex`,
//! `gemini`, `qwen-code` and `opencode`. Each describes itself in a
//! [`WholeList`] and its `PlanDialect` methods `name`, `tools`,
//! `is_planning_tool`, `apply`, `plan_from_call` and `write_update`
//! forward to it (written once, by [`forward_to_whole_list`]); what differs (the render, reading a render back, the
//! invalid updates, the error prefix, the limits) stays in its own file.
//!
//! Most of them apply a call the one way ([`Apply::Replace`]): an accepted
//! list replaces the stored plan and is answered from it, a refused one
//! leaves it. Those whose answer needs more than the list it sets apply it
//! themselves ([`Apply::Own`]): `s03` and `java-port` answer with the
//! reference's `TodoManager`, `claude-code` empties a finished list,
//! `qwen-code` echoes the JSON sent and leaves an unchanged list unwritten,
//! `opencode` echoes the fields it keeps.
//!
//! `create-update`, `claude-code-tasks` and `copilot-sql` are not
//! whole-list: their calls change items in place (a call names the items
//! it touches, or a SQL statement does).

use std::sync::LazyLock;

use serde_json::Value;

use super::error::Refusal;
use super::{PlanCall, PlanItem, PlanOutcome};
use crate::llm::ToolSchema;

/// The six `PlanDialect` methods every whole-list dialect forwards to its
/// [`WholeList`] (`name`, `tools`, `is_planning_tool`, `apply`,
/// `plan_from_call`, `write_update`), and `apply_is_pure` (true for
/// each), written once: a dialect's impl opens
/// with `forward_to_whole_list!(LIST);` and writes only what differs.
macro_rules! forward_to_whole_list {
    ($list:expr) => {
        fn name(&self) -> &'static str {
            $list.name()
        }

        fn tools(&self) -> Vec<$crate::llm::ToolSchema> {
            $list.tools()
        }

        fn is_planning_tool(&self, tool: &str) -> bool {
            $list.is_planning_tool(tool)
        }

        fn apply(
            &self,
            plan: &mut Vec<$crate::plan::dialect::PlanItem>,
            _tool: &str,
            input: &serde_json::Value,
        ) -> $crate::plan::dialect::PlanOutcome {
            $list.apply(plan, input)
        }

        // A whole list is validated and answered from the list and the
        // plan alone.
        fn apply_is_pure(&self) -> bool {
            true
        }

        fn plan_from_call(
            &self,
            _before: &[$crate::plan::dialect::PlanItem],
            _tool: &str,
            input: &serde_json::Value,
        ) -> Option<Vec<$crate::plan::dialect::PlanItem>> {
            $list.plan_from_call(input)
        }

        fn write_update(
            &self,
            _before: &[$crate::plan::dialect::PlanItem],
            wanted: &[$crate::plan::dialect::PlanItem],
        ) -> Vec<$crate::plan::dialect::PlanCall> {
            $list.write_update(wanted)
        }
    };
}
pub(crate) use forward_to_whole_list;

/// A whole-list dialect's tool and rules.
pub(crate) struct WholeList {
    /// The dialect's name.
    pub name: &'static str,
    /// Its one planning tool.
    pub tool: &'static str,
    /// The input key holding the list.
    pub key: &'static str,
    pub schemas: &'static LazyLock<Vec<ToolSchema>>,
    /// The dialect's validation: the plan a call sets (as the call wrote
    /// it), or the message of its refusal.
    pub validate: fn(&Value) -> Result<Vec<PlanItem>, Refusal>,
    /// An item as the dialect's call writes it, given its 0-based place in
    /// the list (`qwen-code` numbers an item without an id by it).
    pub item_json: fn(&PlanItem, usize) -> Value,
    /// How a call is applied and answered.
    pub apply: Apply,
}

/// How a whole-list dialect applies a call to the stored plan.
pub(crate) enum Apply {
    /// An accepted list (`validate`'s) replaces the plan and is answered
    /// `accepted(plan)`; a refused one leaves it, answered
    /// `refused(message)`.
    Replace {
        accepted: fn(&[PlanItem]) -> String,
        refused: fn(String) -> String,
    },
    /// The dialect applies the call itself: its answer needs more than the
    /// list the call sets. It accepts exactly what `validate` accepts and
    /// leaves the plan untouched when it refuses.
    Own(fn(&mut Vec<PlanItem>, &Value) -> PlanOutcome),
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

    /// Applies a call the dialect's way ([`Apply`]).
    pub fn apply(&self, plan: &mut Vec<PlanItem>, input: &Value) -> PlanOutcome {
        match self.apply {
            Apply::Replace { accepted, refused } => match (self.validate)(input) {
                Ok(items) => {
                    *plan = items;
                    PlanOutcome::accepted(accepted(plan))
                }
                Err(refusal) => PlanOutcome::rejected(refused(refusal.to_string())),
            },
            Apply::Own(apply) => apply(plan, input),
        }
    }

    /// The plan a call sets, if it is accepted.
    pub fn plan_from_call(&self, input: &Value) -> Option<Vec<PlanItem>> {
        (self.validate)(input).ok()
    }

    /// The one call that sends `wanted` whole.
    pub fn write_update(&self, wanted: &[PlanItem]) -> Vec<PlanCall> {
        let items = wanted
            .iter()
            .enumerate()
            .map(|(position, item)| (self.item_json)(item, position));
        vec![PlanCall::whole_list(self.tool, self.key, items.collect())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::dialect::PlanStatus;
    use crate::plan::dialect::error::PlanningStateError;
    use serde_json::json;

    static NO_SCHEMAS: LazyLock<Vec<ToolSchema>> = LazyLock::new(Vec::new);

    /// A list of non-empty strings, answered with its length (refused
    /// with planning-state's words).
    fn strings(input: &Value) -> Result<Vec<PlanItem>, Refusal> {
        let list = input["list"]
            .as_array()
            .ok_or(PlanningStateError::NoItems)?;
        list.iter()
            .enumerate()
            .map(|(k, text)| match text.as_str() {
                Some(text) if !text.is_empty() => Ok(PlanItem::new(
                    (k + 1).to_string(),
                    text,
                    PlanStatus::Pending,
                )),
                _ => Err(PlanningStateError::NoContent { i: k }.into()),
            })
            .collect()
    }

    fn toy(apply: Apply) -> WholeList {
        WholeList {
            name: "toy",
            tool: "plan",
            key: "list",
            schemas: &NO_SCHEMAS,
            validate: strings,
            item_json: |item, position| json!(format!("{position}:{}", item.text)),
            apply,
        }
    }

    const REPLACE: Apply = Apply::Replace {
        accepted: |plan| format!("{} items", plan.len()),
        refused: |message| format!("Error: {message}"),
    };

    #[test]
    fn replace_stores_an_accepted_list_and_keeps_the_plan_on_refusal() {
        let list = toy(REPLACE);
        let mut plan = vec![PlanItem::new("1", "Keep", PlanStatus::Completed)];
        let refused = list.apply(&mut plan, &json!({"list": ["a", ""]}));
        assert_eq!(
            refused,
            PlanOutcome::rejected("Error: Item 1: content required")
        );
        assert_eq!(plan, [PlanItem::new("1", "Keep", PlanStatus::Completed)]);

        let input = json!({"list": ["a", "b"]});
        assert_eq!(
            list.apply(&mut plan, &input),
            PlanOutcome::accepted("2 items")
        );
        assert_eq!(plan, strings(&input).unwrap_or_default());
        assert_eq!(list.plan_from_call(&input), Some(plan));
        assert_eq!(list.plan_from_call(&json!({"list": [""]})), None);
    }

    #[test]
    fn own_is_the_dialects_apply() {
        let list = toy(Apply::Own(|plan, _| {
            plan.clear();
            PlanOutcome::accepted("cleared")
        }));
        let mut plan = vec![PlanItem::new("1", "Keep", PlanStatus::Pending)];
        assert_eq!(
            list.apply(&mut plan, &json!({})),
            PlanOutcome::accepted("cleared")
        );
        assert!(plan.is_empty());
    }

    #[test]
    fn one_call_sends_the_whole_list_with_positions() {
        let list = toy(REPLACE);
        let wanted = [
            PlanItem::new("", "a", PlanStatus::Pending),
            PlanItem::new("", "b", PlanStatus::Pending),
        ];
        assert_eq!(
            list.write_update(&wanted),
            [PlanCall {
                tool: "plan".into(),
                input: json!({"list": ["0:a", "1:b"]}),
            }]
        );
        assert_eq!(list.name(), "toy");
        assert!(list.is_planning_tool("plan") && !list.is_planning_tool("list"));
    }
}
