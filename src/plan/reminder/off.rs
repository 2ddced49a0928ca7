//! `off`: never reminds.

use super::{PlanDialect, PlanItem, ReminderPolicy, TurnFacts};

#[derive(Debug, Clone)]
pub(super) struct Off;

impl ReminderPolicy for Off {
    fn user_message(&mut self) {}

    fn after_turn(
        &mut self,
        _facts: &TurnFacts,
        _plan: &[PlanItem],
        _dialect: &dyn PlanDialect,
    ) -> Option<String> {
        None
    }
}
