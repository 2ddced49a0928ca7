//! `interval` (Cline): a reminder every `every` requests without a
//! planning call; the count restarts after each reminder and after each
//! planning call. When a plan exists the text ends with the progress, the
//! percentage rounded down to a whole number.

use super::{PlanDialect, PlanItem, ReminderPolicy, TurnFacts};
use crate::plan::dialect::PlanStatus;

/// The reminder's first line.
pub const INTERVAL_TEXT: &str =
    "# TODO LIST UPDATE REQUIRED - You MUST update your plan with your NEXT tool call.";

#[derive(Debug, Clone)]
pub(super) struct Interval {
    pub every: u32,
    pub since_planning: usize,
}

/// The full text for `plan`.
pub(super) fn text(plan: &[PlanItem]) -> String {
    if plan.is_empty() {
        return INTERVAL_TEXT.to_string();
    }
    let done = plan
        .iter()
        .filter(|i| i.status == PlanStatus::Completed)
        .count();
    let total = plan.len();
    format!(
        "{INTERVAL_TEXT}\n\n**Current Progress: {done}/{total} items completed ({}%)**",
        done * 100 / total
    )
}

impl ReminderPolicy for Interval {
    /// The count carries over: Cline counts requests over the task, and a
    /// follow-up message continues the task.
    fn user_message(&mut self) {}

    fn after_turn(
        &mut self,
        facts: &TurnFacts,
        plan: &[PlanItem],
        _dialect: &dyn PlanDialect,
    ) -> Option<String> {
        if facts.planning_calls > 0 {
            self.since_planning = 0;
            return None;
        }
        self.since_planning += 1;
        if self.since_planning >= self.every as usize {
            self.since_planning = 0;
            Some(text(plan))
        } else {
            None
        }
    }
}
