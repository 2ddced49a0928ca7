//! The plans an agent reported over ACP, as agent-eval keeps them: each
//! `plan` update (the whole list) after the model responses served so far.
//! They are a run's `agent_plans` in the JSON report (re-exported by
//! `results::record`), read back strictly as the report's own fields.

use serde::{Deserialize, Serialize};

use crate::plan::dialect::{PlanItem, PlanStatus};

/// One plan an agent reported (an ACP `plan` update): the whole list,
/// after `turn` model responses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentPlan {
    pub turn: usize,
    pub entries: Vec<AgentPlanEntry>,
}

/// An entry of an agent's plan, as ACP has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentPlanEntry {
    pub content: String,
    /// `high`, `medium` or `low`.
    pub priority: String,
    pub status: PlanStatus,
}

impl AgentPlan {
    /// The plan as plan items (ids by position), as every dialect's plan
    /// reads.
    pub fn items(&self) -> Vec<PlanItem> {
        self.entries
            .iter()
            .enumerate()
            .map(|(index, entry)| PlanItem {
                id: (index + 1).to_string(),
                text: entry.content.clone(),
                status: entry.status,
                active_form: None,
                task: None,
            })
            .collect()
    }
}
