//! `planning-state` (seed 002): once a plan exists, every turn from
//! `interval` rounds after the last *accepted* update on gets a reminder
//! to refresh it. Rejected updates do not count.

use super::{PlanDialect, PlanItem, ReminderPolicy, TurnFacts};

/// The reminder text.
pub const PLANNING_STATE_TEXT: &str =
    "<reminder>Refresh your current plan before continuing.</reminder>";

#[derive(Debug, Clone)]
pub(super) struct PlanningState {
    pub interval: u32,
    pub rounds_since_update: usize,
}

impl ReminderPolicy for PlanningState {
    /// The count restarts, as s03's does (seed 002's REPL keeps its plan for
    /// the session, but counts rounds per call of its loop). The plan, and
    /// so "a plan exists", carries over.
    fn user_message(&mut self) {
        self.rounds_since_update = 0;
    }

    fn after_turn(
        &mut self,
        facts: &TurnFacts,
        plan: &[PlanItem],
        _dialect: &dyn PlanDialect,
    ) -> Option<String> {
        self.rounds_since_update = if facts.accepted_updates > 0 {
            0
        } else {
            self.rounds_since_update + 1
        };
        (!plan.is_empty() && self.rounds_since_update >= self.interval as usize)
            .then(|| PLANNING_STATE_TEXT.to_string())
    }
}
