//! What the dialects' unit tests share: applying a call the way every
//! dialect must take it (a rejection leaves the plan as it was and is one
//! of the dialect's errors).

use serde_json::Value;

use super::{PlanDialect, PlanItem, PlanOutcome, PlanStatus};

/// Applies one call of `tool` to `plan` and checks the rules every
/// rejection keeps: the plan is unchanged and the result is one of the
/// dialect's errors.
pub(super) fn apply_checked(
    dialect: &dyn PlanDialect,
    plan: &mut Vec<PlanItem>,
    tool: &str,
    input: &Value,
) -> PlanOutcome {
    let before = plan.clone();
    let outcome = dialect.apply(plan, tool, input);
    if !outcome.accepted {
        assert_eq!(*plan, before, "a rejected call changed the plan");
        assert!(dialect.is_error(&outcome.content), "{}", outcome.content);
    }
    outcome
}

/// One call of `tool`, checked as [`apply_checked`], to a plan of one
/// pending item (`1`, `Keep`): what most refusal tests start from.
pub(super) fn apply_to_kept(dialect: &dyn PlanDialect, tool: &str, input: &Value) -> PlanOutcome {
    let mut plan = vec![PlanItem::new("1", "Keep", PlanStatus::Pending)];
    apply_checked(dialect, &mut plan, tool, input)
}
