//! `every-turn` (Roo Code): every turn that ran tools ends with the current
//! plan, rendered as the dialect renders it, under a `REMINDERS` header.
//!
//! The exact text is `REMINDERS\n\nBelow is your current plan. Keep it
//! updated as you progress.\n\n` followed by the dialect's render of the
//! plan (its empty-plan render when there is none).

use super::{PlanDialect, PlanItem, ReminderPolicy, TurnFacts};

/// The header every reminder starts with.
pub const EVERY_TURN_HEADER: &str = "REMINDERS";

#[derive(Debug, Clone)]
pub(super) struct EveryTurn;

/// The full text for `plan`.
pub(super) fn text(plan: &[PlanItem], dialect: &dyn PlanDialect) -> String {
    format!(
        "{EVERY_TURN_HEADER}\n\nBelow is your current plan. Keep it updated as you progress.\n\n{}",
        dialect.render(plan)
    )
}

impl ReminderPolicy for EveryTurn {
    /// Nothing to carry: every turn with tool results gets the plan.
    fn user_message(&mut self) {}

    fn after_turn(
        &mut self,
        _facts: &TurnFacts,
        plan: &[PlanItem],
        dialect: &dyn PlanDialect,
    ) -> Option<String> {
        Some(text(plan, dialect))
    }
}
