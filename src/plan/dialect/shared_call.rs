//! A planning call whose input is shared between runs, applied once per
//! thread and plan.
//!
//! A scripted model sends the same input (one `Arc<Value>`) in every run of
//! a scenario, and most runs reach each of its planning calls with the same
//! plan. For a dialect whose apply is a function of the plan, the tool and
//! the input alone ([`PlanDialect::apply_is_pure`]), the outcome and the
//! plan after the call are the same every time: validating the list and
//! rendering it again was about a tenth of a short episode. Here they are
//! kept in a small direct-mapped cache per thread (as the price keeps a
//! shared input's count) and taken when the dialect, the tool, the input
//! (the same allocation) and the plan before the call are all the same;
//! anything else is applied as usual.

use std::cell::RefCell;
use std::sync::Arc;

use serde_json::Value;

use super::{PlanDialect, PlanItem, PlanOutcome};
use crate::llm::shared_slots::SharedSlots;

/// [`PlanDialect::apply`] of a call whose input may be shared: the same
/// outcome and the same plan after it, taken from the thread's cache when
/// this call was applied to this plan before.
pub fn apply_shared(
    dialect: &dyn PlanDialect,
    plan: &mut Vec<PlanItem>,
    tool: &str,
    input: &Arc<Value>,
) -> PlanOutcome {
    // Held only by the caller: no later run can send it again.
    if Arc::strong_count(input) < 2 || !dialect.apply_is_pure() {
        return dialect.apply(plan, tool, input);
    }
    APPLIED.with(|slots| {
        let mut slots = slots.borrow_mut();
        let Some(slot) = slots.slot(input) else {
            return dialect.apply(plan, tool, input);
        };
        if let Some(known) = slot
            .as_ref()
            .filter(|known| known.matches(dialect, tool, input, plan))
        {
            if known.outcome.accepted {
                plan.clone_from(&known.after);
            }
            return known.outcome.clone();
        }
        let before = plan.clone();
        let outcome = dialect.apply(plan, tool, input);
        *slot = Some(Applied {
            dialect: dialect.name(),
            tool: tool.to_string(),
            input: Arc::clone(input),
            before,
            after: if outcome.accepted {
                plan.clone()
            } else {
                Vec::new()
            },
            outcome: outcome.clone(),
        });
        outcome
    })
}

thread_local! {
    /// Planning calls applied on this thread (each entry holds its input).
    static APPLIED: RefCell<SharedSlots<Applied>> = RefCell::new(SharedSlots::new(64));
}

/// One planning call as it was applied.
struct Applied {
    /// The dialect's name (dialects are unit values: their addresses may
    /// coincide, their names do not).
    dialect: &'static str,
    tool: String,
    input: Arc<Value>,
    /// The plan the call was applied to.
    before: Vec<PlanItem>,
    /// The plan after it, when it was accepted (a refused call leaves the
    /// plan as it was).
    after: Vec<PlanItem>,
    outcome: PlanOutcome,
}

impl Applied {
    /// Whether this is the same call on the same plan.
    fn matches(
        &self,
        dialect: &dyn PlanDialect,
        tool: &str,
        input: &Arc<Value>,
        plan: &[PlanItem],
    ) -> bool {
        Arc::ptr_eq(&self.input, input)
            && self.dialect == dialect.name()
            && self.tool == tool
            && self.before == plan
    }
}

#[cfg(test)]
mod tests;
